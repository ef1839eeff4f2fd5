import { describe, expect, it } from "vitest";
import { LargeTextLine, utf8Length } from "../../../src/stream/large_text_line.ts";

const encoder = new TextEncoder();

/** Every block `line` gives at `limit`, checked to be exactly `min(limit, bytes left)` long. */
function drain(line: LargeTextLine, limit: number): Uint8Array {
  const out = new Uint8Array(line.bytes);
  let at = 0;
  while (at < line.bytes) {
    const block = line.take(limit);
    expect(block.byteLength).toBe(Math.min(limit, line.bytes - at));
    out.set(block, at);
    at += block.byteLength;
  }
  return out;
}

// ASCII, 2-byte (é), 3-byte (€) and 4-byte (😀, a surrogate pair) code points, in every order.
const MIXED = "a" + "é€😀b😀😀€é".repeat(9) + "😀";

describe("utf8Length", () => {
  it.each([
    ["empty", ""],
    ["ASCII", "plain text"],
    ["mixed", MIXED],
    ["a lone high surrogate at the end", "ab\ud83d"],
    ["a lone low surrogate in the middle", "a\ude00b"],
    ["a high surrogate before a non-surrogate", "\ud83dx"],
    [
      "longer than its scratch array, a pair across the 64 KiB mark",
      "x".repeat(65_535) + "😀" + "é".repeat(70_000),
    ],
  ])("counts what TextEncoder writes: %s", (_name, text) => {
    expect(utf8Length(text)).toBe(encoder.encode(text).byteLength);
  });
});

describe("LargeTextLine", () => {
  it("counts its UTF-8 bytes plus the newline", () => {
    expect(new LargeTextLine("é😀").bytes).toBe(2 + 4 + 1);
  });

  it.each([1, 2, 3, 4, 5, 7, 16, 1024])(
    "gives exactly the encoded line at a block limit of %i, code points split across blocks",
    (limit) => {
      const line = new LargeTextLine(MIXED);
      expect(drain(line, limit)).toEqual(encoder.encode(MIXED + "\n"));
    },
  );

  it("splits a code point at every offset within it and still writes each byte once", () => {
    for (let prefix = 0; prefix < 8; prefix++) {
      const text = "a".repeat(prefix) + "😀€é😀";
      for (let limit = 1; limit <= 9; limit++) {
        expect(drain(new LargeTextLine(text), limit)).toEqual(encoder.encode(text + "\n"));
      }
    }
  });

  it("encodes lone surrogates as U+FFFD, as TextEncoder does, and counts them so", () => {
    const text = "\ud83d" + "x".repeat(5) + "\ude00" + "y" + "\ud83d";
    for (const limit of [1, 2, 3, 6, 64]) {
      expect(drain(new LargeTextLine(text), limit)).toEqual(encoder.encode(text + "\n"));
    }
  });

  it("encodes a long text in blocks of the limit, the last one ending the line", () => {
    const text = "é".repeat(40_000) + "x".repeat(20_001);
    const line = new LargeTextLine(text);
    expect(line.bytes).toBe(100_002);
    const expected = encoder.encode(text + "\n");
    const out = drain(line, 16 * 1024);
    expect(out.byteLength === expected.byteLength && out.every((byte, i) => byte === expected[i])).toBe(true);
  });
});
