/**
 * Web streams over Node streams, with the pull and backpressure the core relies on, and the chunk
 * reader and writer they are built on (the process connection wraps those directly: one layer).
 * @module
 */
import type { Readable, Writable } from "node:stream";
import { ClosedError, ReadFailedError, WriteFailedError } from "../../src/wire/errors.ts";
import type { ChunkReader, ChunkWriter } from "../_stdio/chunk_io.ts";

/**
 * A pull-based {@linkcode ChunkReader} over a Node `Readable`: the stream is paused and read only on
 * `read()`, so a consumer that stops reading stops the pipe (Node reads ahead at most its
 * `highWaterMark`). An `'error'` rejects the read with `ReadFailedError`; it is never an EOF. One
 * read at a time; one promise per read.
 */
export function nodeChunkReader(stream: Readable): ChunkReader {
  // A 'readable' listener alone stops the flow (Node sets readableFlowing to false). No pause() first:
  // Bun's process.stdin stops its native reader on pause() and a later 'readable' listener never
  // restarts it, so stdio() under Bun would read nothing.
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  stream.on("readable", notify);
  const onEnd = (): void => {
    ended = true;
    notify();
  };
  stream.on("end", onEnd);
  stream.on("close", onEnd);
  stream.on("error", (error) => {
    failure ??= error;
    notify();
  });
  return {
    read() {
      return new Promise((resolve, reject) => {
        const attempt = (): void => {
          const chunk = stream.destroyed ? null : (stream.read() as Buffer | string | null);
          if (chunk !== null) {
            const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
            return resolve({
              done: false,
              value: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
            });
          }
          failure ??= stream.errored ?? undefined; // destroy(error) marks it before 'error' is emitted
          if (failure !== undefined) return reject(new ReadFailedError({ cause: failure }));
          if (ended || stream.destroyed) return resolve({ done: true, value: undefined });
          wake = attempt;
        };
        attempt();
      });
    },
    cancel() {
      stream.destroy();
      return Promise.resolve();
    },
  };
}

/**
 * A pull-based web stream over a Node `Readable` (see {@linkcode nodeChunkReader}). An `'error'`
 * errors the web stream with `ReadFailedError`; it is never an EOF.
 */
export function nodeReadable(stream: Readable): ReadableStream<Uint8Array> {
  const reader = nodeChunkReader(stream);
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return reader.read().then(
          (result) => (result.done ? controller.close() : controller.enqueue(result.value)),
          (error: unknown) => controller.error(error),
        );
      },
      cancel: () => reader.cancel(),
    },
    { highWaterMark: 0 },
  );
}

/**
 * A {@linkcode ChunkWriter} over a Node `Writable`: a write resolves only when Node's write callback
 * fired, that is when its bytes were handed to the OS, so a closed or resolved writer never leaves
 * bytes in Node's buffer for an exit to lose. It rejects on `'error'` or `'close'` instead of hanging.
 * One write at a time, so the wait is the backpressure.
 */
export function nodeChunkWriter(stream: Writable, options: { endOnClose?: boolean } = {}): ChunkWriter {
  let failure: unknown;
  /** The settle function of the write in flight (one write at a time). */
  let pending: ((error?: Error | null) => void) | undefined;
  const gone = (): Error =>
    failure !== undefined
      ? new WriteFailedError({ cause: failure })
      : new ClosedError("The output stream is closed");
  const onGone = (): void => pending?.(gone());
  // Listeners for the stream's life, not per write: a write in flight rejects on 'error' or 'close'.
  stream.on("error", (error) => {
    failure ??= error;
    onGone();
  });
  stream.on("close", onGone);
  return {
    write(chunk) {
      return new Promise<void>((resolve, reject) => {
        if (failure !== undefined || stream.destroyed || stream.writableEnded) return reject(gone());
        const settle = (error?: Error | null): void => {
          if (pending !== settle) return; // already settled (by 'close' before the callback, or the reverse)
          pending = undefined;
          if (error) {
            reject(
              error instanceof WriteFailedError || error instanceof ClosedError
                ? error
                : new WriteFailedError({ cause: error }),
            );
          } else resolve();
        };
        pending = settle;
        stream.write(chunk, settle);
      });
    },
    close() {
      if (options.endOnClose === false) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        if (stream.destroyed || stream.writableFinished) return resolve();
        stream.once("error", (error) => reject(new WriteFailedError({ cause: error })));
        stream.end(() => resolve());
        stream.once("close", () => resolve());
      });
    },
    abort() {
      stream.destroy();
      return Promise.resolve();
    },
  };
}

/**
 * A web writable over a Node `Writable` (see {@linkcode nodeChunkWriter}): a write resolves only when
 * its bytes were handed to the OS; it rejects on `'error'` or `'close'` instead of hanging.
 */
export function nodeWritable(
  stream: Writable,
  options: { endOnClose?: boolean } = {},
): WritableStream<Uint8Array> {
  const writer = nodeChunkWriter(stream, options);
  return new WritableStream<Uint8Array>(
    {
      write: (chunk) => writer.write(chunk),
      close: () => writer.close(),
      abort: () => writer.abort(),
    },
    { highWaterMark: 1 },
  );
}
