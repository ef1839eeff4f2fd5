/**
 * `createHttpHandler`: the Streamable HTTP endpoint of a server, as a web-standard
 * `(request: Request) => Promise<Response>`, serving both eras on one URL: the modern era
 * (2026-07-28: one message per POST, no sessions) and the legacy one (2025-03-26 … 2025-11-25:
 * stateless by default, optional `Mcp-Session-Id` sessions with a GET stream).
 * @module
 */
import { integerOption, numberOption } from "../../stream/options.ts";
import { delay, systemTimeProvider, type TimeProvider } from "../../stream/time_provider.ts";
import {
  asError,
  CancelledError,
  ClosedError,
  ErrorCodes,
  InvalidOptionError,
  InvalidUtf8Error,
  JsonRpcError,
  ParseError,
} from "../../wire/errors.ts";
import { BodyTooLargeError } from "../errors.ts";
import { classifyMessage, errorResponse, type RequestId } from "../../wire/json_rpc_message.ts";
import { hasEnvelopeClaim, readRequestEnvelope } from "../../wire/meta_envelope.ts";
import { LEGACY_VERSIONS, MetaKeys } from "../../wire/protocol_versions.ts";
import { APPLY_CORS, type ApplyCors, CorsPolicy, type CorsPolicyOptions } from "./cors_policy.ts";
import {
  headerMismatch,
  httpError,
  invalidParams,
  invalidRequest,
  methodNotAllowed,
  methodNotFound,
  parseError,
  payloadTooLarge,
  unsupportedProtocolVersion,
} from "../http_errors.ts";
import type { DispatchContext, HttpDispatcher, JsonRpcReply, ServerSession } from "./http_dispatcher.ts";
import type { LegacyHttpSession } from "./legacy_http_session.ts";
import { LegacySessionTable, type LegacySessionTableOptions } from "./legacy_session_table.ts";
import { type ParamHeader, readMcpHeaderAnnotations } from "../mcp_header_annotations.ts";
import {
  HEADER_MISMATCH,
  type HeaderMismatchData,
  McpHeaders,
  validateRequestHeaders,
} from "../mcp_request_headers.ts";
import { OriginGuard } from "./origin_guard.ts";
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from "./read_json_body.ts";
import {
  ACCEPTS_REQUEST_PARTS,
  principalOf,
  type RequestParts,
  TAKES_TEXT_REPLY,
  type TextReply,
} from "./request_parts.ts";
import { ChannelDispatchContext, notificationOf } from "./channel_dispatch_context.ts";
import { RecentValues } from "./recent_values.ts";
import { RequestCancel } from "./request_cancel.ts";
import { ResponseChannel } from "./response_channel.ts";
import { SseStream, type SseStreamOptions } from "./sse_stream.ts";
import { type EventStore, MemoryEventStore, parseEventId } from "./event_store.ts";
import type { RelayedReply, ReplyRelay, SessionStore } from "./session_store.ts";
import {
  DEFAULT_RESUME_RETRY,
  type ResumabilityOptions,
  ResumableStream,
  type ResumeOutcome,
  resumeStored,
} from "./resumable_stream.ts";

/** The default {@linkcode HttpHandlerOptions.maxStreams}. */
export const DEFAULT_MAX_STREAMS = 1000;
/** The default {@linkcode HttpHandlerOptions.shutdownTimeout}. */
export const DEFAULT_HTTP_SHUTDOWN_TIMEOUT = 5_000;
/** The version a legacy request without `MCP-Protocol-Version` is taken to speak. */
export const DEFAULT_LEGACY_HTTP_VERSION = "2025-03-26";

/** Methods the modern era removed: a modern request for one gets 404/-32601 from the transport. */
const REMOVED_IN_MODERN = new Set(["initialize", "ping"]);

/** Options of {@linkcode createHttpHandler}. */
export interface HttpHandlerOptions {
  /** The endpoint's path (e.g. `/mcp`); requests for any other path get a plain 404. Default: every path. */
  path?: string;
  /** Largest request body, in bytes, enforced while it streams in (413). Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * The address the server listens on, for `Origin`/`Host` validation (403). Default `127.0.0.1`:
   * only loopback `Host`s and `Origin`s pass unless allow-listed. Give the public address (or
   * `0.0.0.0`) when serving beyond this machine, with `allowedHosts`: `Host` is then checked against
   * them, and a non-loopback `bindAddress` without `allowedHosts` throws `InvalidOptionError` (a
   * DNS-rebinding page sends an `Origin` equal to its `Host`; only a host allow-list tells it apart).
   */
  bindAddress?: string;
  /** Extra `Host` values accepted (`name` or `name:port`). Default none. */
  allowedHosts?: readonly string[];
  /** Extra `Origin`s accepted, or `"*"`. Default none. */
  allowedOrigins?: readonly string[] | "*";
  /** CORS for browser clients: `true` for the defaults of `CorsPolicy`, or its options. Default off. */
  cors?: boolean | CorsPolicyOptions;
  /**
   * Legacy sessions (`Mcp-Session-Id`, the GET stream, server-to-client requests over SSE): `true`
   * for the defaults, or the table's bounds. Default off: every legacy POST stands alone.
   */
  sessions?: boolean | LegacySessionTableOptions;
  /**
   * Resumable legacy SSE streams (2025-11-25 "Resumability and Redelivery"; needs `sessions`):
   * every event on a POST's stream and on the GET stream carries an id naming its stream and is
   * kept in an event store; `GET` with `Last-Event-ID` replays what followed, once, in order, then
   * goes on live. Each stream opens with a priming event (an id, `retry`, empty data), and a
   * handler may end its connection early (`ctx.closeSseStream()`) so the client polls. `true` for
   * the defaults (a `MemoryEventStore` of 16 MiB and 5 minutes, retry 1000 ms). Default off.
   */
  resumability?: boolean | ResumabilityOptions;
  /**
   * Where legacy sessions live between requests, so that any replica serves a session's next
   * request (no pinning) and a dead replica's sessions go on elsewhere: the state is saved when it
   * changes, and a session id this replica does not hold is looked up here. Default none: the
   * replica's own memory.
   */
  sessionStore?: SessionStore;
  /**
   * Carries a client's answer to a server-to-client request to the replica whose handler waits
   * for it (with several replicas and no pinning). Default none.
   */
  replyRelay?: ReplyRelay;
  /** Long streams open at once (modern `subscriptions/listen` and legacy GET streams); one more gets 429. Default 1000. */
  maxStreams?: number;
  /** Bytes one SSE response holds for a slow reader before the handler's notifications wait. Default 1 MiB. */
  maxBufferedBytes?: number;
  /** Milliseconds of quiet after which an SSE stream sends a keep-alive comment; 0 sends none. Default 15 000. */
  keepAliveInterval?: number;
  /** Milliseconds {@linkcode HttpHandler.close} lets requests in flight finish before it cancels them. Default 5 000. */
  shutdownTimeout?: number;
  /**
   * The mirrored parameters (`x-mcp-header` annotations) of tool `name`, to validate its
   * `Mcp-Param-*` headers; `undefined` for none. Default: read from the server's
   * `toolInputSchema(name)` when it has one, else none checked.
   */
  paramHeaders?: (toolName: string) => readonly ParamHeader[] | undefined;
  /** Clock of keep-alives, idle sessions and the shutdown bound. Default the system clock. */
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

interface InFlight {
  readonly controller: Aborter;
  readonly channel: ResponseChannel;
  readonly listen: boolean;
  /** Settles once the reply is out and its stream ended. */
  done: Promise<void>;
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
  const endpoint = new McpEndpoint(server, options);
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

class McpEndpoint {
  readonly #server: HttpDispatcher;
  readonly #path: string | undefined;
  readonly #maxBodyBytes: number;
  readonly #maxStreams: number;
  readonly #shutdownTimeout: number;
  readonly #sse: SseStreamOptions;
  readonly #guard: OriginGuard;
  readonly #cors: CorsPolicy | undefined;
  readonly #sessions: LegacySessionTable | undefined;
  readonly #resume: { store: EventStore; retry: number } | undefined;
  /** Resumable streams written on this replica, by stream id (until they end). */
  readonly #store: SessionStore | undefined;
  readonly #relay: ReplyRelay | undefined;
  #unsubscribeRelay: (() => void) | undefined;
  /** The state last saved for each session (JSON), to save only what changed. */
  readonly #saved = new WeakMap<LegacyHttpSession, { state: string; at: number }>();
  readonly #liveStreams = new Map<string, { stream: ResumableStream; sessionId: string }>();
  readonly #paramHeaders: HttpHandlerOptions["paramHeaders"];
  readonly #time: TimeProvider;
  readonly #report: (error: Error) => void;
  readonly #inFlight = new Set<InFlight>();
  readonly #longStreams = new Set<{ abort(reason?: unknown): void }>();
  readonly #pathnames = new RecentValues((url) => new URL(url).pathname);
  readonly #postAccepts = new RecentValues((accept) =>
    acceptsAny(accept, ["application/json", "text/event-stream"])
  );
  #closing: Promise<void> | undefined;
  #draining = false;
  #markClosed!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.#markClosed = resolve));

  constructor(server: HttpDispatcher, options: HttpHandlerOptions) {
    this.#server = server;
    if (options.path !== undefined && (typeof options.path !== "string" || !options.path.startsWith("/"))) {
      throw new InvalidOptionError(
        `Option path must be a string starting with "/", got ${JSON.stringify(options.path)}`,
      );
    }
    this.#path = options.path;
    this.#maxBodyBytes = integerOption("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 1);
    this.#maxStreams = integerOption("maxStreams", options.maxStreams, DEFAULT_MAX_STREAMS, 0);
    this.#shutdownTimeout = numberOption(
      "shutdownTimeout",
      options.shutdownTimeout,
      DEFAULT_HTTP_SHUTDOWN_TIMEOUT,
    );
    this.#time = options.timeProvider ?? systemTimeProvider;
    this.#sse = {
      maxBufferedBytes: options.maxBufferedBytes,
      keepAliveInterval: options.keepAliveInterval,
      timeProvider: this.#time,
    };
    new SseStream(this.#sse).abort(); // fail on bad stream bounds now rather than on the first stream
    this.#guard = new OriginGuard({
      bindAddress: options.bindAddress ?? "127.0.0.1",
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
    });
    this.#cors = options.cors ? new CorsPolicy(options.cors === true ? {} : options.cors) : undefined;
    this.#sessions = options.sessions
      ? new LegacySessionTable({
        timeProvider: this.#time,
        ...(options.sessions === true ? {} : options.sessions),
      })
      : undefined;
    if (options.resumability && !options.sessions) {
      throw new InvalidOptionError(
        "Option resumability needs sessions: event ids are unique per session (2025-11-25), so turn sessions on",
      );
    }
    const resume = options.resumability === true ? {} : options.resumability || undefined;
    this.#resume = resume && {
      store: resume.eventStore ??
        new MemoryEventStore({ maxBytes: resume.maxBytes, maxAge: resume.maxAge, timeProvider: this.#time }),
      retry: integerOption("resumability.retry", resume.retry, DEFAULT_RESUME_RETRY, 0),
    };
    if ((options.sessionStore || options.replyRelay) && !options.sessions) {
      throw new InvalidOptionError("Options sessionStore and replyRelay need sessions: turn sessions on");
    }
    this.#store = options.sessionStore;
    this.#relay = options.replyRelay;
    this.#unsubscribeRelay = this.#relay?.subscribe((reply) => this.#relayed(reply));
    this.#paramHeaders = options.paramHeaders ??
      (server.toolInputSchema ? schemaParamHeaders((name) => server.toolInputSchema!(name)) : undefined);
    const onReport = options.onReport;
    this.#report = (error) => {
      try {
        onReport?.(error);
      } catch {
        // A failing reporter must not break the endpoint; there is nowhere further to report to.
      }
    };
  }

  get sessionCount(): number {
    return this.#sessions?.size ?? 0;
  }

  get streamCount(): number {
    return this.#longStreams.size;
  }

  /** The answer to `request` (without a promise hop when it is known at once). */
  handle(request: RequestParts): Promise<Response | TextReply> | Response {
    if (this.#path !== undefined && this.#pathnames.of(request.url) !== this.#path) {
      // not ours: refused unread
      return refusedUnread(
        request,
        new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain" } }),
      );
    }
    if (!this.#cors) return this.#route(request);
    const preflight = this.#cors.preflight(request);
    if (preflight) return preflight;
    return this.#withCors(this.#cors, request);
  }

  /** Adds this endpoint's CORS headers (when it has a policy) to a response made in front of it. */
  readonly applyCors: ApplyCors = (request, response) =>
    this.#cors === undefined ? response : this.#cors.apply(request, response);

  async #withCors(cors: CorsPolicy, request: RequestParts): Promise<Response> {
    const response = await this.#route(request);
    return cors.apply(request, response instanceof Response ? response : response.toResponse());
  }

  #route(request: RequestParts): Promise<Response | TextReply> | Response {
    const refused = this.#guard.refuse(request);
    if (refused) return refusedUnread(request, refused);
    if (this.#closing && request.method !== "POST") return unavailable();
    switch (request.method) {
      case "POST":
        return this.#post(request);
      case "GET":
        return this.#get(request);
      case "DELETE":
        return this.#delete(request);
      default:
        return refusedUnread(request, methodNotAllowed(request.method, this.#allowed()));
    }
  }

  #allowed(): string[] {
    return this.#sessions ? ["GET", "POST", "DELETE"] : ["POST"];
  }

  // ---------------------------------------------------------------- POST

  async #post(request: RequestParts): Promise<Response | TextReply> {
    const contentType = request.headers.get("content-type");
    // No Content-Type is refused as a wrong one is (a POST body is JSON, said so).
    if (contentType === null || !/^application\/json\s*(;|$)/i.test(contentType.trim())) {
      await request.body?.cancel().catch(() => {});
      return httpError("unsupportedMediaType", undefined, {
        message: `Unsupported Media Type: Content-Type must be application/json, got ${
          contentType === null ? "none" : JSON.stringify(contentType)
        }`,
      });
    }
    const accept = request.headers.get("accept");
    if (accept !== null && !this.#postAccepts.of(accept)) {
      await request.body?.cancel().catch(() => {});
      return httpError("notAcceptable", undefined);
    }
    let message: unknown;
    try {
      const body = await readJsonBody(request, { maxBodyBytes: this.#maxBodyBytes });
      if (body.batch) {
        return invalidRequest(
          undefined,
          "Invalid request: JSON-RPC batches are not supported; send one message per POST",
        );
      }
      message = body.value;
    } catch (error) {
      if (error instanceof BodyTooLargeError) return payloadTooLarge(this.#maxBodyBytes);
      if (error instanceof ParseError || error instanceof InvalidUtf8Error) {
        return parseError(`Parse error: ${error.message}`);
      }
      // The upload broke off (client gone, connection reset): nobody may read this answer, but it is one.
      this.#report(asError(error));
      return invalidRequest(
        undefined,
        `Invalid request: the body could not be read: ${asError(error).message}`,
      );
    }
    const classified = classifyMessage(message);
    if (classified.kind === "invalid") {
      return invalidRequest(classified.id, `Invalid request: ${classified.reason}`);
    }
    // While closing, only replies to server-to-client requests get in: the requests waiting for them may finish.
    if (this.#closing && classified.kind !== "result" && classified.kind !== "error") return unavailable();
    const headerVersion = request.headers.get(McpHeaders.protocolVersion)?.trim() ?? null;
    const params = classified.kind === "request"
      ? classified.request.params
      : classified.kind === "notification"
      ? classified.params
      : undefined;
    const legacy = this.#server.versions.legacy.length > 0 &&
      !hasEnvelopeClaim(params) &&
      (headerVersion === null || (LEGACY_VERSIONS as readonly string[]).includes(headerVersion));
    return legacy
      ? this.#legacyPost(request, message, classified, headerVersion)
      : this.#modernPost(request, message, classified);
  }

  // ---------------------------------------------------------------- modern

  #modernPost(
    request: RequestParts,
    message: unknown,
    classified: Classified,
  ): Response | Promise<Response | TextReply> {
    if (classified.kind === "result" || classified.kind === "error") {
      return invalidRequest(
        classified.id,
        "Invalid request: a 2026-07-28 client sends no responses (the modern era has no server-to-client requests)",
      );
    }
    if (classified.kind === "notification") {
      this.#notifyInBackground(message, undefined, request.signal);
      return accepted();
    }
    const { id, method, params } = classified.request;
    if (REMOVED_IN_MODERN.has(method)) return methodNotFound(id, `${method} (removed in 2026-07-28)`);
    const reading = readRequestEnvelope(params);
    if (reading.kind !== "envelope") {
      const reason = reading.kind === "malformed"
        ? reading.message
        : `Invalid params: params._meta must carry "${MetaKeys.protocolVersion}" and "${MetaKeys.clientCapabilities}"`;
      return invalidParams(id, reason);
    }
    const toolName = method === "tools/call" && isObject(params) && typeof params.name === "string"
      ? params.name
      : undefined;
    const paramHeaders = toolName === undefined ? undefined : this.#paramHeaders?.(toolName);
    const mismatch = validateRequestHeaders(request.headers, message, { paramHeaders });
    if (mismatch && (mismatch.data as HeaderMismatchData).header === McpHeaders.protocolVersion) {
      return headerMismatch(id, mismatch);
    }
    const version = reading.envelope.protocolVersion;
    if (!this.#server.versions.supportsModern(version)) {
      return unsupportedProtocolVersion(id, version, this.#server.versions.advertised);
    }
    if (mismatch) return headerMismatch(id, mismatch);

    const listen = method === "subscriptions/listen";
    if (listen && this.#longStreams.size >= this.#maxStreams) return tooManyStreams(id, this.#maxStreams);
    const controller = new RequestCancel(request, DISCONNECTED);
    const channel = new ResponseChannel({
      sse: this.#sse,
      statusOf: modernStatus,
      onCancel: stoppedReading(controller),
      textReply: takesTextReply(request),
    });
    if (listen) this.#countStream(channel.openStream());
    const context = new ChannelDispatchContext(controller, channel, undefined, principalOf(request));
    this.#run(id, message, context, channel, controller, listen);
    if (listen && this.#draining) controller.abort(new ClosedError("The server is shutting down"));
    return channel.response;
  }

  // ---------------------------------------------------------------- legacy

  #legacyPost(
    request: RequestParts,
    message: unknown,
    classified: Classified,
    headerVersion: string | null,
  ): Response | Promise<Response | TextReply> {
    const isInitialize = classified.kind === "request" && classified.request.method === "initialize";
    const id = idOf(classified);
    if (!isInitialize && headerVersion !== null && !this.#server.versions.legacy.includes(headerVersion)) {
      return unsupportedProtocolVersion(id, headerVersion, this.#server.versions.legacy);
    }
    return this.#sessions
      ? this.#sessionPost(this.#sessions, request, message, classified, isInitialize)
      : this.#statelessPost(request, message, classified, headerVersion);
  }

  #statelessPost(
    request: RequestParts,
    message: unknown,
    classified: Classified,
    headerVersion: string | null,
  ): Response | Promise<Response | TextReply> {
    if (classified.kind === "result" || classified.kind === "error") {
      return invalidRequest(
        classified.id,
        "Invalid request: no server-to-client request is waiting (this endpoint runs without sessions and sends none)",
      );
    }
    const session: ServerSession = {
      legacy: {
        protocolVersion: headerVersion ?? DEFAULT_LEGACY_HTTP_VERSION,
        clientInfo: undefined,
        clientCapabilities: {},
      },
    };
    if (classified.kind === "notification") {
      this.#notifyInBackground(message, session, request.signal);
      return accepted();
    }
    const { id, method } = classified.request;
    // Stateless: nothing can deliver the reply once the response is gone, so a disconnect cancels.
    const controller = new RequestCancel(request, DISCONNECTED);
    const channel = new ResponseChannel({
      sse: this.#sse,
      onCancel: stoppedReading(controller),
      textReply: takesTextReply(request),
    });
    const context = new ChannelDispatchContext(
      controller,
      channel,
      method === "initialize" ? undefined : session,
      principalOf(request),
    );
    this.#run(id, message, context, channel, controller, false);
    return channel.response;
  }

  #sessionPost(
    table: LegacySessionTable,
    request: RequestParts,
    message: unknown,
    classified: Classified,
    isInitialize: boolean,
  ): Response | Promise<Response | TextReply> {
    const requestId = idOf(classified);
    let session: LegacyHttpSession | undefined;
    if (isInitialize) {
      session = table.create();
      if (!session) return tooManySessions(requestId, table.maxSessions);
      session.principal = principalOf(request);
      this.#register(session);
    } else {
      const found = this.#findSession(table, request, requestId);
      if (found instanceof Promise) {
        return found.then((adopted) =>
          adopted instanceof Response
            ? adopted
            : this.#sessionMessage(adopted, request, message, classified, isInitialize)
        );
      }
      if (found instanceof Response) return found;
      session = found;
    }
    return this.#sessionMessage(session, request, message, classified, isInitialize);
  }

  /** A session is live here (new, or adopted from the session store): the server may reach it. */
  #register(session: LegacyHttpSession): void {
    const untrack = this.#server.trackSession?.(session);
    if (untrack) session.signal.addEventListener("abort", () => untrack(), { once: true });
  }

  /** Saves `session`'s state when it changed since the last save (or half its TTL went by). */
  #persist(session: LegacyHttpSession): void {
    const store = this.#store;
    if (!store || !session.legacy || session.ended) return;
    if (session.legacy.principal !== session.principal) session.legacy.principal = session.principal;
    const state = JSON.stringify(session.legacy);
    const now = this.#time.now();
    const ttl = this.#sessions!.idleTimeout;
    const last = this.#saved.get(session);
    if (last && last.state === state && now - last.at < ttl / 2) return;
    this.#saved.set(session, { state, at: now });
    try {
      Promise.resolve(store.save(session.id, session.legacy, ttl)).catch((error: unknown) =>
        this.#report(asError(error))
      );
    } catch (error) {
      this.#report(asError(error));
    }
  }

  /** A reply another replica could not place: settle it if its request waits here. */
  #relayed(reply: RelayedReply): void {
    this.#sessions?.get(reply.sessionId)?.settle(reply.id, reply.outcome);
  }

  #sessionMessage(
    session: LegacyHttpSession,
    request: RequestParts,
    message: unknown,
    classified: Classified,
    isInitialize: boolean,
  ): Response | Promise<Response | TextReply> {
    if (classified.kind === "result" || classified.kind === "error") {
      const outcome = classified.kind === "result"
        ? { result: classified.result }
        : { error: classified.error };
      if (!session.settle(classified.id, outcome)) {
        if (this.#relay && classified.id !== undefined) {
          // The request may wait on another replica: it settles there.
          this.#relay.publish({ sessionId: session.id, id: classified.id, outcome }).catch((error: unknown) =>
            this.#report(asError(error))
          );
          return accepted();
        }
        this.#report(
          new JsonRpcError(
            ErrorCodes.InvalidRequest,
            `A reply for id ${
              JSON.stringify(classified.id)
            } reached session ${session.id}, which has no request waiting with that id (late or unknown)`,
          ),
        );
      }
      return accepted();
    }
    if (classified.kind === "notification") {
      if (classified.method === "notifications/cancelled" && isObject(classified.params)) {
        session.cancel(classified.params.requestId, classified.params.reason);
      }
      const notified = session;
      this.#notifyInBackground(message, session, session.signal, () => this.#persist(notified));
      return accepted();
    }
    const { id } = classified.request;
    const controller = session.track(id);
    if (!controller) {
      return invalidRequest(
        id,
        `Invalid request: request id ${JSON.stringify(id)} is already in flight on this session`,
      );
    }
    const done = session.begin();
    const live = session;
    const channel = new ResponseChannel({
      sse: this.#sse,
      headers: isInitialize ? { [McpHeaders.sessionId]: session.id } : undefined,
      textReply: takesTextReply(request),
      stream: this.#resume ? () => this.#resumable(live) : undefined,
    });
    const context: DispatchContext = {
      session,
      principal: principalOf(request),
      networkTransport: "tcp",
      signal: controller.signal,
      notify: (notification, notificationParams) =>
        channel.notify(notificationOf(notification, notificationParams)),
      request: (method, params, options) => live.request(channel, method, params, options?.signal),
      closeStream: () => channel.detach(),
    };
    const entry = this.#run(id, message, context, channel, controller, false, (reply) => {
      if (isInitialize && (reply === undefined || "error" in reply)) {
        live.end(new ClosedError(`The session ${live.id} was not initialized`));
      }
    });
    void entry.done.then(() => {
      live.untrack(id);
      done();
      this.#persist(live);
    });
    return channel.response;
  }

  #findSession(
    table: LegacySessionTable,
    request: RequestParts,
    id: RequestId | undefined,
  ): LegacyHttpSession | Response | Promise<LegacyHttpSession | Response> {
    const sessionId = request.headers.get(McpHeaders.sessionId);
    if (sessionId === null) return httpError("sessionRequired", id);
    const found = table.get(sessionId.trim());
    // Another principal's session answers as one that does not exist: 404, never its existence.
    if (found !== undefined) return found.principal === principalOf(request) ? found : sessionNotFound(id);
    if (this.#store) return this.#adopt(this.#store, table, sessionId.trim(), id, principalOf(request));
    return sessionNotFound(id);
  }

  /** Session `sessionId` from the session store, live here from now on; 404 when the store has none. */
  async #adopt(
    store: SessionStore,
    table: LegacySessionTable,
    sessionId: string,
    id: RequestId | undefined,
    principal: string | undefined,
  ): Promise<LegacyHttpSession | Response> {
    let state: Awaited<ReturnType<SessionStore["load"]>>;
    try {
      state = await store.load(sessionId);
    } catch (error) {
      this.#report(asError(error));
      return new Response(
        JSON.stringify(
          errorResponse(
            id,
            -32000,
            `Service unavailable: the session store failed: ${asError(error).message}`,
          ),
        ),
        { status: 503, headers: { "Content-Type": "application/json", "Retry-After": "1" } },
      );
    }
    if (!state || state.principal !== principal) return sessionNotFound(id);
    const raced = table.get(sessionId); // another request of the same session adopted it meanwhile
    if (raced) return raced.principal === principal ? raced : sessionNotFound(id);
    const session = table.adopt(sessionId);
    if (!session) return tooManySessions(id, table.maxSessions);
    session.principal = principal;
    session.legacy = state;
    this.#saved.set(session, { state: JSON.stringify(state), at: this.#time.now() });
    this.#register(session);
    return session;
  }

  // ---------------------------------------------------------------- GET, DELETE

  async #get(request: RequestParts): Promise<Response> {
    const table = this.#sessions;
    if (!table) return methodNotAllowed("GET", this.#allowed());
    if (!accepts(request, ["text/event-stream"])) {
      return httpError("notAcceptable", undefined, {
        message: "Not Acceptable: a GET stream needs Accept: text/event-stream",
      });
    }
    const found = await this.#findSession(table, request, undefined);
    if (found instanceof Response) return found;
    const lastEventId = request.headers.get("last-event-id");
    if (this.#resume && lastEventId !== null) return this.#resumeGet(found, lastEventId);
    if (found.hasGetStream) return conflict(`Conflict: session ${found.id} already has a GET stream open`);
    if (this.#longStreams.size >= this.#maxStreams) return tooManyStreams(undefined, this.#maxStreams);
    let response: Response;
    if (this.#resume) {
      const stream = this.#resumable(found);
      found.attachGetStream(stream);
      this.#countStream(stream);
      response = stream.response();
    } else {
      const stream = new SseStream(this.#sse);
      found.attachGetStream(stream);
      this.#countStream(stream);
      request.signal.addEventListener(
        "abort",
        () => stream.abort(new CancelledError("The client closed the GET stream")),
        { once: true },
      );
      response = stream.response();
    }
    if (this.#draining) found.closeGetStream();
    return response;
  }

  /** A resumable stream of `session`, known here by its id until it ends. */
  #resumable(session: LegacyHttpSession): ResumableStream {
    const stream = new ResumableStream({
      store: this.#resume!.store,
      sessionId: session.id,
      sse: this.#sse,
      retry: this.#resume!.retry,
    });
    this.#liveStreams.set(stream.streamId, { stream, sessionId: session.id });
    void stream.closed.then(() => this.#liveStreams.delete(stream.streamId));
    return stream;
  }

  /** `GET` with `Last-Event-ID`: the events after it on its stream, then the live ones. */
  async #resumeGet(session: LegacyHttpSession, lastEventId: string): Promise<Response> {
    const cursor = parseEventId(lastEventId);
    const live = cursor && this.#liveStreams.get(cursor.streamId);
    let outcome: ResumeOutcome;
    if (!cursor) {
      outcome = { kind: "unknown" };
    } else if (live && live.sessionId === session.id) {
      outcome = await live.stream.resume(cursor.seq);
    } else {
      outcome = await resumeStored(this.#resume!.store, { sessionId: session.id, ...cursor }, {
        sse: this.#sse,
        retry: this.#resume!.retry,
      });
    }
    if (outcome.kind === "resumed") return outcome.response;
    return notResumable(
      outcome.kind === "expired"
        ? `Bad Request: the events after Last-Event-ID ${
          JSON.stringify(lastEventId)
        } are no longer kept (the event store's bounds evicted them); the stream cannot be resumed`
        : `Bad Request: Last-Event-ID ${
          JSON.stringify(lastEventId.slice(0, 80))
        } names no stream of this session; the stream cannot be resumed`,
    );
  }

  async #delete(request: RequestParts): Promise<Response> {
    const table = this.#sessions;
    if (!table) return methodNotAllowed("DELETE", this.#allowed());
    const found = await this.#findSession(table, request, undefined);
    if (found instanceof Response) return found;
    found.end(new ClosedError(`The client ended session ${found.id} (DELETE)`));
    const forget = [this.#store?.delete(found.id), this.#resume?.store.deleteSession?.(found.id)];
    for (const done of forget) Promise.resolve(done).catch((error: unknown) => this.#report(asError(error)));
    return new Response(null, { status: 200 });
  }

  // ---------------------------------------------------------------- running and shutdown

  #run(
    id: RequestId,
    message: unknown,
    context: DispatchContext,
    channel: ResponseChannel,
    controller: Aborter,
    listen: boolean,
    onReply?: (reply: JsonRpcReply | undefined) => void,
  ): InFlight {
    const entry: InFlight = { controller, channel, listen, done: Promise.resolve() };
    this.#inFlight.add(entry);
    entry.done = this.#server.dispatch(message, context).then(
      (reply) => this.#send(entry, id, reply, onReply),
      (error: unknown) => this.#sendFailure(entry, id, error),
    );
    return entry;
  }

  /** Sends the reply; the entry leaves the in-flight set once it is out and its stream (if any) ended. */
  #send(
    entry: InFlight,
    id: RequestId,
    reply: JsonRpcReply | undefined,
    onReply: ((reply: JsonRpcReply | undefined) => void) | undefined,
  ): Promise<void> {
    const { channel } = entry;
    let sent: Promise<void>;
    try {
      onReply?.(reply);
      sent = channel.reply(
        reply ?? errorResponse(id, ErrorCodes.InternalError, "Internal error: the server gave no reply"),
      );
    } catch (error) {
      return this.#sendFailure(entry, id, error);
    }
    if (!channel.streaming) {
      // A JSON reply is settled as it is given: nothing more to wait for.
      this.#inFlight.delete(entry);
      return sent;
    }
    return sent.then(() => channel.closed, (error: unknown) => this.#sendFailure(entry, id, error)).finally(
      () => this.#inFlight.delete(entry),
    );
  }

  #sendFailure(entry: InFlight, id: RequestId, error: unknown): Promise<void> {
    const { channel } = entry;
    this.#report(asError(error));
    return channel
      .reply(errorResponse(id, ErrorCodes.InternalError, `Internal error: ${asError(error).message}`))
      .catch(() => {})
      .then(() => channel.closed)
      .finally(() => this.#inFlight.delete(entry));
  }

  #notifyInBackground(
    message: unknown,
    session: ServerSession | undefined,
    signal: AbortSignal,
    after?: () => void,
  ): void {
    const context: DispatchContext = { session, signal, notify: () => Promise.resolve() };
    this.#server.dispatch(message, context).then(after, (error: unknown) => this.#report(asError(error)));
  }

  #countStream(stream: { readonly closed: Promise<void>; abort(reason?: unknown): void }): void {
    this.#longStreams.add(stream);
    void stream.closed.then(() => this.#longStreams.delete(stream));
  }

  drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    const reason = new ClosedError("The server is shutting down");
    for (const entry of this.#inFlight) if (entry.listen) entry.controller.abort(reason);
    for (const session of this.#sessions?.values() ?? []) session.closeGetStream();
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown().then(() => this.#markClosed());
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const reason = new ClosedError("The server is shutting down");
    for (const entry of this.#inFlight) if (entry.listen) entry.controller.abort(reason);
    for (const session of this.#sessions?.values() ?? []) session.closeGetStream();
    const pending = [...this.#inFlight].map((entry) => entry.done);
    if (pending.length > 0) {
      const bound = new AbortController();
      await Promise.race([
        Promise.allSettled(pending),
        delay(this.#time, this.#shutdownTimeout, bound.signal).catch(() => {}),
      ]);
      bound.abort();
    }
    for (const entry of this.#inFlight) {
      entry.controller.abort(reason);
      entry.channel.abort(reason, unavailable());
    }
    this.#sessions?.endAll(reason);
    this.#unsubscribeRelay?.();
    // Long streams whose client does not read their last events: ended now.
    for (const stream of this.#longStreams) stream.abort(reason);
  }
}

/**
 * Mirrored parameters from tool input schemas, read once per schema object. A schema whose
 * annotations are invalid mirrors nothing (clients drop such a tool, so none sends its headers).
 */
function schemaParamHeaders(
  schemaOf: (toolName: string) => unknown,
): (toolName: string) => readonly ParamHeader[] | undefined {
  const cache = new WeakMap<object, readonly ParamHeader[] | undefined>();
  return (toolName) => {
    const schema = schemaOf(toolName);
    if (typeof schema !== "object" || schema === null) return undefined;
    if (!cache.has(schema)) {
      const reading = readMcpHeaderAnnotations(schema);
      cache.set(schema, reading.ok && reading.params.length > 0 ? reading.params : undefined);
    }
    return cache.get(schema);
  };
}

type Classified = Exclude<ReturnType<typeof classifyMessage>, { kind: "invalid" }>;

/** The id of a message, when it has a readable one. */
function idOf(classified: Classified): RequestId | undefined {
  return classified.kind === "request"
    ? classified.request.id
    : classified.kind === "notification"
    ? undefined
    : classified.id;
}

/** The HTTP status of a modern JSON reply: the transport-level errors get theirs, handler errors stay in-band (200). */
function modernStatus(reply: Record<string, unknown>): number {
  const error = reply.error;
  if (!isObject(error)) return 200;
  switch (error.code) {
    case ErrorCodes.MethodNotFound:
      return 404;
    case ErrorCodes.UnsupportedProtocolVersion:
    case ErrorCodes.MissingRequiredClientCapability:
    case HEADER_MISMATCH:
      return 400;
    default:
      return 200;
  }
}

/** `response` once `request`'s body is cancelled unread (a failing cancel changes nothing). */
async function refusedUnread(request: RequestParts, response: Response): Promise<Response> {
  await request.body?.cancel().catch(() => {});
  return response;
}

/** True when `request`'s `Accept` allows one of `types` (an absent header allows everything). */
function accepts(request: RequestParts, types: readonly string[]): boolean {
  const accept = request.headers.get("accept");
  return accept === null || acceptsAny(accept, types);
}

/** True when `accept` (an `Accept` value) allows one of `types`; an empty one allows everything. */
function acceptsAny(accept: string, types: readonly string[]): boolean {
  if (accept.trim() === "") return true;
  const ranges = accept.split(",").map((part) => part.split(";")[0]!.trim().toLowerCase());
  return ranges.some((range) =>
    range === "*/*" || types.some((type) => range === type || range === `${type.split("/")[0]}/*`)
  );
}

/** True when the caller of the handler takes a TextReply for this request (serve() on Node). */
function takesTextReply(request: RequestParts): boolean {
  return (request as { [TAKES_TEXT_REPLY]?: unknown })[TAKES_TEXT_REPLY] === true;
}

/** A ResponseChannel's onCancel that aborts `controller`: the client stopped reading the response stream. */
function stoppedReading(controller: Aborter): (reason: unknown) => void {
  return (reason) =>
    controller.abort(new CancelledError("The client stopped reading the response stream", { cause: reason }));
}

/** What cancels a request's work: an AbortController, or a RequestCancel. */
type Aborter = Pick<AbortController, "abort">;

/** The reason's message when the client's disconnect cancels a request. */
const DISCONNECTED = "The client closed the response (HTTP disconnect)";

function accepted(): Response {
  return new Response(null, { status: 202 });
}

function unavailable(): Response {
  return new Response(
    JSON.stringify(errorResponse(undefined, -32000, "Service unavailable: the server is shutting down")),
    {
      status: 503,
      headers: { "Content-Type": "application/json", Connection: "close" },
    },
  );
}

function conflict(message: string): Response {
  return new Response(JSON.stringify(errorResponse(undefined, -32000, message)), {
    status: 409,
    headers: { "Content-Type": "application/json" },
  });
}

/** 400 for a `Last-Event-ID` that cannot be resumed (unknown, another session's, or evicted): nothing replayed. */
function notResumable(message: string): Response {
  return new Response(JSON.stringify(errorResponse(undefined, -32000, message)), {
    status: 400,
    headers: { "Content-Type": "application/json" },
  });
}

function sessionNotFound(id: RequestId | undefined): Response {
  return httpError("sessionNotFound", id, {
    message: "Session not found: it ended or never existed; send initialize to start a new one",
  });
}

function tooManyStreams(id: RequestId | undefined, max: number): Response {
  return httpError("tooManyStreams", id, {
    message: `Too many open streams: this server keeps at most ${max}; close one and retry`,
    headers: { "Retry-After": "5" },
  });
}

function tooManySessions(id: RequestId | undefined, max: number): Response {
  return httpError("tooManyStreams", id, {
    message: `Too many sessions: this server keeps at most ${max}; end one (DELETE) and retry`,
    headers: { "Retry-After": "5" },
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
