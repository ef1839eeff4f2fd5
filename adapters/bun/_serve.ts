/**
 * `serve` on `Bun.serve`: a fetch handler behind Bun's HTTP server, with a bounded graceful close
 * ({@linkcode defineServeAdapter}'s). Bun streams request bodies, aborts `request.signal` when the
 * client goes away and pulls response bodies as the client reads. Its idle timeout is turned off:
 * long SSE streams send their own keep-alive comments.
 * @module
 */
import { defineServeAdapter, type ServeRuntime } from "../_http/define_serve_adapter.ts";
import type { FetchHandler, HttpServer, ServeOptions as CommonServeOptions } from "../_http/serve_options.ts";
import { type BunLike, globalBun } from "./_bun_like.ts";

export type { FetchHandler, HttpServer } from "../_http/serve_options.ts";

/** Options of {@linkcode serve}. */
export interface ServeOptions extends CommonServeOptions {
  /**
   * The `Bun` global to use, as `spawnProcess` and `stdio` take it. Default: the global one.
   * @default the global one
   */
  bun?: BunLike;
}

/** `Bun.serve` mapped onto a {@linkcode ServeRuntime}. */
function bunServeRuntime(b: BunLike): ServeRuntime {
  return {
    listen({ port, hostname }, fetch) {
      if (typeof b?.serve !== "function") {
        throw new TypeError("No Bun.serve: run on Bun or pass the bun option");
      }
      const server = b.serve({ port, hostname, idleTimeout: 0, fetch });
      return {
        port: server.port,
        stopAccepting: () => server.stop(false), // in-flight requests go on
        closeConnections: () => server.stop(true),
      };
    },
  };
}

/**
 * Serves `handler` with `Bun.serve` at `hostname` (default `127.0.0.1`) and `port` (default 0: a
 * free one). Resolves once listening.
 *
 * @example
 * ```ts
 * declare const mcp: ContextServer;
 * const server = await serve(createHttpHandler(mcp), { port: 8080 });
 * process.once("SIGTERM", () => void server.close());
 * ```
 */
export function serve(handler: FetchHandler, options: ServeOptions = {}): Promise<HttpServer> {
  return defineServeAdapter(bunServeRuntime(options.bun ?? globalBun())).serve(handler, options);
}
