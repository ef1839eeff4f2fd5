/** StderrTail: the bounded ring of a process's last stderr lines. */
import { describe, expect, test } from "vitest";
import { StderrTail } from "../../../adapters/_process/stderr_tail.ts";

const encoder = new TextEncoder();

describe("StderrTail", () => {
  test("keeps the last 20 lines by default, dropping older ones", () => {
    const tail = new StderrTail();
    for (let i = 0; i < 100; i++) tail.push(encoder.encode(`line ${i}\n`));
    const lines = tail.text().split("\n");
    expect(lines).toHaveLength(20);
    expect(lines[0]).toBe("line 80");
    expect(lines[19]).toBe("line 99");
  });

  test("keeps at most maxChars (8 KiB by default), however long the lines", () => {
    const tail = new StderrTail();
    for (let i = 0; i < 10; i++) tail.push(encoder.encode(`${String(i).repeat(3000)}\n`));
    expect(tail.text().length).toBeLessThanOrEqual(8192);
    expect(tail.text().endsWith("9".repeat(3000))).toBe(true);
  });

  test("reassembles a line and a UTF-8 code point split across chunks, and strips \\r\\n", () => {
    const tail = new StderrTail();
    const bytes = encoder.encode("héllo wörld 🎉\r\nnext\n");
    for (const b of bytes) tail.push(new Uint8Array([b]));
    expect(tail.text()).toBe("héllo wörld 🎉\nnext");
  });

  test("a stderr without newlines stays bounded and is handed over in 64 KiB pieces", () => {
    const lines: string[] = [];
    const tail = new StderrTail({ onLine: (line) => lines.push(line) });
    const chunk = encoder.encode("x".repeat(1024 * 1024));
    for (let i = 0; i < 10; i++) tail.push(chunk);
    expect(lines.length).toBe(159); // the last 64 KiB stay pending until a newline or end()
    expect(lines.every((l) => l.length === 64 * 1024)).toBe(true);
    expect(tail.text().length).toBeLessThanOrEqual(8192);
    tail.end();
    expect(lines.length).toBe(160);
  });

  test("a trailing partial line shows in the tail and is flushed by end()", () => {
    const lines: string[] = [];
    const tail = new StderrTail({ onLine: (line) => lines.push(line) });
    tail.push(encoder.encode("done\npanic: half"));
    expect(tail.text()).toBe("done\npanic: half");
    tail.end();
    expect(lines).toEqual(["done", "panic: half"]);
    expect(tail.text()).toBe("done\npanic: half");
  });

  test("drain() reads a stream to its end", async () => {
    const tail = new StderrTail({ maxLines: 2 });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode("a\nb\n"));
        controller.enqueue(encoder.encode("c"));
        controller.close();
      },
    });
    await tail.drain(stream);
    expect(tail.text()).toBe("b\nc");
    expect(tail.bytesSeen).toBe(5);
  });
});
