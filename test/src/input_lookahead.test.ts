import { describe, expect, it } from "vitest";
import { InputLookahead } from "../../src/input_lookahead.ts";
import type { InputLine } from "../../src/line_splitter.ts";

/** A source of lines that the test feeds by hand, counting reads. */
function source() {
  const queue: Array<InputLine | undefined> = [];
  const waiters: Array<(v: InputLine | undefined) => void> = [];
  let reads = 0;
  return {
    read: () => {
      reads++;
      if (queue.length > 0) return Promise.resolve(queue.shift());
      return new Promise<InputLine | undefined>((resolve) => waiters.push(resolve));
    },
    push(item: InputLine | undefined) {
      const w = waiters.shift();
      if (w) w(item);
      else queue.push(item);
    },
    get reads() {
      return reads;
    },
  };
}
const line = (text: string): InputLine => ({ kind: "line", text });
const settle = () => new Promise((r) => setTimeout(r, 0));

describe("InputLookahead", () => {
  it("reads only on demand while prefetch is off", async () => {
    const s = source();
    const la = new InputLookahead(s.read, 1000);
    s.push(line("a"));
    s.push(line("b"));
    expect(await la.next()).toEqual(line("a"));
    await settle();
    expect(s.reads).toBe(1);
    expect(await la.next()).toEqual(line("b"));
  });

  it("with prefetch on, sees the end of input behind buffered lines, and still yields them in order", async () => {
    const s = source();
    const la = new InputLookahead(s.read, 1000);
    for (const t of ["1", "2", "3"]) s.push(line(t));
    s.push(undefined);
    let seen = false;
    la.endSeen.then(() => (seen = true));
    la.prefetch(true);
    await settle();
    expect(seen).toBe(true);
    expect(la.buffered).toBe(3);
    expect(await la.next()).toEqual(line("1"));
    expect(await la.next()).toEqual(line("2"));
    expect(await la.next()).toEqual(line("3"));
    expect(await la.next()).toBeUndefined();
  });

  it("stops reading ahead at its byte budget (not before)", async () => {
    const s = source();
    const la = new InputLookahead(s.read, 64 * 3 + 30);
    for (let i = 0; i < 10; i++) s.push(line("x".repeat(10)));
    la.prefetch(true);
    await settle();
    // 74 bytes each: 3 fit under 222 bytes, the 4th crosses the budget and reading stops.
    expect(la.buffered).toBe(3);
    expect(s.reads).toBe(3);
    await la.next();
    await settle();
    expect(la.buffered).toBe(3);
  });

  it("rethrows a read error after the items before it", async () => {
    const la = new InputLookahead(
      (() => {
        let n = 0;
        return () => (n++ === 0 ? Promise.resolve(line("ok")) : Promise.reject(new Error("broken pipe")));
      })(),
      1000,
    );
    la.prefetch(true);
    await la.endSeen;
    expect(await la.next()).toEqual(line("ok"));
    await expect(la.next()).rejects.toThrow("broken pipe");
  });
});
