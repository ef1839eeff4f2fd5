/**
 * `serve` on `Deno.serve`: a fetch handler behind Deno's HTTP server, with a bounded graceful close
 * ({@linkcode defineServeAdapter}'s). Deno already streams request bodies, aborts `request.signal` when
 * the client goes away and pulls response bodies as the client reads. (Deno 2.9 also aborts
 * `request.signal` after a response was fully sent and prints a notice about it; that abort comes
 * after the reply and changes nothing here. `--unstable-no-legacy-abort` turns it off.)
 * @module
 */
import { defineServeAdapter, type ServeRuntime } from "../_http/define_serve_adapter.ts";
import type { FetchHandler, HttpServer, ServeOptions as CommonServeOptions } from "../_http/serve_options.ts";
import { type DenoLike, globalDeno } from "./_deno_like.ts";

export type { FetchHandler, HttpServer } from "../_http/serve_options.ts";

/** Options of {@linkcode serve}. */
export interface ServeOptions extends CommonServeOptions {
  /**
   * The `Deno` namespace to use, as `spawnProcess` and `stdio` take it. Default: the global one.
   * @default the global one
   */
  deno?: DenoLike;
}

/** `Deno.serve` mapped onto a {@linkcode ServeRuntime}. */
function denoServeRuntime(d: DenoLike): ServeRuntime {
  return {
    listen({ port, hostname }, fetch) {
      if (typeof d?.serve !== "function") {
        throw new TypeError("No Deno.serve: run on Deno or pass the deno option");
      }
      const server = d.serve({ port, hostname, onListen: () => {} }, fetch);
      return {
        port: server.addr.port,
        // Stops accepting; resolves once every response ended. Deno closes idle keep-alive connections
        // itself here (no grace as on Node): behind a proxy, prefer the Node serve for rolling restarts.
        stopAccepting: () => server.shutdown(),
      };
    },
  };
}

/**
 * Serves `handler` with `Deno.serve` at `hostname` (default `127.0.0.1`) and `port` (default 0: a
 * free one). Resolves once listening.
 *
 * @example
 * ```ts
 * declare const mcp: ContextServer;
 * const server = await serve(createHttpHandler(mcp), { port: 8080 });
 * Deno.addSignalListener("SIGTERM", () => void server.close());
 * ```
 */
export function serve(handler: FetchHandler, options: ServeOptions = {}): Promise<HttpServer> {
  return defineServeAdapter(denoServeRuntime(options.deno ?? globalDeno())).serve(handler, options);
}
