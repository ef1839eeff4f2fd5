import { describe, expect, it } from "vitest";
import { OutputBlockQueue } from "../../../src/stream/output_block_queue.ts";

const bytes = (n: number, fill = 0x61) => new Uint8Array(n).fill(fill);

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
