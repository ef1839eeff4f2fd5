/**
 * In-memory duplex byte streams for tests and for wiring two endpoints in one process.
 * @module
 */

import type { Duplex } from "../src/stream/duplex.ts";

export type { Duplex };

/** Options of {@linkcode createDuplexPair}. */
export interface DuplexPairOptions {
  /** Bytes each direction buffers before its writer waits (a pipe's capacity). Default 65_536. */
  bufferBytes?: number;
}

/**
 * Two connected duplexes: what `a` writes, `b` reads, and the other way round. Each direction buffers
 * `bufferBytes` plus the chunk being written, then its writer waits (`write()` stays pending and
 * `writer.ready` with it), as an OS pipe does. Chunks are copied on write, so a writer may reuse its
 * buffer.
 */
export function createDuplexPair(options: DuplexPairOptions = {}): [Duplex, Duplex] {
  const bufferBytes = options.bufferBytes ?? 65_536;
  const aToB = createPipe(bufferBytes);
  const bToA = createPipe(bufferBytes);
  return [
    { readable: bToA.readable, writable: aToB.writable },
    { readable: aToB.readable, writable: bToA.writable },
  ];
}

/**
 * One direction of a duplex pair: a byte pipe that buffers `bufferBytes` for the reader, plus at most
 * the one chunk being written. `writer.ready` (and so `pipeTo`) waits exactly while that buffer is full.
 *
 * It ends as an OS pipe does: when the reader cancels, a write waiting for room and every later write
 * fail, but closing the writer afterwards succeeds, so a writer whose bytes were all read (the reader
 * then went away) sees a clean close, not a failure. Aborting the writer errors the reader.
 */
export function createPipe(
  bufferBytes = 65_536,
): { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled: { reason: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const broken = (): Error => {
    const reason = cancelled?.reason;
    return reason instanceof Error
      ? reason
      : new Error("Cannot write to the pipe: its reader cancelled", { cause: reason });
  };
  const readable = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      pull: notify,
      cancel(reason) {
        cancelled = { reason };
        notify();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: bufferBytes }),
  );
  let aborted!: AbortSignal;
  const writable = new WritableStream<Uint8Array>(
    {
      start(c) {
        aborted = c.signal;
        aborted.addEventListener("abort", notify); // a write waiting for room gives up on abort()
      },
      async write(chunk) {
        // Waits before enqueuing while the buffer is full: at most `bufferBytes` plus this chunk.
        while (cancelled === undefined && !aborted.aborted && (controller.desiredSize ?? 0) <= 0) {
          await new Promise<void>((resolve) => (wake = resolve));
        }
        aborted.throwIfAborted();
        if (cancelled !== undefined) throw broken();
        controller.enqueue(chunk.slice());
      },
      close() {
        if (cancelled === undefined) controller.close();
      },
      abort(reason) {
        if (cancelled === undefined) controller.error(reason);
      },
    },
    // A high-water mark of 1, not 0: at 0 an idle writable reports backpressure for ever, so
    // `writer.ready` never resolves and `pipeTo` into the pair never starts.
    new ByteLengthQueuingStrategy({ highWaterMark: 1 }),
  );
  return { readable, writable };
}
