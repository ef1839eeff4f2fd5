/**
 * `stdio()` for Node: this process's stdin and stdout as the duplex a server serves.
 * @module
 */
import type { Readable, Writable } from "node:stream";
import type { TransportConnection } from "../../src/rpc/transport.ts";
import { endOnSignals, type SignalRuntime } from "../_stdio/end_on_signals.ts";
import { nodeReadable, nodeWritable } from "./_node_streams.ts";

/** Options of {@linkcode stdio}. */
export interface StdioOptions {
  /**
   * Input stream. Default `process.stdin`.
   * @default process.stdin
   */
  stdin?: Readable;
  /**
   * Output stream. Default `process.stdout`.
   * @default process.stdout
   */
  stdout?: Writable;
  /**
   * Signals that end input like an EOF instead of killing the process at once: running handlers
   * finish within the EOF bounds (`endOfStreamTimeout` + `shutdownTimeout`), their replies are
   * written, then the process ends by the signal. A second signal, or one after input already ended,
   * ends it at once. Default `["SIGTERM"]` on `process.stdin`, `[]` when `stdin` is given; `[]` turns
   * it off (for a process that handles its signals itself).
   * @default `["SIGTERM"]` on `process.stdin`
   */
  gracefulSignals?: readonly NodeJS.Signals[];
}

/** Node's signal primitives, for {@linkcode endOnSignals}. */
const nodeSignals: SignalRuntime = {
  listen: (signal, handler) => void process.on(signal as NodeJS.Signals, handler),
  unlisten: (signal, handler) => void process.off(signal as NodeJS.Signals, handler),
  raise: (signal) => void process.kill(process.pid, signal),
};

/**
 * This process's stdin and stdout as a duplex, for a server: stdin is read only when pulled; a write
 * resolves once Node handed its bytes to the OS, so `serve()` resolves only when every reply left.
 * Closing the writable does not end `process.stdout` (Node forbids it). `destroy()` lets go of both,
 * closing stdout's pipe handle so that writes a stalled client never read cannot keep the process alive.
 * SIGTERM ends input like an EOF, so a request in flight is still answered (see `gracefulSignals`).
 *
 * @example
 * ```ts
 * import { stdio } from "onemodelcontext/node";
 * declare const server: ContextServer;
 * await server.serve(stdio());
 * ```
 */
export function stdio(options: StdioOptions = {}): TransportConnection {
  const input = options.stdin ?? process.stdin;
  const output = options.stdout ?? process.stdout;
  const signals = options.gracefulSignals ?? (options.stdin === undefined ? ["SIGTERM"] : []);
  return endOnSignals(
    {
      readable: nodeReadable(input),
      writable: nodeWritable(output, { endOnClose: output !== process.stdout }),
      destroy() {
        input.destroy();
        output.destroy();
        // process.stdout's destroy() leaves its pipe handle open, and a write the client never reads
        // keeps the event loop alive: close the handle so pending writes fail with ECANCELED.
        (output as unknown as { _handle?: { close?(): void } })._handle?.close?.();
      },
      async close() {
        input.pause();
        input.destroy();
      },
    },
    signals,
    nodeSignals,
  );
}
