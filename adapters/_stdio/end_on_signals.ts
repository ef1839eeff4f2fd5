/**
 * `endOnSignals`: a server's stdio connection that treats a termination signal as input EOF, so the
 * requests already running are answered before the process exits. The Node, Deno and Bun `stdio()`
 * adapters apply it (option `gracefulSignals`, default `["SIGTERM"]`).
 * @module
 */
import type { TransportConnection } from "../../src/rpc/transport.ts";

/** The signal primitives of one runtime. */
export interface SignalRuntime {
  /** Starts delivering `signal` to `handler` (instead of its default action). May throw where the signal does not exist. */
  listen(signal: string, handler: () => void): void;
  /** Stops delivering `signal` to `handler`. */
  unlisten(signal: string, handler: () => void): void;
  /** Sends `signal` to this process; with no listener left, its default action ends the process. */
  raise(signal: string): void;
}

/**
 * Wraps a server's stdio `connection` so that the first of `signals` ends its input like an EOF: the
 * connection stops reading, running handlers get the EOF grace (`endOfStreamTimeout`, then
 * `shutdownTimeout`), their replies drain, and once output is closed (or the connection torn down)
 * the signal is raised again with no listener left, so the process ends by it, exit status included.
 *
 * The listener is removed when the connection ends, and on the first signal, so a second signal
 * ends the process at once. A signal that arrives once input has already ended (the client closed
 * stdin and is now signalling) is raised again at once: the client gave its grace already.
 * Signals the runtime cannot listen to (SIGTERM on Windows under Deno) are skipped.
 */
export function endOnSignals(
  connection: TransportConnection,
  signals: readonly string[],
  runtime: SignalRuntime,
): TransportConnection {
  if (signals.length === 0) return connection;
  let inputEnded = false;
  let finished = false;
  let caught: string | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const reader = connection.readable.getReader();
  const handlers = new Map<string, () => void>();

  const unlistenAll = (): void => {
    for (const [signal, handler] of handlers) {
      try {
        runtime.unlisten(signal, handler);
      } catch {
        // Listening succeeded, so unlistening does not fail; if it did, the handler stays a no-op.
      }
    }
    handlers.clear();
  };
  const endInput = (): void => {
    if (inputEnded) return;
    inputEnded = true;
    try {
      controller.close();
    } catch {
      // The consumer cancelled the readable already: there is nothing left to end.
    }
  };
  /** The connection is done with this transport: a caught signal now takes its default action. */
  const finish = (): void => {
    if (finished) return;
    finished = true;
    unlistenAll();
    if (caught !== undefined) runtime.raise(caught);
  };
  const onSignal = (signal: string): void => {
    if (caught !== undefined || finished) return;
    caught = signal;
    unlistenAll(); // a second signal takes the default action
    if (inputEnded) return runtime.raise(signal);
    endInput();
    reader.cancel().catch(() => {}); // stdin is let go of; a broken stdin changes nothing now
  };
  for (const signal of signals) {
    const handler = (): void => onSignal(signal);
    try {
      runtime.listen(signal, handler);
      handlers.set(signal, handler);
    } catch {
      // This runtime has no such signal here (SIGTERM on Windows under Deno): nothing to listen to.
    }
  }

  const readable = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      async pull(c) {
        const result = await reader.read();
        if (inputEnded) return;
        if (result.done) endInput();
        else c.enqueue(result.value);
      },
      cancel(reason) {
        inputEnded = true;
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  const writer = connection.writable.getWriter();
  const writable = new WritableStream<Uint8Array>(
    {
      start(c) {
        // Abort at once, even with a write in flight that a stalled reader will never complete.
        c.signal.addEventListener("abort", () => {
          writer.abort(c.signal.reason).catch(() => {}); // the stream may have failed already
          finish();
        }, { once: true });
      },
      write: (chunk) => writer.write(chunk),
      async close() {
        try {
          await writer.close();
        } finally {
          finish();
        }
      },
      abort: finish,
    },
    { highWaterMark: 1 },
  );
  const wrapped: TransportConnection = {
    readable,
    writable,
    destroy(reason) {
      try {
        connection.destroy?.(reason);
      } finally {
        finish();
      }
    },
    async close() {
      try {
        await connection.close?.();
      } finally {
        finish();
      }
    },
  };
  return wrapped;
}
