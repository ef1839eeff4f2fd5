/**
 * `serve` on `Bun.serve`: a fetch handler behind Bun's HTTP server, with a bounded graceful close.
 * Bun streams request bodies, aborts `request.signal` when the client goes away and pulls response
 * bodies as the client reads. Its idle timeout is turned off: long SSE streams send their own
 * keep-alive comments.
 * @module
 */
import { ClosedError } from "../../src/wire/errors.ts";
import { InFlightRequests } from "./in_flight_requests.ts";
import {
  type FetchHandler,
  type HttpServer,
  type ServeOptions,
  serveOptions,
  serverUrl,
  sleep,
} from "./serve_options.ts";
import { HealthChecks } from "./health_checks.ts";

export type { FetchHandler, HttpServer, ServeOptions } from "./serve_options.ts";

/** The few members of the value `Bun.serve` returns that this adapter uses. */
interface BunHttpServerLike {
  readonly port: number;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}

interface BunServeLike {
  serve(options: {
    port: number;
    hostname: string;
    idleTimeout?: number;
    fetch: (request: Request) => Response | Promise<Response>;
  }): BunHttpServerLike;
}

/**
 * Serves `handler` with `Bun.serve` at `hostname` (default `127.0.0.1`) and `port` (default 0: a
 * free one). Resolves once listening.
 *
 * @example
 * ```ts
 * const server = await serve(createHttpHandler(mcp), { port: 8080 });
 * process.once("SIGTERM", () => void server.close());
 * ```
 */
export async function serve(handler: FetchHandler, options: ServeOptions = {}): Promise<HttpServer> {
  const { port, hostname, shutdownTimeout, livenessPath, readinessPath, readinessGrace, signal } =
    serveOptions(
      options,
    );
  const health = new HealthChecks(livenessPath, readinessPath);
  signal?.throwIfAborted();
  const bun = (globalThis as unknown as { Bun: BunServeLike }).Bun;
  const inFlight = new InFlightRequests();
  const server = bun.serve({ port, hostname, idleTimeout: 0, fetch: health.wrap(inFlight.wrap(handler)) });
  const url = serverUrl(hostname, server.port);
  let closing: Promise<void> | undefined;
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const close = (): Promise<void> => {
    health.ready = false; // readiness turns 503 now, before anything else changes
    closing ??= (async () => {
      if (readinessGrace > 0) await sleep(readinessGrace).promise;
      const stopped = server.stop(false); // stops accepting; in-flight requests go on
      handler.drain?.(); // listen streams end with their result; other requests are still answered
      await inFlight.drain(
        shutdownTimeout,
        new ClosedError("The server is shutting down: the response was ended"),
      );
      await server.stop(true);
      await stopped;
      await handler.close?.();
    })().then(() => markClosed());
    return closing;
  };
  signal?.addEventListener("abort", () => void close(), { once: true });
  return { url, close, closed, [Symbol.asyncDispose]: close };
}
