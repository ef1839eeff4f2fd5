/**
 * `serve` on `Deno.serve`: a fetch handler behind Deno's HTTP server, with a bounded graceful close.
 * Deno already streams request bodies, aborts `request.signal` when the client goes away and pulls
 * response bodies as the client reads. (Deno 2.9 also aborts `request.signal` after a response was
 * fully sent and prints a notice about it; that abort comes after the reply and changes nothing
 * here. `--unstable-no-legacy-abort` turns it off.)
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

/** The few members of the value `Deno.serve` returns that this adapter uses. */
interface DenoHttpServerLike {
  readonly addr: { hostname: string; port: number };
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}

interface DenoServeLike {
  serve(
    options: {
      port: number;
      hostname: string;
      onListen?: (addr: { hostname: string; port: number }) => void;
    },
    handler: (request: Request) => Response | Promise<Response>,
  ): DenoHttpServerLike;
}

/**
 * Serves `handler` with `Deno.serve` at `hostname` (default `127.0.0.1`) and `port` (default 0: a
 * free one). Resolves once listening.
 *
 * @example
 * ```ts
 * const server = await serve(createHttpHandler(mcp), { port: 8080 });
 * Deno.addSignalListener("SIGTERM", () => void server.close());
 * ```
 */
export async function serve(handler: FetchHandler, options: ServeOptions = {}): Promise<HttpServer> {
  const { port, hostname, shutdownTimeout, livenessPath, readinessPath, readinessGrace, signal } =
    serveOptions(
      options,
    );
  const health = new HealthChecks(livenessPath, readinessPath);
  signal?.throwIfAborted();
  const deno = (globalThis as unknown as { Deno: DenoServeLike }).Deno;
  const inFlight = new InFlightRequests();
  const server = deno.serve({ port, hostname, onListen: () => {} }, health.wrap(inFlight.wrap(handler)));
  const url = serverUrl(hostname, server.addr.port);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    health.ready = false; // readiness turns 503 now, before anything else changes
    closing ??= (async () => {
      if (readinessGrace > 0) await sleep(readinessGrace).promise;
      // Stops accepting; resolves once every response ended. Deno closes idle keep-alive connections
      // itself here (no grace as on Node): behind a proxy, prefer the Node serve for rolling restarts.
      const stopped = server.shutdown();
      handler.drain?.(); // listen streams end with their result; other requests are still answered
      await inFlight.drain(
        shutdownTimeout,
        new ClosedError("The server is shutting down: the response was ended"),
      );
      await stopped;
      await handler.close?.();
    })();
    return closing;
  };
  signal?.addEventListener("abort", () => void close(), { once: true });
  return { url, close, closed: server.finished, [Symbol.asyncDispose]: close };
}
