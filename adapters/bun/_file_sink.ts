/**
 * `fileSinkWritable`: a web writable over Bun's `FileSink` (a spawned server's stdin, Bun's stdout),
 * and the chunk writer it is built on (the process connection wraps that directly: one layer).
 * @module
 */
import type { FileSinkLike } from "./_bun_like.ts";
import type { ChunkWriter } from "../_stdio/chunk_io.ts";

/**
 * A {@linkcode ChunkWriter} over a `FileSink`: each write awaits the sink's pending promise (returned
 * once the pipe is full) and its flush, so a write resolves only once its bytes were handed to the OS.
 * One write at a time.
 */
export function fileSinkWriter(sink: FileSinkLike, options: { endOnClose?: boolean } = {}): ChunkWriter {
  const flush = async (): Promise<void> => void (await sink.flush());
  return {
    async write(chunk) {
      await sink.write(chunk);
      await flush();
    },
    close: async () => void (options.endOnClose === false ? await flush() : await sink.end()),
    abort() {
      try {
        sink.end();
      } catch {
        // The sink ended already (the pipe closed): aborting has nothing left to stop.
      }
      return Promise.resolve();
    },
  };
}

/** A web writable over a `FileSink` (see {@linkcode fileSinkWriter}): a write resolves once its bytes were handed to the OS. */
export function fileSinkWritable(
  sink: FileSinkLike,
  options: { endOnClose?: boolean } = {},
): WritableStream<Uint8Array> {
  const writer = fileSinkWriter(sink, options);
  return new WritableStream<Uint8Array>(
    {
      write: (chunk) => writer.write(chunk),
      close: () => writer.close(),
      abort: () => writer.abort(),
    },
    { highWaterMark: 1 },
  );
}
