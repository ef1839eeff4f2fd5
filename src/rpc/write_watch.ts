/**
 * A writable wrapper that tells the connection of each completed and each failed block write the
 * moment it happens, not at the next send.
 * @module
 */
import type { DestroyableDuplex } from "../stream/newline_channel.ts";

/** What {@linkcode watchWrites} reports. */
export interface WriteWatcher {
  progress(): void;
  failed(cause: unknown): void;
}

/**
 * The transport with its writable wrapped. The wrapper adds no buffering: the channel awaits each
 * block write, so at most the one block in flight sits in it. Aborting the wrapper aborts the stream
 * at once, also with a write in flight.
 */
export function watchWrites(transport: DestroyableDuplex, on: WriteWatcher): DestroyableDuplex {
  const writer = transport.writable.getWriter();
  let controller: WritableStreamDefaultController | undefined;
  writer.closed.catch((cause) => controller?.error(cause));
  const writable = new WritableStream<Uint8Array>({
    start(c) {
      controller = c;
      // The abort's own outcome is moot: the stream is being torn down either way.
      c.signal?.addEventListener("abort", () => void writer.abort(c.signal.reason).catch(() => {}), { once: true });
    },
    write: (chunk) =>
      writer.write(chunk).then(
        () => on.progress(),
        (cause) => {
          on.failed(cause);
          throw cause;
        },
      ),
    close: () => writer.close(),
    // As above: an abort that fails leaves the stream torn down all the same.
    abort: (reason) => writer.abort(reason).catch(() => {}),
  });
  const duplex: DestroyableDuplex = { readable: transport.readable, writable };
  if (typeof transport.destroy === "function") duplex.destroy = (reason) => transport.destroy!(reason);
  return duplex;
}
