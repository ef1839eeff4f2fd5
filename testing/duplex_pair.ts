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
 */
export function createPipe(bufferBytes = 65_536): { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> } {
  return new TransformStream<Uint8Array, Uint8Array>(
    { transform: (chunk, controller) => controller.enqueue(chunk.slice()) },
    // A high-water mark of 1, not 0: at 0 an idle writable reports backpressure for ever, so
    // `writer.ready` never resolves and `pipeTo` into the pair never starts.
    new ByteLengthQueuingStrategy({ highWaterMark: 1 }),
    new ByteLengthQueuingStrategy({ highWaterMark: bufferBytes }),
  );
}
