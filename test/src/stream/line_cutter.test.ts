import { describe, expect, it } from "vitest";
import { type InputLine, LineCutter } from "../../../src/stream/line_cutter.ts";
import { MessageTooLargeError } from "../../../src/wire/errors.ts";
import { collectGarbage, MiB, utf8 } from "../../helpers/streams.ts";

const texts = (events: InputLine[]) => events.map((e) => (e.kind === "line" ? e.text : e.error.name));

/** `text` + "\n" pushed in two chunks cut at `cut` (the middle by default); the events. */
function pushCut(cutter: LineCutter, text: string, cut?: number): InputLine[] {
  const bytes = utf8(`${text}\n`);
  const at = cut ?? bytes.byteLength >> 1;
  return [...cutter.push(bytes.slice(0, at)), ...cutter.push(bytes.slice(at))];
}

/** Live array buffer bytes. Two collections: the second waits for the first one's sweeping of array buffers. */
function arrayBufferBytes(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().arrayBuffers;
}

describe("LineCutter line buffer", () => {
  it("reuses its buffer without leaking a longer earlier line into a shorter later one", () => {
    const cutter = new LineCutter();
    const long = `{"a":"${"x".repeat(200_000)}"}`;
    expect(texts(pushCut(cutter, long))).toEqual([long]);
    expect(texts(pushCut(cutter, '{"b":1}'))).toEqual(['{"b":1}']);
    expect(texts(pushCut(cutter, '{"c":"é€😀"}'))).toEqual(['{"c":"é€😀"}']);
    expect(texts([...cutter.push(utf8('{"d":')), ...cutter.end()])).toEqual(['{"d":']);
  });

  it("takes a line of exactly maxMessageBytes cut across chunks, and reports one byte more", () => {
    const max = 100_000;
    const cutter = new LineCutter({ maxMessageBytes: max });
    const exact = `"${"é".repeat((max - 2) / 2)}"`;
    expect(utf8(exact).byteLength).toBe(max);
    expect(texts(pushCut(cutter, exact))).toEqual([exact]);
    const over = `"${"é".repeat((max - 2) / 2)}x"`;
    expect(texts(pushCut(cutter, over))).toEqual(["MessageTooLargeError"]);
    expect(texts(pushCut(cutter, exact))).toEqual([exact]);
  });

  it("reports invalid UTF-8 cut across chunks on its line and reads the next line from the same buffer", () => {
    const cutter = new LineCutter();
    const bad = new Uint8Array([0x7b, 0x22, 0xe2, 0x82, 0x22, 0x7d, 0x0a]); // a 3-byte sequence cut short
    const events = [...cutter.push(bad.slice(0, 3)), ...cutter.push(bad.slice(3))];
    expect(texts(events)).toEqual(["InvalidUtf8Error"]);
    expect(texts(pushCut(cutter, '{"ok":"€"}'))).toEqual(['{"ok":"€"}']);
  });

  it("reads an oversize line's id from the held bytes", () => {
    const cutter = new LineCutter({ maxMessageBytes: 1000 });
    const bytes = utf8(`{"jsonrpc":"2.0","id":42,"result":"${"x".repeat(5000)}"}\n`);
    const events: InputLine[] = [];
    // 600-byte chunks: the first is held, the second crosses the limit.
    for (let at = 0; at < bytes.byteLength; at += 600) events.push(...cutter.push(bytes.slice(at, at + 600)));
    expect(events).toHaveLength(1);
    const event = events[0]!;
    if (event.kind !== "error" || !(event.error instanceof MessageTooLargeError)) {
      throw new Error("expected too large");
    }
    expect(event.head?.idLiteral).toBe("42");
  });

  it("keeps a large buffer through 15 much smaller lines and lets it go at the 16th", () => {
    const cutter = new LineCutter({ maxMessageBytes: 64 * MiB });
    const baseline = arrayBufferBytes();
    expect(texts(pushCut(cutter, `"${"x".repeat(8 * MiB)}"`))).toHaveLength(1);
    expect(arrayBufferBytes() - baseline).toBeGreaterThan(8 * MiB); // the buffer is kept
    for (let i = 0; i < 15; i++) pushCut(cutter, `[${i}]`);
    expect(arrayBufferBytes() - baseline).toBeGreaterThan(8 * MiB); // not let go early
    pushCut(cutter, "[15]");
    expect(arrayBufferBytes() - baseline).toBeLessThan(1 * MiB); // let go at the 16th
  });

  it("keeps a large buffer while lines of its size keep coming", () => {
    const cutter = new LineCutter({ maxMessageBytes: 64 * MiB });
    const baseline = arrayBufferBytes();
    for (let i = 0; i < 20; i++) {
      pushCut(cutter, `"${"x".repeat(4 * MiB)}"`);
      pushCut(cutter, "[1]");
    }
    expect(arrayBufferBytes() - baseline).toBeGreaterThan(4 * MiB);
  });

  it("never grows its buffer past maxMessageBytes + 1", () => {
    const max = 5 * MiB;
    const cutter = new LineCutter({ maxMessageBytes: max });
    const baseline = arrayBufferBytes();
    // Holds 3 MiB first; doubling would make 6 MiB: capped at max + 1.
    const text = `"${"x".repeat(max - 2)}"`;
    expect(texts(pushCut(cutter, text, 3 * MiB))).toEqual([text]);
    const held = arrayBufferBytes() - baseline;
    expect(held).toBeGreaterThan(max - 1);
    expect(held).toBeLessThanOrEqual(max + 1);
  });
});
