import { describe, expect, it } from "vitest";
import { ENTRY_OVERHEAD_BYTES, InputBacklog } from "../../../src/rpc/input_backlog.ts";
import { InvalidUtf8Error, MessageTooLargeError } from "../../../src/wire/errors.ts";

const line = (value: unknown) => ({
  kind: "line" as const,
  text: JSON.stringify(value),
  bytes: new TextEncoder().encode(JSON.stringify(value)).byteLength,
});

describe("InputBacklog bound (maxQueuedInputBytes)", () => {
  it("is full once its bytes reach the bound, and not one entry earlier", () => {
    const backlog = new InputBacklog(3 * ENTRY_OVERHEAD_BYTES);
    backlog.push({ bytes: ENTRY_OVERHEAD_BYTES });
    backlog.push({ bytes: ENTRY_OVERHEAD_BYTES });
    expect(backlog.full).toBe(false);
    backlog.push({ bytes: ENTRY_OVERHEAD_BYTES });
    expect(backlog.full).toBe(true);
    expect(backlog.bytes).toBe(3 * ENTRY_OVERHEAD_BYTES);
  });

  it("takes one larger message into an empty backlog", () => {
    const backlog = new InputBacklog(10);
    expect(backlog.full).toBe(false);
    backlog.push({ bytes: 1_000 });
    expect(backlog.length).toBe(1);
    expect(backlog.full).toBe(true);
  });

  it("shifts in order and frees room, and wakes waiters on every change", async () => {
    const backlog = new InputBacklog(100);
    let wakes = 0;
    const count = async () => {
      for (;;) {
        await backlog.changed.wait();
        wakes++;
      }
    };
    void count();
    backlog.push({ bytes: 60, key: "a" });
    await Promise.resolve();
    backlog.push({ bytes: 60, key: "b" });
    await Promise.resolve();
    expect(backlog.full).toBe(true);
    expect(backlog.shift()?.key).toBe("a");
    await Promise.resolve();
    expect(backlog.full).toBe(false);
    expect(backlog.head?.key).toBe("b");
    expect(wakes).toBe(3);
  });

  it("drops matching entries in order and keeps the byte count right", () => {
    const backlog = new InputBacklog(1_000);
    for (const key of ["a", "b", "c", "d"]) backlog.push({ bytes: 10, key });
    expect(backlog.drop((e) => e.key === "b" || e.key === "d").map((e) => e.key)).toEqual(["b", "d"]);
    expect(backlog.bytes).toBe(20);
    expect(backlog.length).toBe(2);
    expect(backlog.drop(() => false)).toEqual([]);
  });
});

describe("InputBacklog.admit", () => {
  it("queues requests and notifications counted by their text, and returns replies and cancellations to act on now", () => {
    const backlog = new InputBacklog(1_000_000);
    const reports: Error[] = [];
    const report = (e: Error) => reports.push(e);
    const request = line({ jsonrpc: "2.0", id: 7, method: "m" });
    expect(backlog.admit(request, true, report)).toBeUndefined();
    expect(backlog.head).toMatchObject({
      key: "n:7",
      request: { id: 7, method: "m" },
      bytes: request.text.length + ENTRY_OVERHEAD_BYTES,
    });
    expect(backlog.admit(line({ jsonrpc: "2.0", method: "note", params: 1 }), true, report)).toBeUndefined();
    expect(backlog.length).toBe(2);
    expect(backlog.admit(line({ jsonrpc: "2.0", id: 1, result: "r" }), true, report)).toMatchObject({
      kind: "result",
      id: 1,
    });
    expect(
      backlog.admit(
        line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } }),
        true,
        report,
      ),
    ).toMatchObject({ kind: "notification" });
    expect(backlog.length).toBe(2);
    expect(reports).toEqual([]);
  });

  it("reports bad input and queues the error reply it is owed, in input order", () => {
    const backlog = new InputBacklog(1_000_000);
    const reports: Error[] = [];
    backlog.admit({ kind: "line", text: "{nope", bytes: 5 }, true, (e) => reports.push(e));
    backlog.admit(line([1, 2]), true, (e) => reports.push(e));
    backlog.admit({ kind: "error", error: new InvalidUtf8Error() }, true, (e) => reports.push(e));
    backlog.admit(
      {
        kind: "error",
        error: new MessageTooLargeError(10),
        head: { hasMethod: false, hasResult: false, hasError: false },
      },
      true,
      (e) => reports.push(e),
    );
    expect(reports).toHaveLength(4);
    const codes = [];
    while (backlog.head) codes.push((backlog.shift()!.reply!.error as { code: number }).code);
    expect(codes).toEqual([-32700, -32600, -32700, -32600]);
  });

  it("only reports bad input when answerInvalid is false", () => {
    const backlog = new InputBacklog(1_000_000);
    const reports: Error[] = [];
    backlog.admit({ kind: "line", text: "banner", bytes: 6 }, false, (e) => reports.push(e));
    backlog.admit(line({ jsonrpc: "1.0" }), false, (e) => reports.push(e));
    expect(reports).toHaveLength(2);
    expect(backlog.length).toBe(0);
  });
});

describe("InputBacklog as a queue", () => {
  it("keeps order, length and bytes through thousands of interleaved pushes, shifts and drops", () => {
    const backlog = new InputBacklog(1 << 30);
    const expected: string[] = [];
    let next = 0;
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 100; i++) {
        const key = `k${next++}`;
        backlog.push({ bytes: 1, key });
        expected.push(key);
      }
      for (let i = 0; i < 70; i++) expect(backlog.shift()?.key).toBe(expected.shift());
      const gone = backlog.drop((entry) => Number(entry.key!.slice(1)) % 7 === 0).map((entry) => entry.key);
      expect(gone).toEqual(expected.filter((key) => Number(key.slice(1)) % 7 === 0));
      expected.splice(0, expected.length, ...expected.filter((key) => Number(key.slice(1)) % 7 !== 0));
      expect(backlog.length).toBe(expected.length);
      expect(backlog.bytes).toBe(expected.length);
      expect(backlog.head?.key).toBe(expected[0]);
    }
    while (expected.length > 0) expect(backlog.shift()?.key).toBe(expected.shift());
    expect(backlog.shift()).toBeUndefined();
    expect([backlog.length, backlog.bytes, backlog.head]).toEqual([0, 0, undefined]);
  });
});
