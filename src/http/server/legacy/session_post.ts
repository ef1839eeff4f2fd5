/**
 * `SessionPost`: a legacy POST on an endpoint with sessions: `initialize` mints `Mcp-Session-Id`,
 * every later message names it; a request runs on its session (a dropped response is no cancel,
 * `notifications/cancelled` is), its server-to-client requests travel on its SSE stream, and the
 * replies to them come back as POSTs (202).
 * @module
 */
import { asError, ClosedError, ErrorCodes, JsonRpcError } from "../../../wire/errors.ts";
import type { RequestId } from "../../../wire/json_rpc_message.ts";
import type { JsonText } from "../../../wire/json_text.ts";
import { isPlainObject } from "../../../wire/meta_envelope.ts";
import { exactId } from "../../exact_id_text.ts";
import { invalidRequest } from "../../http_errors.ts";
import { McpHeaders } from "../../mcp_request_headers.ts";
import { notificationOf } from "../channel_dispatch_context.ts";
import { accepted, tooManySessions } from "../endpoint_responses.ts";
import type { DispatchContext } from "../http_dispatcher.ts";
import type { InFlightRequests } from "../in_flight_requests.ts";
import {
  type PostedMessage,
  principalOf,
  type RequestParts,
  takesTextReply,
  type TextReply,
} from "../request_parts.ts";
import { ResponseChannel } from "../response_channel.ts";
import type { SseStreamOptions } from "../sse/sse_stream.ts";
import type { LegacyHttpSession } from "./legacy_http_session.ts";
import type { LegacySessions } from "./legacy_sessions.ts";
import type { ResumableSessionStreams } from "./resumable_session_streams.ts";

/** What a {@linkcode SessionPost} works with. */
export interface SessionPostParts {
  sessions: LegacySessions;
  requests: InFlightRequests;
  sse: SseStreamOptions;
  /** The resumable streams, when the endpoint keeps events. */
  resumable: ResumableSessionStreams | undefined;
}

/**
 * Answers legacy POSTs on sessions: 400 without `Mcp-Session-Id`, 404 for an unknown or ended one,
 * 429 for an `initialize` past the session bound.
 *
 * @example
 * ```ts
 * declare const sessions: LegacySessions, requests: InFlightRequests, request: RequestParts, message: unknown;
 * const sessionPost = new SessionPost({ sessions, requests, sse: {}, resumable: undefined });
 * const response = sessionPost.post(request, message, classifyMessage(message) as PostedMessage, false);
 * ```
 */
export class SessionPost {
  readonly #parts: SessionPostParts;

  constructor(parts: SessionPostParts) {
    this.#parts = parts;
  }

  /** The answer to `request` carrying `message` (sorted as `classified`). */
  post(
    request: RequestParts,
    message: unknown,
    classified: PostedMessage,
    isInitialize: boolean,
  ): Response | Promise<Response | TextReply> {
    const { sessions } = this.#parts;
    const table = sessions.table;
    const requestId = idOf(classified);
    let session: LegacyHttpSession | undefined;
    if (isInitialize) {
      session = table.create();
      if (!session) return tooManySessions(requestId, table.maxSessions);
      session.principal = principalOf(request);
      sessions.register(session);
    } else {
      const found = sessions.find(request, requestId);
      if (found instanceof Promise) {
        return found.then((adopted) =>
          adopted instanceof Response
            ? adopted
            : this.#message(adopted, request, message, classified, isInitialize)
        );
      }
      if (found instanceof Response) return found;
      session = found;
    }
    return this.#message(session, request, message, classified, isInitialize);
  }

  #message(
    session: LegacyHttpSession,
    request: RequestParts,
    message: unknown,
    classified: PostedMessage,
    isInitialize: boolean,
  ): Response | Promise<Response | TextReply> {
    const { sessions, requests, resumable } = this.#parts;
    if (classified.kind === "result" || classified.kind === "error") {
      const outcome = classified.kind === "result"
        ? { result: classified.result }
        : { error: classified.error };
      if (!session.settle(classified.id, outcome)) {
        const relay = sessions.relay;
        if (relay && classified.id !== undefined) {
          // The request may wait on another replica: it settles there.
          relay.publish({ sessionId: session.id, id: classified.id, outcome }).catch((error: unknown) =>
            sessions.report(asError(error))
          );
          return accepted();
        }
        sessions.report(
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
      if (classified.method === "notifications/cancelled" && isPlainObject(classified.params)) {
        session.cancel(classified.params.requestId, classified.params.reason, classified.cancelledIdLiteral);
      }
      const notified = session;
      requests.notifyInBackground(message, session, session.signal, () => sessions.persist(notified));
      return accepted();
    }
    const { id, idLiteral } = classified.request;
    const controller = session.track(id, idLiteral);
    if (!controller) {
      return invalidRequest(
        exactId(classified.request),
        `Invalid request: request id ${idLiteral ?? JSON.stringify(id)} is already in flight on this session`,
      );
    }
    const done = session.begin();
    const live = session;
    const channel = new ResponseChannel({
      sse: this.#parts.sse,
      headers: isInitialize ? { [McpHeaders.sessionId]: session.id } : undefined,
      textReply: takesTextReply(request),
      stream: resumable ? () => resumable.open(live) : undefined,
      idLiteral,
    });
    const context: DispatchContext = {
      session,
      principal: principalOf(request),
      networkTransport: "tcp",
      signal: controller.signal,
      notify: (notification, notificationParams) =>
        channel.notify(notificationOf(notification, notificationParams)),
      get answered() {
        return channel.replied;
      },
      request: (method, params, options) => live.request(channel, method, params, options?.signal),
      closeStream: () => channel.detach(),
    };
    const entry = requests.run(id, message, context, channel, controller, false, (reply) => {
      if (isInitialize && (reply === undefined || "error" in reply)) {
        live.end(new ClosedError(`The session ${live.id} was not initialized`));
      }
    });
    void entry.done.then(() => {
      live.untrack(id, idLiteral);
      done();
      sessions.persist(live);
    });
    return channel.response;
  }
}

/** The id a refusal of a message carries, when it has a readable one (a request's as written). */
export function idOf(classified: PostedMessage): RequestId | JsonText | undefined {
  return classified.kind === "request"
    ? exactId(classified.request)
    : classified.kind === "notification"
    ? undefined
    : classified.id;
}
