/**
 * `stdio()` for Deno: `Deno.stdin` and `Deno.stdout` as the duplex a server serves.
 * @module
 */
import type { TransportConnection } from "../../src/rpc/transport.ts";
import { type DenoLike, globalDeno } from "./_deno_like.ts";
import { endOnSignals, type SignalRuntime } from "../_stdio/end_on_signals.ts";
import { stdioConnection } from "../_stdio/stdio_connection.ts";

/** Options of {@linkcode stdio}. */
export interface StdioOptions {
  /**
   * The `Deno` namespace to use. Default: the global one.
   * @default the global one
   */
  deno?: DenoLike;
  /**
   * Signals that end input like an EOF instead of killing the process at once: running handlers
   * finish within the EOF bounds, their replies are written, then the process ends by the signal.
   * A second signal, or one after input already ended, ends it at once. Default `["SIGTERM"]` with
   * the global `Deno`, `[]` when `deno` is given; `[]` turns it off. Skipped where Deno cannot
   * listen to the signal (SIGTERM on Windows).
   * @default `["SIGTERM"]` with the global `Deno`
   */
  gracefulSignals?: readonly string[];
}

/** Deno's signal primitives, for {@linkcode endOnSignals}. */
function denoSignals(d: DenoLike): SignalRuntime {
  return {
    listen(signal, handler) {
      if (!d.addSignalListener) throw new Error("This Deno has no addSignalListener");
      d.addSignalListener(signal, handler);
    },
    unlisten: (signal, handler) => d.removeSignalListener?.(signal, handler),
    raise: (signal) => d.kill(d.pid!, signal),
  };
}

/**
 * `Deno.stdin` and `Deno.stdout` as a duplex, for a server. A write resolves once Deno wrote the bytes
 * to fd 1. Closing the writable leaves fd 1 open. Limitation (Deno 2.9.6): a write the OS is blocking
 * on (the client stopped reading) cannot be abandoned by `destroy()`; the client's close sequence
 * SIGTERMs such a server, and a server that must leave at once calls `Deno.exit()`. SIGTERM ends input
 * like an EOF, so a request in flight is still answered (see `gracefulSignals`).
 *
 * @example
 * ```ts
 * import { stdio } from "onemodelcontext/deno";
 * declare const server: ContextServer;
 * await server.serve(stdio());
 * ```
 */
export function stdio(options: StdioOptions = {}): TransportConnection {
  const d = options.deno ?? globalDeno();
  const output = d.stdout.writable.getWriter();
  const writable = new WritableStream<Uint8Array>(
    {
      write: (chunk) => output.write(chunk),
      close: () => output.ready,
      abort: (reason) => output.abort(reason),
    },
    { highWaterMark: 1 },
  );
  const connection = stdioConnection(d.stdin.readable.getReader(), writable, {
    destroy: (reason) => void output.abort(reason).catch(() => {}), // stdout may be gone already
    close: () => output.releaseLock(),
  });
  return endOnSignals(
    connection,
    options.gracefulSignals ?? (options.deno === undefined ? ["SIGTERM"] : []),
    denoSignals(d),
  );
}
