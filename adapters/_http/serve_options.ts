/**
 * The shape every runtime's `serve` shares: a fetch handler in, a listening server with a graceful
 * `close()` out.
 * @module
 */

/** A web-standard request handler (`createHttpHandler`'s result, a Hono app's `fetch`, …). */
export interface FetchHandler {
  (request: Request): Response | Promise<Response>;
  /** When present (an MCP `HttpHandler`), called first on close: it ends listen streams with their result while other requests are still answered. */
  drain?(): void;
  /** When present (an MCP `HttpHandler`), called last on close, once every response ended: sessions end. */
  close?(): Promise<void>;
}

/** Options of `serve` on every runtime. */
export interface ServeOptions {
  /**
   * TCP port; 0 picks a free one (read it from `url`). Default 0.
   * @default 0
   */
  port?: number;
  /**
   * Address to bind. Default `127.0.0.1` (this machine only).
   * @default `127.0.0.1` (this machine only)
   */
  hostname?: string;
  /** Aborting closes the server, as `close()` does. */
  signal?: AbortSignal;
  /**
   * Milliseconds `close()` lets each request in flight finish (counted from the close, or from its arrival if later) before it ends its response. Default 5 000.
   * @default 5000
   */
  shutdownTimeout?: number;
  /**
   * Node only: milliseconds an idle keep-alive connection stays open, in service and during `close()`
   * (idle connections are not cut at once on close: they end after this much quiet, and a request
   * that still arrives on one is answered, with `Connection: close`). Set a proxy's upstream keep-alive
   * timeout below it (nginx `keepalive_timeout` in the `upstream` block), or the proxy may send a
   * request on a connection the server is closing. Default 5 000.
   * @default 5000
   */
  keepAliveTimeout?: number;
  /**
   * Node only: milliseconds `close()` leaves idle keep-alive connections open before it ends them (a
   * request arriving meanwhile is answered, with `Connection: close`). Behind a proxy keep the default,
   * `keepAliveTimeout`: the proxy closes them first. 0 ends them at once (no proxy in front, tests).
   */
  idleCloseDelay?: number;
  /**
   * Node only: after an answer sent before the request's body was read whole (a 413), milliseconds
   * the connection keeps reading and discarding the rest of the body, its answer sent and its
   * sending side closed, before it is cut: the client then reads the status instead of a connection
   * reset (nginx's lingering close). The connection ends as soon as the client closes it. 0 cuts at
   * once. Default 5 000 (nginx's `lingering_timeout`).
   * @default 5000 (nginx's `lingering_timeout`)
   */
  lingerTimeout?: number;
  /**
   * `GET`/`HEAD` here answers 200 while the process serves (liveness); `null` turns it off. Default `"/livez"`.
   * @default "/livez"
   */
  livenessPath?: string | null;
  /**
   * `GET`/`HEAD` here answers 200 until `close()` starts, then 503 (readiness): a load balancer stops
   * sending new requests while the server drains. `null` turns it off. Default `"/readyz"`.
   * @default "/readyz"
   */
  readinessPath?: string | null;
  /**
   * Milliseconds `close()` keeps serving everything as before (listener open) after readiness turned
   * 503, so probing load balancers see it before connections are refused. Default 0.
   * @default 0
   */
  readinessGrace?: number;
}

/** A listening server. */
export interface HttpServer extends AsyncDisposable {
  /** The base URL, e.g. `http://127.0.0.1:41234/`. */
  readonly url: URL;
  /**
   * Graceful shutdown: stops accepting connections; lets the handler end its long streams (its
   * `drain()`) while requests on open connections are still answered; waits up to `shutdownTimeout`
   * for requests in flight, then ends what is left; closes the handler (its `close()`). On Node, idle
   * keep-alive connections end after `keepAliveTimeout` of quiet, and every answer sent meanwhile
   * carries `Connection: close`. Idempotent.
   */
  close(): Promise<void>;
  /** Resolves once the server closed. */
  readonly closed: Promise<void>;
}

/** The default {@linkcode ServeOptions.shutdownTimeout}. */
export const DEFAULT_SERVE_SHUTDOWN_TIMEOUT = 5_000;

/** The default {@linkcode ServeOptions.lingerTimeout}. */
export const DEFAULT_SERVE_LINGER_TIMEOUT = 5_000;

/** The default {@linkcode ServeOptions.keepAliveTimeout}. */
export const DEFAULT_SERVE_KEEP_ALIVE_TIMEOUT = 5_000;

/** Checks and fills the options every runtime's `serve` shares. */
export function serveOptions(
  options: ServeOptions,
): Required<Omit<ServeOptions, "signal">> & { signal: AbortSignal | undefined } {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`Option port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  const hostname = options.hostname ?? "127.0.0.1";
  if (typeof hostname !== "string" || hostname.length === 0) {
    throw new TypeError(`Option hostname must be a non-empty string, got ${String(hostname)}`);
  }
  const shutdownTimeout = options.shutdownTimeout ?? DEFAULT_SERVE_SHUTDOWN_TIMEOUT;
  if (typeof shutdownTimeout !== "number" || !(shutdownTimeout >= 0)) {
    throw new RangeError(
      `Option shutdownTimeout must be a non-negative number of milliseconds, got ${String(shutdownTimeout)}`,
    );
  }
  const keepAliveTimeout = options.keepAliveTimeout ?? DEFAULT_SERVE_KEEP_ALIVE_TIMEOUT;
  if (typeof keepAliveTimeout !== "number" || !(keepAliveTimeout > 0)) {
    throw new RangeError(
      `Option keepAliveTimeout must be a positive number of milliseconds, got ${String(keepAliveTimeout)}`,
    );
  }
  const idleCloseDelay = options.idleCloseDelay ?? keepAliveTimeout;
  if (typeof idleCloseDelay !== "number" || !(idleCloseDelay >= 0)) {
    throw new RangeError(
      `Option idleCloseDelay must be a non-negative number of milliseconds, got ${String(idleCloseDelay)}`,
    );
  }
  const lingerTimeout = options.lingerTimeout ?? DEFAULT_SERVE_LINGER_TIMEOUT;
  if (typeof lingerTimeout !== "number" || !(lingerTimeout >= 0)) {
    throw new RangeError(
      `Option lingerTimeout must be a non-negative number of milliseconds, got ${String(lingerTimeout)}`,
    );
  }
  const livenessPath = probePath("livenessPath", options.livenessPath, "/livez");
  const readinessPath = probePath("readinessPath", options.readinessPath, "/readyz");
  const readinessGrace = options.readinessGrace ?? 0;
  if (typeof readinessGrace !== "number" || !(readinessGrace >= 0) || readinessGrace === Infinity) {
    throw new RangeError(
      `Option readinessGrace must be a non-negative number of milliseconds, got ${String(readinessGrace)}`,
    );
  }
  return {
    port,
    hostname,
    shutdownTimeout,
    keepAliveTimeout,
    idleCloseDelay,
    lingerTimeout,
    livenessPath,
    readinessPath,
    readinessGrace,
    signal: options.signal,
  };
}

function probePath(name: string, value: string | null | undefined, fallback: string): string | null {
  if (value === undefined) return fallback;
  if (value === null) return null;
  if (typeof value !== "string" || !value.startsWith("/")) {
    throw new TypeError(
      `Option ${name} must be a path starting with "/" (or null for none), got ${String(value)}`,
    );
  }
  return value;
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
