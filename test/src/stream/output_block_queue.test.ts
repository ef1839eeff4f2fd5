import { describe, expect, it } from "vitest";
import { encodeLine, lineBytes, OutputBlockQueue } from "../../../src/stream/output_block_queue.ts";
import { LargeTextLine } from "../../../src/stream/large_text_line.ts";

const bytes = (n: number, fill = 0x61) => new Uint8Array(n).fill(fill);
const encoder = new TextEncoder();

describe("OutputBlockQueue", () => {
  it("counts queued bytes against the high-water mark until a block is reported written", () => {
    const queue = new OutputBlockQueue(10);
    queue.push(bytes(4));
    expect([queue.bytes, queue.room, queue.hasBlock]).toEqual([4, 6, true]);
    const block = queue.take(16);
    expect(block.byteLength).toBe(4);
    expect([queue.bytes, queue.hasBlock]).toEqual([4, false]);
    queue.written(queue.size(block));
    expect([queue.bytes, queue.room]).toEqual([0, 10]);
  });

  it("fits a message that has room, refuses one byte more, and takes any message into an empty queue", () => {
    const queue = new OutputBlockQueue(10);
    expect(queue.fits(bytes(100))).toBe(true);
    queue.push(bytes(6));
    expect(queue.fits(bytes(4))).toBe(true);
    expect(queue.fits(bytes(5))).toBe(false);
  });

  it("cuts a large message into blocks of at most the limit, as views without copying", () => {
    const queue = new OutputBlockQueue(1_000);
    const message = bytes(40);
    queue.push(message);
    const sizes = [];
    while (queue.hasBlock) {
      const block = queue.take(16);
      expect(block.buffer).toBe(message.buffer);
      sizes.push(block.byteLength);
    }
    expect(sizes).toEqual([16, 16, 8]);
  });

  it("gathers small messages into one block up to the limit, in order", () => {
    const queue = new OutputBlockQueue(1_000);
    queue.push(bytes(3, 0x61));
    queue.push(bytes(3, 0x62));
    queue.push(bytes(3, 0x63));
    expect(new TextDecoder().decode(queue.take(7))).toBe("aaabbbc");
    expect(new TextDecoder().decode(queue.take(7))).toBe("cc");
    expect(queue.hasBlock).toBe(false);
  });

  it("drops everything on clear", () => {
    const queue = new OutputBlockQueue(10);
    queue.push(bytes(8));
    queue.clear();
    expect([queue.bytes, queue.hasBlock, queue.room]).toEqual([0, false, 10]);
  });

  it("keeps its bookkeeping right over many thousand small messages", () => {
    const queue = new OutputBlockQueue(1 << 20);
    let total = 0;
    for (let i = 0; i < 5_000; i++) queue.push(bytes(1 + (i % 7)));
    for (let i = 0; i < 5_000; i++) total += 1 + (i % 7);
    let taken = 0;
    while (queue.hasBlock) {
      const block = queue.take(64);
      taken += block.byteLength;
      queue.written(queue.size(block));
    }
    expect(taken).toBe(total);
    expect(queue.bytes).toBe(0);
  });
});

describe("OutputBlockQueue.pump", () => {
  function sink(writable: WritableStream<Uint8Array>, blockBytes = 4) {
    const events: string[] = [];
    let stopped = false;
    return {
      events,
      stop: () => (stopped = true),
      sink: {
        writer: writable.getWriter(),
        blockBytes,
        stopped: () => stopped,
        written: () => void events.push("written"),
        failed: (cause: unknown) => void events.push(`failed: ${(cause as Error).message}`),
      },
    };
  }

  it("writes one block at a time, each at most blockBytes, and tells of each, then empties the count", async () => {
    const blocks: number[] = [];
    let inFlight = 0;
    let most = 0;
    const writable = new WritableStream<Uint8Array>({
      write: async (chunk) => {
        inFlight++;
        most = Math.max(most, inFlight);
        blocks.push(chunk.byteLength);
        await Promise.resolve();
        inFlight--;
      },
    });
    const queue = new OutputBlockQueue(100);
    const s = sink(writable);
    queue.push(bytes(10));
    const running = queue.pump(s.sink);
    expect(queue.pump(s.sink)).toBeUndefined(); // a second pump while one runs returns at once, with no promise
    await running;
    expect(blocks).toEqual([4, 4, 2]);
    expect(most).toBe(1);
    expect(s.events).toEqual(["written", "written", "written"]);
    expect(queue.bytes).toBe(0);
  });

  it("stops at a failed write and tells of it, leaving the rest unwritten", async () => {
    const writable = new WritableStream<Uint8Array>({ write: () => Promise.reject(new Error("EPIPE")) });
    const queue = new OutputBlockQueue(100);
    const s = sink(writable);
    queue.push(bytes(10));
    await queue.pump(s.sink);
    expect(s.events).toEqual(["failed: EPIPE"]);
    expect(queue.hasBlock).toBe(true);
  });

  it("writes nothing more once stopped", async () => {
    const blocks: number[] = [];
    const writable = new WritableStream<Uint8Array>({ write: (chunk) => void blocks.push(chunk.byteLength) });
    const queue = new OutputBlockQueue(100);
    const s = sink(writable);
    queue.push(bytes(10));
    s.stop();
    await queue.pump(s.sink);
    expect(blocks).toEqual([]);
  });
});

describe("encodeLine", () => {
  it("encodes a message as one UTF-8 line and refuses what JSON cannot represent", () => {
    expect(new TextDecoder().decode(encodeLine({ a: "é" }) as Uint8Array)).toBe('{"a":"é"}\n');
    expect(() => encodeLine(undefined)).toThrow(TypeError);
    expect(() => encodeLine(Symbol("s"))).toThrow(/a symbol/);
    expect(() => encodeLine(1n)).toThrow(TypeError);
  });

  it("keeps a short pure-ASCII message as its JSON text, counted as its bytes plus the newline", () => {
    expect(encodeLine({ a: "b" })).toBe('{"a":"b"}');
    expect(lineBytes(encodeLine({ a: "b" }))).toBe(10);
    expect(lineBytes(encodeLine({ a: "é" }))).toBe(new TextEncoder().encode('{"a":"é"}\n').byteLength);
  });

  it("queues a message of 64 Ki UTF-16 units or more as text to encode block by block, counted in UTF-8", () => {
    const long = encodeLine("é".repeat(65_534)); // 65,536 units with the quotes
    expect(long).toBeInstanceOf(LargeTextLine);
    expect(lineBytes(long)).toBe(2 * 65_534 + 2 + 1);
    expect(encodeLine("é".repeat(65_533))).toBeInstanceOf(Uint8Array); // one unit shorter: encoded at once
  });
});

describe("OutputBlockQueue with a large text line", () => {
  const big = "é".repeat(50_000) + "😀".repeat(10_000); // 70,002 UTF-16 units with the quotes

  it("counts its exact UTF-8 size, writes it in blocks of the limit, and never gathers it with others", () => {
    const queue = new OutputBlockQueue(1 << 20);
    queue.push(encodeLine({ a: 1 }));
    queue.push(encodeLine(big));
    queue.push(encodeLine({ b: "é" }));
    const expected = encoder.encode(
      [{ a: 1 }, big, { b: "é" }].map((m) => JSON.stringify(m) + "\n").join(""),
    );
    expect(queue.bytes).toBe(expected.byteLength);
    const sizes: number[] = [];
    const out: Uint8Array[] = [];
    while (queue.hasBlock) {
      const block = queue.take(16 * 1024);
      sizes.push(block.byteLength);
      out.push(block);
      queue.written(queue.size(block));
    }
    expect(sameBytes(concat(out), expected)).toBe(true);
    expect(queue.bytes).toBe(0);
    const bigBytes = 2 * 50_000 + 4 * 10_000 + 3; // quotes and newline
    // The short line alone, then the large one in full blocks and its rest, then the last line alone.
    expect(sizes).toEqual([
      8,
      ...Array(Math.floor(bigBytes / (16 * 1024))).fill(16 * 1024),
      bigBytes % (16 * 1024),
      lineBytes(encodeLine({ b: "é" })),
    ]);
  });

  it("enters a non-empty queue only with room for all its UTF-8 bytes, and any empty queue", () => {
    const line = encodeLine("é".repeat(70_000)); // 140,003 bytes
    const roomy = new OutputBlockQueue(140_010);
    roomy.push(encodeLine("abcdef")); // 9 bytes: room 140,001
    expect(roomy.fits(line)).toBe(false);
    const exact = new OutputBlockQueue(140_012);
    exact.push(encodeLine("abcdef")); // room 140,003
    expect(exact.fits(line)).toBe(true);
    expect(new OutputBlockQueue(10).fits(line)).toBe(true);
  });
});

describe("OutputBlockQueue with text lines", () => {
  const lines = [{ a: 1 }, { b: "é€😀" }, "x".repeat(40), { c: [1, 2, 3] }, "y".repeat(66_000), { d: null }];
  const expected = lines.map((m) => JSON.stringify(m) + "\n").join("");

  it.each([3, 16, 64, 1024, 16 * 1024])(
    "writes exactly the encoded lines, in order, in blocks of at most %i bytes",
    (limit) => {
      const queue = new OutputBlockQueue(1 << 24);
      for (const m of lines) queue.push(encodeLine(m));
      const total = new TextEncoder().encode(expected).byteLength;
      expect(queue.bytes).toBe(total);
      const out: Uint8Array[] = [];
      while (queue.hasBlock) {
        const block = queue.take(limit);
        expect(block.byteLength).toBeLessThanOrEqual(limit);
        expect(block.byteLength).toBeGreaterThan(0);
        out.push(block);
        queue.written(queue.size(block));
      }
      expect(new TextDecoder().decode(concat(out))).toBe(expected);
      expect(queue.bytes).toBe(0);
    },
  );

  it("holds the high-water mark in UTF-8 bytes for text lines: refuses one byte more than the room", () => {
    const queue = new OutputBlockQueue(20);
    queue.push(encodeLine("abcdefgh")); // '"abcdefgh"' + newline = 11 bytes
    expect(queue.room).toBe(9);
    expect(queue.fits(encodeLine("abcdef"))).toBe(true); // 9 bytes
    expect(queue.fits(encodeLine("abcdefg"))).toBe(false); // 10 bytes
  });
});

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
