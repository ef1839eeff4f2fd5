/**
 * `serve` on `node:http`: a fetch handler behind a Node HTTP server. Requests become web `Request`s
 * whose body streams in as the handler reads it and whose `signal` aborts when the client goes away;
 * response bodies are written as the client takes them (`write()` returning false waits for
 * `'drain'`), so the handler's own stream bound is the only buffer that grows.
 * @module
 */
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import { type AddressInfo, Server as NetServer } from "node:net";
import { ACCEPTS_REQUEST_PARTS, TextReply } from "../../src/http/server/request_parts.ts";
import { StreamReply } from "../../src/http/server/sse/stream_reply.ts";
import { writeStreamReply } from "./_node_stream_reply.ts";
import { ClosedError } from "../../src/wire/errors.ts";
import { InFlightRequests, type TrackedRequest } from "../_http/in_flight_requests.ts";
import { Disconnect } from "./_disconnect.ts";
import { NodeRequest, toRequest } from "./_node_request.ts";
import {
  type FetchHandler,
  type HttpServer,
  type ServeOptions,
  serveOptions,
  serverUrl,
  sleep,
} from "../_http/serve_options.ts";
import { HealthChecks } from "../_http/health_checks.ts";
import { drained } from "./_drained.ts";

export type { FetchHandler, HttpServer, ServeOptions } from "../_http/serve_options.ts";

/**
 * Serves `handler` on `node:http` at `hostname` (default `127.0.0.1`) and `port` (default 0: a free
 * one). Resolves once listening.
 *
 * @example
 * ```ts
 * declare const mcp: ContextServer;
 * const server = await serve(createHttpHandler(mcp), { port: 8080 });
 * console.log(new URL("/mcp", server.url).href);
 * process.once("SIGTERM", () => void server.close());
 * ```
 */
export async function serve(handler: FetchHandler, options: ServeOptions = {}): Promise<HttpServer> {
  const {
    port,
    hostname,
    shutdownTimeout,
    keepAliveTimeout,
    idleCloseDelay,
    lingerTimeout,
    livenessPath,
    readinessPath,
    readinessGrace,
    signal,
  } = serveOptions(options);
  const health = new HealthChecks(livenessPath, readinessPath);
  signal?.throwIfAborted();
  const inFlight = new InFlightRequests();
  // createHttpHandler's handlers read only RequestParts: they get NodeRequest, no web Request.
  const parts = (handler as { [ACCEPTS_REQUEST_PARTS]?: unknown })[ACCEPTS_REQUEST_PARTS] === true;
  const state = { draining: false };
  const context = { hostname, state, inFlight, parts, lingerTimeout };
  const server = createServer((req, res) => {
    const probe = health.answer(req.method ?? "", req.url ?? "");
    if (probe === undefined) return void handle(handler, req, res, context);
    if (state.draining) res.shouldKeepAlive = false;
    res.writeHead(probe.status, { "content-type": "text/plain", "cache-control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : probe.body);
  });
  server.keepAliveTimeout = keepAliveTimeout;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = serverUrl(hostname, address.port);
  let closing: Promise<void> | undefined;
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const close = (): Promise<void> => {
    health.ready = false; // readiness turns 503 now, before anything else changes
    const stop = () =>
      shutdown(server, handler, inFlight, { shutdownTimeout, keepAliveTimeout, idleCloseDelay, state });
    // Without a grace the shutdown starts in this call (drain() runs before close() returns).
    closing ??= (readinessGrace > 0 ? sleep(readinessGrace).promise.then(stop) : stop()).then(() =>
      markClosed()
    );
    return closing;
  };
  signal?.addEventListener("abort", () => void close(), { once: true });
  return { url, close, closed, [Symbol.asyncDispose]: close };
}

async function shutdown(
  server: Server,
  handler: FetchHandler,
  inFlight: InFlightRequests,
  options: {
    shutdownTimeout: number;
    keepAliveTimeout: number;
    idleCloseDelay: number;
    state: { draining: boolean };
  },
): Promise<void> {
  options.state.draining = true;
  // Stop listening only: http.Server#close would also cut idle keep-alive connections at once, while
  // a proxy may already be sending a request on one (it cannot repeat a POST: the caller gets a 502).
  // They end after keepAliveTimeout of quiet instead; a request that still comes is answered.
  const stopped = closeListener(server);
  // Connections busy then end after their answer (Connection: close); only idle ones are ended here.
  const idle = options.idleCloseDelay < options.keepAliveTimeout
    ? setTimeout(() => server.closeIdleConnections(), options.idleCloseDelay)
    : undefined;
  handler.drain?.();
  await inFlight.drain(
    options.shutdownTimeout,
    new ClosedError("The server is shutting down: the response was ended"),
  );
  // Whatever is left after one more keep-alive period (a client that holds a connection and sends nothing) goes.
  const forced = setTimeout(() => server.closeAllConnections(), options.keepAliveTimeout + 1_000);
  await stopped;
  clearTimeout(forced);
  clearTimeout(idle);
  await handler.close?.();
}

/** Event-loop turns {@linkcode closeListener} waits at most for one in which nothing was accepted. */
const MAX_ACCEPT_TURNS = 64;

/**
 * Stops listening, without resetting what the kernel already queued. Closing a listening socket resets
 * every connection the kernel completed but Node has not accepted yet, and a proxy has already written
 * its request on it: a POST it cannot repeat, a lost call behind nginx. So the socket closes only
 * after an event-loop turn whose poll accepted nothing (libuv accepts everything pending in each
 * poll), at most {@linkcode MAX_ACCEPT_TURNS} turns; a connection accepted meanwhile is served (with
 * `Connection: close`, as the drain has begun). Resolves when the server's connections have all ended.
 */
function closeListener(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    let accepted = 0;
    let turns = 0;
    const onConnection = (): void => void accepted++;
    server.on("connection", onConnection);
    const turn = (): void => {
      if (accepted > 0 && ++turns < MAX_ACCEPT_TURNS) {
        accepted = 0;
        setImmediate(turn); // scheduled from the check phase: runs after the next poll
        return;
      }
      server.off("connection", onConnection);
      NetServer.prototype.close.call(server, () => resolve());
    };
    // An immediate scheduled from an immediate runs in the next turn, after its poll: at least one
    // poll (which accepts what is pending) comes before the first look at `accepted`.
    setImmediate(() => setImmediate(turn));
  });
}

async function handle(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  { hostname, state, inFlight, parts, lingerTimeout }: {
    hostname: string;
    state: { draining: boolean };
    inFlight: InFlightRequests;
    parts: boolean;
    lingerTimeout: number;
  },
): Promise<void> {
  const disconnect = new Disconnect();
  (res as WithDisconnect)[DISCONNECT] = disconnect;
  res.on("close", onResponseClose); // 'close' comes once: `on` adds no wrapper, bound function or state per request
  let request: Request | NodeRequest | undefined;
  try {
    request = parts
      ? new NodeRequest(req, hostname, disconnect)
      : toRequest(req, hostname, disconnect.signal);
  } catch (error) {
    res.statusCode = 400;
    res.setHeader("Content-Type", "text/plain");
    res.setHeader("Connection", "close");
    res.end(`Bad request: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const tracked = inFlight.track();
  let handedOver = false; // a stream reply's writer finishes `tracked` itself, after this function returned
  try {
    const response: Response | TextReply = await handler(request as Request);
    request = undefined; // a long response (a listen stream) does not keep the request and its headers alive
    // Once stopping, every answer ends its connection, so the proxy stops sending on it.
    if (state.draining) res.shouldKeepAlive = false;
    // A body the handler did not read whole (a 413): the answer ends the connection, lingering.
    if (!req.complete) lingerAfterAnswer(res, lingerTimeout);
    if (response instanceof StreamReply) {
      // Not awaited: a long stream (a listen stream) keeps no suspended frame of this function.
      writeStreamReply(response, res, tracked, disconnect);
      handedOver = true;
    } else if (response instanceof TextReply) writeTextReply(response, res);
    else await writeResponse(response, res, disconnect.signal, tracked);
  } catch (error) {
    // Only a fault of the handler itself reaches here: answer 500 if nothing was sent yet.
    if (!res.headersSent) {
      res.statusCode = 500;
      res.setHeader("Content-Type", "text/plain");
      res.end(`Internal server error: ${error instanceof Error ? error.message : String(error)}`);
    } else {
      res.destroy(error instanceof Error ? error : undefined);
    }
  } finally {
    if (!handedOver) tracked.finish();
  }
}

const DISCONNECT = Symbol("disconnect");
type WithDisconnect = ServerResponse & { [DISCONNECT]?: Disconnect };

/** A response's `'close'` (one function for all, no closure per request): before it finished, the client went away. */
function onResponseClose(this: WithDisconnect): void {
  if (!this.writableFinished) this[DISCONNECT]?.abort(new ClosedError("The client closed the connection"));
}

/**
 * Ends the connection after `res` the way nginx's lingering close does: once the answer is out, the
 * sending side closes (FIN) while the rest of the body is read and discarded, until the client closes
 * or `lingerTimeout` passes. Cutting at once (with body bytes unread) makes the kernel send a reset,
 * and the client reads that instead of the status.
 */
function lingerAfterAnswer(res: ServerResponse, lingerTimeout: number): void {
  res.shouldKeepAlive = false;
  res.setHeader("Connection", "close");
  const socket = res.socket;
  if (socket === null) return;
  // node:http ends a `Connection: close` response's socket with destroySoon() once it finished.
  socket.destroySoon = function (this: typeof socket): void {
    if (lingerTimeout === 0) {
      this.destroy();
      return;
    }
    const cut = setTimeout(() => this.destroy(), lingerTimeout);
    this.once("close", () => clearTimeout(cut));
    this.once("end", () => this.destroy());
    this.end();
    res.req.resume(); // the rest of the body is discarded as it comes
    this.resume();
  };
}

/** A whole reply in one write, with its length: no stream, no chunked framing. */
function writeTextReply(reply: TextReply, res: ServerResponse): void {
  // The head as one flat list (no header map built and read back); the names are the handler's, checked by Node as ever.
  const head: (string | number)[] = [];
  for (const name in reply.headers) head.push(name, reply.headers[name]!);
  head.push("content-length", Buffer.byteLength(reply.text));
  res.writeHead(reply.status, head as unknown as OutgoingHttpHeaders);
  res.end(reply.text);
}

async function writeResponse(
  response: Response,
  res: ServerResponse,
  disconnected: AbortSignal,
  tracked: TrackedRequest,
): Promise<void> {
  res.statusCode = response.status;
  if (response.statusText) res.statusMessage = response.statusText;
  const cookies = response.headers.getSetCookie();
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") res.setHeader(name, value);
  }
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (response.body === null) {
    res.end();
    return;
  }
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) res.flushHeaders();
  const reader = response.body.getReader();
  const onDisconnect = (): void => void reader.cancel(disconnected.reason).catch(() => {}); // the handler sees the cancel on its stream
  if (disconnected.aborted) return onDisconnect();
  if (tracked.ended) {
    // A drain ended the request before its response came: it is still sent, no longer counted.
  } else {
    // A drain ends the request: the handler sees the cancel, the client a cut response.
    tracked.onEnd = (reason) => {
      void reader.cancel(reason).catch(() => {});
      res.destroy(reason);
    };
  }
  disconnected.addEventListener("abort", onDisconnect, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res);
      if (disconnected.aborted) return;
    }
    res.end();
  } catch (error) {
    // The body failed (ended by shutdown, or its producer errored): the client sees a cut response.
    res.destroy(error instanceof Error ? error : undefined);
  } finally {
    disconnected.removeEventListener("abort", onDisconnect);
  }
}
