/**
 * `defineServeAdapter`: `serve` for any runtime whose HTTP server hands over web `Request`s, from that
 * runtime's listen and stop primitives, as {@linkcode defineProcessAdapter} builds `spawnProcess`. The
 * Deno and Bun adapters are a mapping onto {@linkcode ServeRuntime}; a test passes a fake one and
 * drives the whole close sequence. (Node's `serve` writes responses on `node:http` itself.)
 * @module
 */
import { acceptPending } from "./accept_turns.ts";
import { ClosedError } from "../../src/wire/errors.ts";
import { HealthChecks } from "./health_checks.ts";
import { InFlightRequests } from "./in_flight_requests.ts";
import {
  type FetchHandler,
  type HttpServer,
  type ServeOptions,
  serveOptions,
  serverUrl,
  sleep,
} from "./serve_options.ts";

/** A server the runtime started, as {@linkcode ServeRuntime.listen} gives it. */
export interface ListeningServer {
  /** The port it listens on (the free one picked for port 0). */
  readonly port: number;
  /**
   * Stops accepting connections; requests in flight go on. May resolve at once or once every
   * response ended; {@linkcode ServeAdapter.serve}'s `close()` awaits it after the drain.
   */
  stopAccepting(): Promise<void> | void;
  /** After the drain: ends connections still open. Optional (a runtime whose stop ends them itself). */
  closeConnections?(): Promise<void> | void;
}

/** A runtime's HTTP server primitives: structural, so a fake runtime can stand in. */
export interface ServeRuntime {
  /** Starts listening on `hostname`:`port` with `fetch` answering every request; throws or rejects when it cannot. */
  listen(
    address: { port: number; hostname: string },
    fetch: (request: Request) => Response | Promise<Response>,
  ): ListeningServer | Promise<ListeningServer>;
}

/** The HTTP server adapter of one runtime. */
export interface ServeAdapter {
  /** Serves `handler` at `hostname` (default `127.0.0.1`) and `port` (default 0: a free one). Resolves once listening. */
  serve(handler: FetchHandler, options?: ServeOptions): Promise<HttpServer>;
}

/**
 * Builds `serve` on `runtime`. Requests reach `handler` behind the liveness and readiness probes and
 * are counted until their response body ended. `close()` turns readiness to 503, waits
 * `readinessGrace`, stops accepting, lets the handler end its listen streams (`drain()`), waits up to
 * `shutdownTimeout` for requests in flight and ends what is left, ends open connections, then closes
 * the handler (`close()`); `closed` resolves after that.
 *
 * @example
 * ```ts
 * declare const fakeRuntime: ServeRuntime; // a test's listen, stop accepting and end connections
 * declare const handler: (request: Request) => Promise<Response>;
 * const { serve } = defineServeAdapter(fakeRuntime);
 * const server = await serve(handler, { readinessGrace: 0 });
 * ```
 */
export function defineServeAdapter(runtime: ServeRuntime): ServeAdapter {
  return {
    async serve(handler, options = {}) {
      const { port, hostname, shutdownTimeout, livenessPath, readinessPath, readinessGrace, signal } =
        serveOptions(options);
      const health = new HealthChecks(livenessPath, readinessPath);
      signal?.throwIfAborted();
      const inFlight = new InFlightRequests();
      const server = await runtime.listen({ port, hostname }, health.wrap(inFlight.wrap(handler)));
      const url = serverUrl(hostname, server.port);
      let closing: Promise<void> | undefined;
      let markClosed!: () => void;
      const closed = new Promise<void>((resolve) => (markClosed = resolve));
      const close = (): Promise<void> => {
        health.ready = false; // readiness turns 503 now, before anything else changes
        closing ??= (async () => {
          if (readinessGrace > 0) await sleep(readinessGrace).promise;
          await acceptPending(() => inFlight.arrived); // a connection the kernel completed is answered, not reset
          const stopped = server.stopAccepting();
          handler.drain?.(); // listen streams end with their result; other requests are still answered
          await inFlight.drain(
            shutdownTimeout,
            new ClosedError("The server is shutting down: the response was ended"),
          );
          await server.closeConnections?.();
          await stopped;
          await handler.close?.();
        })().then(() => markClosed());
        return closing;
      };
      signal?.addEventListener("abort", () => void close(), { once: true });
      return { url, close, closed, [Symbol.asyncDispose]: close };
    },
  };
}
