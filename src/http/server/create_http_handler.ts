/**
 * `createHttpHandler`: the Streamable HTTP endpoint of a server, as a web-standard
 * `(request: Request) => Promise<Response>`, serving both eras on one URL: the modern era
 * (2026-07-28: one message per POST, no sessions) and the legacy one (2025-03-26 … 2025-11-25:
 * stateless by default, optional `Mcp-Session-Id` sessions with a GET stream).
 * @module
 */
import { integerOption, numberOption } from "../../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../../stream/time_provider.ts";
import { InvalidOptionError } from "../../wire/errors.ts";
import type { ParamHeader } from "../mcp_header_annotations.ts";
import { APPLY_CORS, CorsPolicy, type CorsPolicyOptions } from "./cors_policy.ts";
import { MemoryEventStore } from "./event_store.ts";
import type { HttpDispatcher } from "./http_dispatcher.ts";
import { InFlightRequests } from "./in_flight_requests.ts";
import { LegacySessionTable, type LegacySessionTableOptions } from "./legacy/legacy_session_table.ts";
import { LegacySessions } from "./legacy/legacy_sessions.ts";
import { ResumableSessionStreams } from "./legacy/resumable_session_streams.ts";
import { SessionGetStream } from "./legacy/session_get_stream.ts";
import { SessionPost } from "./legacy/session_post.ts";
import { StatelessLegacyPost } from "./legacy/stateless_legacy_post.ts";
import { LongStreams } from "./long_streams.ts";
import { McpEndpoint, type McpEndpointParts, type SessionParts } from "./mcp_endpoint.ts";
import { ModernPost, schemaParamHeaders } from "./modern_post.ts";
import { OriginGuard } from "./origin_guard.ts";
import { DEFAULT_MAX_BODY_BYTES } from "./read_json_body.ts";
import { ACCEPTS_REQUEST_PARTS } from "./request_parts.ts";
import type { ReplyRelay, SessionStore } from "./session_store.ts";
import { DEFAULT_RESUME_RETRY, type ResumabilityOptions } from "./resumable_stream.ts";
import { SseStream, type SseStreamOptions } from "./sse/sse_stream.ts";

export { DEFAULT_LEGACY_HTTP_VERSION } from "./legacy/stateless_legacy_post.ts";

/** The default {@linkcode HttpHandlerOptions.maxStreams}. */
export const DEFAULT_MAX_STREAMS = 1000;
/** The default {@linkcode HttpHandlerOptions.shutdownTimeout}. */
export const DEFAULT_HTTP_SHUTDOWN_TIMEOUT = 5_000;
/** Options of {@linkcode createHttpHandler}. */
export interface HttpHandlerOptions {
  /**
   * The endpoint's path (e.g. `/mcp`); requests for any other path get a plain 404. Default: every path.
   * @default every path
   */
  path?: string;
  /**
   * Largest request body, in bytes, enforced while it streams in (413). Default 4 MiB.
   * @default 4 MiB
   */
  maxBodyBytes?: number;
  /**
   * The address the server listens on, for `Origin`/`Host` validation (403). Default `127.0.0.1`:
   * only loopback `Host`s and `Origin`s pass unless allow-listed. Give the public address (or
   * `0.0.0.0`) when serving beyond this machine, with `allowedHosts`: `Host` is then checked against
   * them, and a non-loopback `bindAddress` without `allowedHosts` throws `InvalidOptionError` (a
   * DNS-rebinding page sends an `Origin` equal to its `Host`; only a host allow-list tells it apart).
   * @default 127.0.0.1
   */
  bindAddress?: string;
  /**
   * Extra `Host` values accepted (`name` or `name:port`). Default none.
   * @default none
   */
  allowedHosts?: readonly string[];
  /**
   * Extra `Origin`s accepted, or `"*"`. Default none.
   * @default none
   */
  allowedOrigins?: readonly string[] | "*";
  /**
   * CORS for browser clients: `true` for the defaults of `CorsPolicy`, or its options. Default off.
   * @default off
   */
  cors?: boolean | CorsPolicyOptions;
  /**
   * Legacy sessions (`Mcp-Session-Id`, the GET stream, server-to-client requests over SSE): `true`
   * for the defaults, or the table's bounds. Default off: every legacy POST stands alone.
   * @default off: every legacy POST stands alone
   */
  sessions?: boolean | LegacySessionTableOptions;
  /**
   * Resumable legacy SSE streams (2025-11-25 "Resumability and Redelivery"; needs `sessions`):
   * every event on a POST's stream and on the GET stream carries an id naming its stream and is
   * kept in an event store; `GET` with `Last-Event-ID` replays what followed, once, in order, then
   * goes on live. Each stream opens with a priming event (an id, `retry`, empty data), and a
   * handler may end its connection early (`ctx.closeSseStream()`) so the client polls. `true` for
   * the defaults (a `MemoryEventStore` of 16 MiB and 5 minutes, retry 1000 ms). Default off.
   * @default off
   */
  resumability?: boolean | ResumabilityOptions;
  /**
   * Where legacy sessions live between requests, so that any replica serves a session's next
   * request (no pinning) and a dead replica's sessions go on elsewhere: the state is saved when it
   * changes, and a session id this replica does not hold is looked up here. Default none: the
   * replica's own memory.
   * @default none: the replica's own memory
   */
  sessionStore?: SessionStore;
  /**
   * Carries a client's answer to a server-to-client request to the replica whose handler waits
   * for it (with several replicas and no pinning). Default none.
   * @default none
   */
  replyRelay?: ReplyRelay;
  /**
   * Long streams open at once (modern `subscriptions/listen` and legacy GET streams); one more gets 429. Default 1000.
   * @default 1000
   */
  maxStreams?: number;
  /**
   * Bytes one SSE response holds for a slow reader before the handler's notifications wait. Default 1 MiB.
   * @default 1 MiB
   */
  maxBufferedBytes?: number;
  /**
   * Milliseconds of quiet after which an SSE stream sends a keep-alive comment; 0 sends none. Default 15 000.
   * @default 15000
   */
  keepAliveInterval?: number;
  /**
   * Milliseconds {@linkcode HttpHandler.close} lets requests in flight finish before it cancels them. Default 5 000.
   * @default 5000
   */
  shutdownTimeout?: number;
  /**
   * The mirrored parameters (`x-mcp-header` annotations) of tool `name`, to validate its
   * `Mcp-Param-*` headers; `undefined` for none. Default: read from the server's
   * `toolInputSchema(name)` when it has one, else none checked.
   */
  paramHeaders?: (toolName: string) => readonly ParamHeader[] | undefined;
  /**
   * Clock of keep-alives, idle sessions and the shutdown bound. Default the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /** Failures with nowhere else to go (a notification handler that threw, a reply to no request). */
  onReport?: (error: Error) => void;
}

/** A fetch handler with a graceful shutdown. */
export interface HttpHandler {
  (request: Request): Promise<Response>;
  /**
   * Graceful shutdown: new requests get 503; listen streams end with their result; requests in
   * flight get `shutdownTimeout` to finish, then are cancelled; sessions end. Idempotent.
   */
  close(): Promise<void>;
  /**
   * The first step of a server's graceful stop (`serve` calls it when it stops accepting): listen
   * streams and legacy GET streams end with their graceful result, and each one opened later ends
   * the same way at once, while every other request is still answered normally. Idempotent.
   */
  drain(): void;
  /** Resolves once {@linkcode HttpHandler.close} finished. */
  readonly closed: Promise<void>;
  /** Live legacy sessions. */
  readonly sessionCount: number;
  /** Open long streams (listen and GET). */
  readonly streamCount: number;
}

/**
 * The Streamable HTTP endpoint of `server`, both eras on one URL.
 *
 * Modern (2026-07-28): POST only, one message per POST; `_meta` checked (400/-32602), then
 * `MCP-Protocol-Version` against it (400/-32020), the version (400/-32022), `Mcp-Method`, `Mcp-Name`
 * and `Mcp-Param-*` (400/-32020); an unknown method is 404/-32601 and a missing client capability
 * 400/-32021. The reply is JSON unless a related notification comes first, then SSE; a dropped
 * response cancels the handler. `subscriptions/listen` is a long SSE response, at most `maxStreams`.
 *
 * Legacy: `initialize` answered; `MCP-Protocol-Version` (absent: 2025-03-26) names the version of
 * every other POST. Without sessions, a server-to-client request fails at once. With `sessions`,
 * `initialize` mints `Mcp-Session-Id`, later requests need it (400 without, 404 for an unknown or
 * ended one), GET opens the session's stream, DELETE ends it, server-to-client requests travel on
 * the POST's SSE stream and their replies come back as POSTs (202); a dropped response is not a
 * cancel (`notifications/cancelled` is).
 *
 * Both: bodies over `maxBodyBytes` get 413 (checked as they stream in), a bad `Origin`/`Host` 403,
 * every SSE stream holds at most `maxBufferedBytes` (a handler's notifications wait while it is full).
 *
 * @example
 * ```ts
 * declare const server: ContextServer;
 * const handler = createHttpHandler(server, { sessions: true });
 * Deno.serve({ hostname: "127.0.0.1", port: 8080 }, handler);
 * ```
 */
export function createHttpHandler(server: HttpDispatcher, options: HttpHandlerOptions = {}): HttpHandler {
  const endpoint = new McpEndpoint(endpointParts(server, options));
  // A TextReply goes only to a caller that asked for one (TAKES_TEXT_REPLY): every other caller gets a Response.
  const handler = ((request: Request) => {
    const response = endpoint.handle(request);
    return response instanceof Promise ? response : Promise.resolve(response);
  }) as HttpHandler;
  Object.defineProperties(handler, {
    close: { value: () => endpoint.close() },
    drain: { value: () => endpoint.drain() },
    closed: { get: () => endpoint.closed },
    sessionCount: { get: () => endpoint.sessionCount },
    streamCount: { get: () => endpoint.streamCount },
    // serve() may pass the lighter RequestParts: the endpoint reads nothing else of a request.
    [ACCEPTS_REQUEST_PARTS]: { value: true },
    // A wrapper's own answers (requireBearer's 401/403) get this handler's CORS headers.
    [APPLY_CORS]: { value: endpoint.applyCors },
  });
  return handler;
}

/** The parts of the endpoint `options` describe, each option checked (`InvalidOptionError`). */
function endpointParts(server: HttpDispatcher, options: HttpHandlerOptions): McpEndpointParts {
  if (options.path !== undefined && (typeof options.path !== "string" || !options.path.startsWith("/"))) {
    throw new InvalidOptionError(
      `Option path must be a string starting with "/", got ${JSON.stringify(options.path)}`,
    );
  }
  const maxBodyBytes = integerOption("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 1);
  const maxStreams = integerOption("maxStreams", options.maxStreams, DEFAULT_MAX_STREAMS, 0);
  const shutdownTimeout = numberOption(
    "shutdownTimeout",
    options.shutdownTimeout,
    DEFAULT_HTTP_SHUTDOWN_TIMEOUT,
  );
  const time = options.timeProvider ?? systemTimeProvider;
  const sse: SseStreamOptions = {
    maxBufferedBytes: options.maxBufferedBytes,
    keepAliveInterval: options.keepAliveInterval,
    timeProvider: time,
  };
  new SseStream(sse).abort(); // fail on bad stream bounds now rather than on the first stream
  const guard = new OriginGuard({
    bindAddress: options.bindAddress ?? "127.0.0.1",
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
  });
  const cors = options.cors ? new CorsPolicy(options.cors === true ? {} : options.cors) : undefined;
  const table = options.sessions
    ? new LegacySessionTable({ timeProvider: time, ...(options.sessions === true ? {} : options.sessions) })
    : undefined;
  if (options.resumability && !options.sessions) {
    throw new InvalidOptionError(
      "Option resumability needs sessions: event ids are unique per session (2025-11-25), so turn sessions on",
    );
  }
  const resume = options.resumability === true ? {} : options.resumability || undefined;
  const resumable = resume && new ResumableSessionStreams(
    resume.eventStore ??
      new MemoryEventStore({ maxBytes: resume.maxBytes, maxAge: resume.maxAge, timeProvider: time }),
    integerOption("resumability.retry", resume.retry, DEFAULT_RESUME_RETRY, 0),
    sse,
  );
  if ((options.sessionStore || options.replyRelay) && !options.sessions) {
    throw new InvalidOptionError("Options sessionStore and replyRelay need sessions: turn sessions on");
  }
  const onReport = options.onReport;
  const report = (error: Error): void => {
    try {
      onReport?.(error);
    } catch {
      // A failing reporter must not break the endpoint; there is nowhere further to report to.
    }
  };
  const requests = new InFlightRequests(server, report);
  const streams = new LongStreams(maxStreams);
  let sessions: SessionParts | undefined;
  if (table) {
    const legacySessions = new LegacySessions({
      server,
      table,
      store: options.sessionStore,
      relay: options.replyRelay,
      eventStore: resumable?.store,
      time,
      report,
    });
    sessions = {
      sessions: legacySessions,
      post: new SessionPost({ sessions: legacySessions, requests, sse, resumable }),
      getStream: new SessionGetStream({ sessions: legacySessions, streams, sse, resumable }),
    };
  }
  const paramHeaders = options.paramHeaders ??
    (server.toolInputSchema ? schemaParamHeaders((name) => server.toolInputSchema!(name)) : undefined);
  return {
    server,
    path: options.path,
    maxBodyBytes,
    shutdownTimeout,
    time,
    report,
    guard,
    cors,
    requests,
    streams,
    modern: new ModernPost({ server, sse, requests, streams, paramHeaders }),
    stateless: new StatelessLegacyPost(sse, requests),
    sessions,
  };
}
