import { describe, expect, it } from "vitest";
import { escapedPieces, jsonParts, LONG_STRING_UNITS, LongString } from "../../../src/stream/json_parts.ts";
import { LargeTextLine } from "../../../src/stream/large_text_line.ts";
import { encodeLine } from "../../../src/stream/output_block_queue.ts";

const LONG = "x".repeat(LONG_STRING_UNITS);
const joined = (parts: (string | LongString)[]) =>
  parts.map((p) => (p instanceof LongString ? [...escapedPieces(p.value)].join("") : p)).join("");

/** A long string with everything JSON escapes, non-ASCII text, and a surrogate pair across the 64 Ki piece boundary. */
const TRICKY = 'a"b\\c\n\u0000\u001f\u007f é€' + "y".repeat(65_536 - 13) + "😀" + "\ud83d lone \ude00" +
  "z".repeat(LONG_STRING_UNITS);

function bytesOf(line: LargeTextLine, limit = 16 * 1024): Uint8Array {
  const out = new Uint8Array(line.bytes);
  for (let at = 0; at < line.bytes;) {
    const block = line.take(limit);
    out.set(block, at);
    at += block.byteLength;
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
}

describe("jsonParts", () => {
  it("leaves a message without a long string to JSON.stringify", () => {
    expect(jsonParts({ a: "x".repeat(LONG_STRING_UNITS - 1), b: [1, 2] })).toBeUndefined();
    expect(jsonParts("short")).toBeUndefined();
    expect(jsonParts(null)).toBeUndefined();
  });

  it("leaves a long string behind toJSON, in a class instance or a Map, or past its search budget, to JSON.stringify", () => {
    expect(jsonParts({ a: { toJSON: () => LONG } })).toBeUndefined();
    expect(jsonParts({
      a: new (class Box {
        v = LONG;
      })(),
    })).toBeUndefined();
    expect(jsonParts({ a: new Map([["v", LONG]]) })).toBeUndefined();
    expect(jsonParts({ items: Array.from({ length: 40 }, (_, i) => i), text: LONG })).toBeUndefined();
  });

  it("writes a container of up to 256 members member by member, and stringifies a larger one whole", () => {
    const list = (n: number) => [LONG, ...Array.from({ length: n - 1 }, (_, i) => i)];
    const record = (n: number) => Object.fromEntries(list(n).map((v, i) => [`k${i}`, v]));
    for (const message of [{ list: list(256) }, record(256)]) {
      const parts = jsonParts(message)!;
      expect(parts.some((p) => p instanceof LongString)).toBe(true);
      expect(joined(parts)).toBe(JSON.stringify(message));
    }
    expect(jsonParts({ list: list(257) })).toBeUndefined();
    expect(jsonParts(record(257))).toBeUndefined();
  });

  it("splits a message at its long strings, which stay raw", () => {
    const parts = jsonParts({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: LONG }] } })!;
    expect(parts).toHaveLength(3);
    expect(parts[0]).toBe('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":');
    expect((parts[1] as LongString).value).toBe(LONG);
    expect(parts[2]).toBe("}]}}");
  });

  it.each([
    ["a top-level long string", TRICKY],
    ["a reply with every kind of escape", {
      jsonrpc: "2.0",
      id: 7,
      result: { content: [{ type: "text", text: TRICKY }] },
    }],
    ["members JSON leaves out", { u: undefined, f: () => 1, s: Symbol("s"), text: LONG, after: 1 }],
    ["array items JSON writes as null", [undefined, () => 1, Symbol("s"), LONG, null]],
    ["toJSON with the member's key, a Date", {
      when: new Date(0),
      k: { toJSON: (key: string) => `key ${key}` },
      text: LONG,
    }],
    ["toJSON with the item's index", [{ toJSON: (key: string) => `index ${key}` }, LONG]],
    ["integer-like keys and __proto__", {
      b: 1,
      2: "two",
      1: LONG,
      ["__proto__"]: 3,
      a: [LONG, { c: LONG }],
    }],
    ["an object with a null prototype", Object.assign(Object.create(null), { text: LONG, n: 1 })],
    ["empty containers around", { a: {}, b: [], text: LONG, c: { d: [] } }],
  ])("joins to exactly JSON.stringify: %s", (_name, message) => {
    expect(joined(jsonParts(message)!)).toBe(JSON.stringify(message));
  });

  it("encodes to exactly the UTF-8 of JSON.stringify plus the newline, counted exactly", () => {
    const message = { id: 1, result: { text: TRICKY, more: ["é", LONG] } };
    const line = new LargeTextLine(jsonParts(message)!);
    const expected = new TextEncoder().encode(JSON.stringify(message) + "\n");
    expect(line.bytes).toBe(expected.byteLength);
    expect(sameBytes(bytesOf(line), expected)).toBe(true);
    expect(sameBytes(bytesOf(new LargeTextLine(jsonParts(message)!), 5), expected)).toBe(true);
  });

  it("throws JSON.stringify's TypeError for a cycle or a BigInt", () => {
    const cyclic: Record<string, unknown> = { text: LONG };
    cyclic.self = cyclic;
    expect(() => jsonParts(cyclic)).toThrow(TypeError);
    expect(() => encodeLine(cyclic)).toThrow(TypeError);
    expect(() => jsonParts({ text: LONG, n: 1n })).toThrow(TypeError);
  });

  it("writes the message as it was when queued, whatever changes later", () => {
    const result = { text: LONG, n: 1, list: [1] };
    const line = new LargeTextLine(jsonParts(result)!);
    const expected = new TextEncoder().encode(JSON.stringify(result) + "\n");
    result.n = 1234;
    result.list.push(2);
    result.text = "short";
    expect(sameBytes(bytesOf(line), expected)).toBe(true);
  });
});
