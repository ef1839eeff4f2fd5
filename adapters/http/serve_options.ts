/**
 * The shape every runtime's `serve` shares: a fetch handler in, a listening server with a graceful
 * `close()` out.
 * @module
 */

/** A web-standard request handler (`createHttpHandler`'s result, a Hono app's `fetch`, …). */
export interface FetchHandler {
  (request: Request): Response | Promise<Response>;
  /** When present (an MCP `HttpHandler`), called first on close: it ends listen streams with their result. */
  close?(): Promise<void>;
}

/** Options of `serve` on every runtime. */
export interface ServeOptions {
  /** TCP port; 0 picks a free one (read it from `url`). Default 0. */
  port?: number;
  /** Address to bind. Default `127.0.0.1` (this machine only). */
  hostname?: string;
  /** Aborting closes the server, as `close()` does. */
  signal?: AbortSignal;
  /** Milliseconds `close()` lets requests in flight finish before it ends their responses. Default 5 000. */
  shutdownTimeout?: number;
}

/** A listening server. */
export interface HttpServer extends AsyncDisposable {
  /** The base URL, e.g. `http://127.0.0.1:41234/`. */
  readonly url: URL;
  /**
   * Graceful shutdown: stops accepting connections; lets the handler end its long streams (its own
   * `close()`); waits up to `shutdownTimeout` for requests in flight; then ends what is left. Idempotent.
   */
  close(): Promise<void>;
  /** Resolves once the server closed. */
  readonly closed: Promise<void>;
}

/** The default {@linkcode ServeOptions.shutdownTimeout}. */
export const DEFAULT_SERVE_SHUTDOWN_TIMEOUT = 5_000;

/** Checks and fills the options every runtime's `serve` shares. */
export function serveOptions(options: ServeOptions): Required<Omit<ServeOptions, "signal">> & { signal: AbortSignal | undefined } {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`Option port must be an integer from 0 to 65535, got ${String(port)}`);
  const hostname = options.hostname ?? "127.0.0.1";
  if (typeof hostname !== "string" || hostname.length === 0) throw new TypeError(`Option hostname must be a non-empty string, got ${String(hostname)}`);
  const shutdownTimeout = options.shutdownTimeout ?? DEFAULT_SERVE_SHUTDOWN_TIMEOUT;
  if (typeof shutdownTimeout !== "number" || !(shutdownTimeout >= 0)) {
    throw new RangeError(`Option shutdownTimeout must be a non-negative number of milliseconds, got ${String(shutdownTimeout)}`);
  }
  return { port, hostname, shutdownTimeout, signal: options.signal };
}

/** `http://host:port/`, with brackets for an IPv6 address. */
export function serverUrl(hostname: string, port: number): URL {
  const host = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
  return new URL(`http://${host}:${port}/`);
}

/** Resolves after `ms` (adapters may use host timers; `src/` may not). */
export function sleep(ms: number): { promise: Promise<void>; cancel(): void } {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => (handle = setTimeout(resolve, ms)));
  return { promise, cancel: () => clearTimeout(handle) };
}
