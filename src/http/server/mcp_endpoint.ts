/**
 * `McpEndpoint`: the routing of `createHttpHandler`: the endpoint's path (404 elsewhere), CORS, the
 * `Origin`/`Host` guard (403), each method to its part, a POST's body read and sent to its era
 * (modern, stateless legacy, legacy on sessions), and the graceful drain and close.
 * @module
 */
import type { TimeProvider } from "../../stream/time_provider.ts";
import { delay } from "../../stream/time_kit.ts";
import { asError, ClosedError, InvalidUtf8Error, ParseError } from "../../wire/errors.ts";
import { type ClassifiedMessage, classifyMessage } from "../../wire/json_rpc_message.ts";
import { hasEnvelopeClaim } from "../../wire/meta_envelope.ts";
import { LEGACY_VERSIONS } from "../../wire/protocol_versions.ts";
import { BodyTooLargeError } from "../errors.ts";
import {
  httpError,
  invalidRequest,
  methodNotAllowed,
  parseError,
  payloadTooLarge,
  unsupportedProtocolVersion,
} from "../http_errors.ts";
import { McpHeaders } from "../mcp_request_headers.ts";
import type { ApplyCors, CorsPolicy } from "./cors_policy.ts";
import { refusedUnread, unavailable } from "./endpoint_responses.ts";
import type { HttpDispatcher } from "./http_dispatcher.ts";
import type { InFlightRequests } from "./in_flight_requests.ts";
import type { LegacySessions } from "./legacy/legacy_sessions.ts";
import type { SessionGetStream } from "./legacy/session_get_stream.ts";
import { idOf, type SessionPost } from "./legacy/session_post.ts";
import type { StatelessLegacyPost } from "./legacy/stateless_legacy_post.ts";
import type { LongStreams } from "./long_streams.ts";
import type { ModernPost } from "./modern_post.ts";
import type { OriginGuard } from "./origin_guard.ts";
import { type JsonBody, readJsonBody } from "./read_json_body.ts";
import { RecentValues } from "./recent_values.ts";
import { acceptsAny, type PostedMessage, type RequestParts, type TextReply } from "./request_parts.ts";

/** The parts of an endpoint with legacy sessions. */
export interface SessionParts {
  sessions: LegacySessions;
  post: SessionPost;
  getStream: SessionGetStream;
}

/** What an {@linkcode McpEndpoint} routes to, as `createHttpHandler` assembled it from its options. */
export interface McpEndpointParts {
  server: HttpDispatcher;
  /** The endpoint's path; `undefined`: every path. */
  path: string | undefined;
  maxBodyBytes: number;
  shutdownTimeout: number;
  time: TimeProvider;
  report: (error: Error) => void;
  guard: OriginGuard;
  cors: CorsPolicy | undefined;
  requests: InFlightRequests;
  streams: LongStreams;
  modern: ModernPost;
  stateless: StatelessLegacyPost;
  /** The session parts, when sessions are on. */
  sessions: SessionParts | undefined;
}

/**
 * One endpoint: each request to its part.
 *
 * @example
 * ```ts
 * declare const parts: McpEndpointParts, request: RequestParts;
 * const endpoint = new McpEndpoint(parts);
 * const response = await endpoint.handle(request);
 * ```
 */
export class McpEndpoint {
  readonly #parts: McpEndpointParts;
  readonly #pathnames = new RecentValues((url) => new URL(url).pathname);
  readonly #postAccepts = new RecentValues((accept) =>
    acceptsAny(accept, ["application/json", "text/event-stream"])
  );
  #closing: Promise<void> | undefined;
  #markClosed!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.#markClosed = resolve));

  constructor(parts: McpEndpointParts) {
    this.#parts = parts;
  }

  get sessionCount(): number {
    return this.#parts.sessions?.sessions.size ?? 0;
  }

  get streamCount(): number {
    return this.#parts.streams.size;
  }

  /** The answer to `request` (without a promise hop when it is known at once). */
  handle(request: RequestParts): Promise<Response | TextReply> | Response {
    const { path, cors } = this.#parts;
    if (path !== undefined && this.#pathnames.of(request.url) !== path) {
      // not ours: refused unread
      return refusedUnread(
        request,
        new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain" } }),
      );
    }
    if (!cors) return this.#route(request);
    const preflight = cors.preflight(request);
    if (preflight) return preflight;
    return this.#withCors(cors, request);
  }

  /** Adds this endpoint's CORS headers (when it has a policy) to a response made in front of it. */
  readonly applyCors: ApplyCors = (request, response) =>
    this.#parts.cors === undefined ? response : this.#parts.cors.apply(request, response);

  async #withCors(cors: CorsPolicy, request: RequestParts): Promise<Response> {
    const response = await this.#route(request);
    return cors.apply(request, response instanceof Response ? response : response.toResponse());
  }

  #route(request: RequestParts): Promise<Response | TextReply> | Response {
    const refused = this.#parts.guard.refuse(request);
    if (refused) return refusedUnread(request, refused);
    if (this.#closing && request.method !== "POST") return unavailable();
    const sessions = this.#parts.sessions;
    switch (request.method) {
      case "POST":
        return this.#post(request);
      case "GET":
        return sessions ? sessions.getStream.get(request) : Promise.resolve(this.#notAllowed("GET"));
      case "DELETE":
        return sessions ? sessions.sessions.delete(request) : Promise.resolve(this.#notAllowed("DELETE"));
      default:
        return refusedUnread(request, this.#notAllowed(request.method));
    }
  }

  #notAllowed(method: string): Response {
    return methodNotAllowed(method, this.#parts.sessions ? ["GET", "POST", "DELETE"] : ["POST"]);
  }

  async #post(request: RequestParts): Promise<Response | TextReply> {
    const { maxBodyBytes, server } = this.#parts;
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
    let body: JsonBody;
    try {
      body = await readJsonBody(request, { maxBodyBytes });
      if (body.batch) {
        return invalidRequest(
          undefined,
          "Invalid request: JSON-RPC batches are not supported; send one message per POST",
        );
      }
      message = body.value;
    } catch (error) {
      if (error instanceof BodyTooLargeError) return payloadTooLarge(maxBodyBytes);
      if (error instanceof ParseError || error instanceof InvalidUtf8Error) {
        return parseError(`Parse error: ${error.message}`);
      }
      // The upload broke off (client gone, connection reset): nobody may read this answer, but it is one.
      this.#parts.report(asError(error));
      return invalidRequest(
        undefined,
        `Invalid request: the body could not be read: ${asError(error).message}`,
      );
    }
    const classified: ClassifiedMessage & { cancelledIdLiteral?: string } = classifyMessage(message);
    if (classified.kind === "invalid") {
      return invalidRequest(classified.id, `Invalid request: ${classified.reason}`);
    }
    // Ids JSON.parse rounded are kept as written: in-flight keys and replies use that text.
    if (body.idLiteral !== undefined && classified.kind === "request") {
      classified.request.idLiteral = body.idLiteral;
    }
    if (body.cancelledIdLiteral !== undefined) classified.cancelledIdLiteral = body.cancelledIdLiteral;
    // While closing, only replies to server-to-client requests get in: the requests waiting for them may finish.
    if (this.#closing && classified.kind !== "result" && classified.kind !== "error") return unavailable();
    const headerVersion = request.headers.get(McpHeaders.protocolVersion)?.trim() ?? null;
    const params = classified.kind === "request"
      ? classified.request.params
      : classified.kind === "notification"
      ? classified.params
      : undefined;
    const legacy = server.versions.legacy.length > 0 &&
      !hasEnvelopeClaim(params) &&
      (headerVersion === null || (LEGACY_VERSIONS as readonly string[]).includes(headerVersion));
    return legacy
      ? this.#legacyPost(request, message, classified, headerVersion)
      : this.#parts.modern.post(request, message, classified);
  }

  #legacyPost(
    request: RequestParts,
    message: unknown,
    classified: PostedMessage,
    headerVersion: string | null,
  ): Response | Promise<Response | TextReply> {
    const { server, sessions, stateless } = this.#parts;
    const isInitialize = classified.kind === "request" && classified.request.method === "initialize";
    const id = idOf(classified);
    if (!isInitialize && headerVersion !== null && !server.versions.legacy.includes(headerVersion)) {
      return unsupportedProtocolVersion(id, headerVersion, server.versions.legacy);
    }
    return sessions
      ? sessions.post.post(request, message, classified, isInitialize)
      : stateless.post(request, message, classified, headerVersion);
  }

  /** The first step of a graceful stop: long streams end gracefully, now and when opened later. */
  drain(): void {
    const { streams, requests, sessions } = this.#parts;
    if (streams.draining) return;
    streams.draining = true;
    const reason = new ClosedError("The server is shutting down");
    requests.abortListens(reason);
    sessions?.sessions.closeGetStreams();
  }

  /** Graceful shutdown (once): see `HttpHandler.close`. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown().then(() => this.#markClosed());
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const { streams, requests, sessions, time, shutdownTimeout } = this.#parts;
    const reason = new ClosedError("The server is shutting down");
    requests.abortListens(reason);
    sessions?.sessions.closeGetStreams();
    const pending = requests.pending();
    if (pending.length > 0) {
      const bound = new AbortController();
      await Promise.race([
        Promise.allSettled(pending),
        delay(time, shutdownTimeout, bound.signal).catch(() => {}),
      ]);
      bound.abort();
    }
    requests.cancelAll(reason);
    sessions?.sessions.endAll(reason);
    // Long streams whose client does not read their last events: ended now.
    streams.abortAll(reason);
  }
}
