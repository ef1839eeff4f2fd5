/**
 * `fileSinkWritable`: a web writable over Bun's `FileSink` (a spawned server's stdin, Bun's stdout).
 * @module
 */
import type { FileSinkLike } from "./bun_like.ts";

/**
 * A web writable over a `FileSink`: each write awaits the sink's pending promise (returned once the
 * pipe is full) and its flush, so a write resolves only once its bytes were handed to the OS.
 */
export function fileSinkWritable(sink: FileSinkLike, options: { endOnClose?: boolean } = {}): WritableStream<Uint8Array> {
  const flush = async (): Promise<void> => void (await sink.flush());
  return new WritableStream<Uint8Array>(
    {
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
      },
    },
    { highWaterMark: 1 },
  );
}
