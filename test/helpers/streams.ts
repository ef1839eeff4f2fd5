/**
 * Shared test helpers for byte streams: building readables from chunks, cutting bytes at chosen
 * places, collecting a stream, and measuring retained memory.
 */
import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Joins byte arrays. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.byteLength;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** Cuts `bytes` at the given offsets (any order, duplicates and out-of-range offsets ignored). */
export function cutAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const cuts = [...new Set(offsets.filter((o) => o > 0 && o < bytes.byteLength))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let start = 0;
  for (const c of cuts) {
    out.push(bytes.slice(start, c));
    start = c;
  }
  out.push(bytes.slice(start));
  return out;
}

/** Cuts `bytes` into one-byte chunks. */
export function everyByte(bytes: Uint8Array): Uint8Array[] {
  return Array.from(bytes, (b) => new Uint8Array([b]));
}

/** A readable that yields `chunks` one per pull, then closes. */
export function readableOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (i < chunks.length) controller.enqueue(chunks[i++]!);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

/** A readable that a test feeds by hand: `push` a chunk, `end` it. */
export function manualReadable(): {
  readable: ReadableStream<Uint8Array>;
  push(chunk: Uint8Array): void;
  end(): void;
} {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return { readable, push: (c) => controller.enqueue(c), end: () => controller.close() };
}

/** Every value of `stream`, in order. */
export async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

/**
 * A readable of `totalBytes` made by yielding the same `chunk` again and again (the last one cut
 * short), so a test can send a gigabyte without allocating it. `onPull` sees the bytes sent so far.
 */
export function repeatedChunkReadable(
  chunk: Uint8Array,
  totalBytes: number,
  onPull?: (sentBytes: number) => void,
): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        onPull?.(sent);
        if (sent >= totalBytes) return controller.close();
        const n = Math.min(chunk.byteLength, totalBytes - sent);
        controller.enqueue(n === chunk.byteLength ? chunk : chunk.subarray(0, n));
        sent += n;
      },
    },
    { highWaterMark: 0 },
  );
}

let gcFn: (() => void) | undefined;

/** A full garbage collection (enables `--expose-gc` at run time on first use). */
export function collectGarbage(): void {
  if (!gcFn) {
    setFlagsFromString("--expose-gc");
    gcFn = runInNewContext("gc") as () => void;
  }
  gcFn();
}

/** Live JS heap plus array buffers, in bytes, after a full garbage collection. */
export function retainedBytes(): number {
  collectGarbage();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

export const KiB = 1024;
export const MiB = 1024 * 1024;
