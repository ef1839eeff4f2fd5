/**
 * `stdioConnection`: a server's own stdin/stdout as a {@linkcode TransportConnection}, from a reader
 * of stdin and a writable of stdout. The Deno and Bun adapters build `stdio()` on it.
 * @module
 */
import type { TransportConnection } from "../../src/rpc/transport.ts";
import { ReadFailedError } from "../../src/wire/errors.ts";
import { readChunk } from "./read_chunk.ts";

/** What a runtime adds to {@linkcode stdioConnection}'s `destroy()` and `close()`. */
export interface StdioHooks {
  /** Lets go of stdout now (abort, unref); never throws. */
  destroy?(reason: unknown): void;
  /** Lets go of stdout after a graceful end; never throws. */
  close?(): void;
}

/**
 * stdin is read only when pulled, and a read failure errors the readable with `ReadFailedError`
 * (it is not an EOF). `destroy()` and `close()` cancel the stdin read and end the readable.
 */
export function stdioConnection(
  input: ReadableStreamDefaultReader<Uint8Array>,
  writable: WritableStream<Uint8Array>,
  hooks: StdioHooks = {},
): TransportConnection {
  let ended = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const end = (): void => {
    if (ended) return;
    ended = true;
    try {
      controller.close();
    } catch {
      // The consumer cancelled it already: there is nothing left to end.
    }
  };
  const readable = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      async pull(c) {
        const result = await readChunk(input);
        if (ended) return;
        if (result instanceof ReadFailedError) {
          ended = true;
          return c.error(result);
        }
        if (result.done) end();
        else c.enqueue(result.value!);
      },
      cancel(reason) {
        ended = true;
        return input.cancel(reason).catch(() => {}); // the consumer is done; a broken stdin changes nothing
      },
    },
    { highWaterMark: 0 },
  );
  let destroyed = false;
  return {
    readable,
    writable,
    destroy(reason) {
      if (destroyed) return;
      destroyed = true;
      input.cancel(reason).catch(() => {}); // tearing down: stdin may be gone already
      hooks.destroy?.(reason);
      end();
    },
    async close() {
      destroyed = true;
      await input.cancel().catch(() => {}); // stdin may be gone already; closing goes on
      hooks.close?.();
      end();
    },
  };
}
