/**
 * `stdio()` for Bun: `Bun.stdin` and `Bun.stdout` as the duplex a server serves.
 * @module
 */
import type { TransportConnection } from "../../src/rpc/transport.ts";
import { type BunLike, globalBun } from "./_bun_like.ts";
import { fileSinkWritable } from "./_file_sink.ts";
import { endOnSignals, type SignalRuntime } from "../_stdio/end_on_signals.ts";
import { stdioConnection } from "../_stdio/stdio_connection.ts";

/** Options of {@linkcode stdio}. */
export interface StdioOptions {
  /**
   * The `Bun` global to use. Default: the global one.
   * @default the global one
   */
  bun?: BunLike;
  /**
   * Signals that end input like an EOF instead of killing the process at once: running handlers
   * finish within the EOF bounds, their replies are written, then the process ends by the signal.
   * A second signal, or one after input already ended, ends it at once. Default `["SIGTERM"]` with
   * the global `Bun`, `[]` when `bun` is given; `[]` turns it off.
   * @default `["SIGTERM"]` with the global `Bun`
   */
  gracefulSignals?: readonly string[];
}

/** Bun's signal primitives (its `process`), for {@linkcode endOnSignals}. */
const bunSignals: SignalRuntime = {
  listen: (signal, handler) => void process.on(signal as NodeJS.Signals, handler),
  unlisten: (signal, handler) => void process.off(signal as NodeJS.Signals, handler),
  raise: (signal) => void process.kill(process.pid, signal),
};

/**
 * `Bun.stdin` and `Bun.stdout` as a duplex, for a server. stdout is a `FileSink` whose pending writes
 * and flushes are awaited, so `serve()` resolves only once every reply left. Closing the writable
 * flushes but leaves fd 1 open. `destroy()` unrefs stdout, so a server whose client stopped reading
 * can still exit. SIGTERM ends input like an EOF, so a request in flight is still answered (see
 * `gracefulSignals`).
 *
 * @example
 * ```ts
 * import { stdio } from "onemodelcontext/bun";
 * declare const server: ContextServer;
 * await server.serve(stdio());
 * ```
 */
export function stdio(options: StdioOptions = {}): TransportConnection {
  const b = options.bun ?? globalBun();
  const sink = b.stdout.writer();
  const connection = stdioConnection(
    b.stdin.stream().getReader(),
    fileSinkWritable(sink, { endOnClose: false }),
    { destroy: () => sink.unref?.() },
  );
  return endOnSignals(
    connection,
    options.gracefulSignals ?? (options.bun === undefined ? ["SIGTERM"] : []),
    bunSignals,
  );
}
