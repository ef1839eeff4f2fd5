/**
 * The answers `createHttpHandler` makes itself, beyond the JSON-RPC error table of `http_errors.ts`:
 * 202 for a message taken, 503 while shutting down, 409 for a second GET stream, 400 for a stream
 * that cannot be resumed, 404 for an unknown session, 429 past a stream or session bound.
 * @module
 */
import { errorResponse } from "../../wire/json_rpc_message.ts";
import { httpError } from "../http_errors.ts";
import type { RequestParts } from "./request_parts.ts";

/** `response` once `request`'s body is cancelled unread (a failing cancel changes nothing). */
export async function refusedUnread(request: RequestParts, response: Response): Promise<Response> {
  await request.body?.cancel().catch(() => {});
  return response;
}

/** 202: a notification or a reply, taken. */
export function accepted(): Response {
  return new Response(null, { status: 202 });
}

/** 503: the server is shutting down. */
export function unavailable(): Response {
  return new Response(
    JSON.stringify(errorResponse(undefined, -32000, "Service unavailable: the server is shutting down")),
    {
      status: 503,
      headers: { "Content-Type": "application/json", Connection: "close" },
    },
  );
}

/** 409 with `message`. */
export function conflict(message: string): Response {
  return new Response(JSON.stringify(errorResponse(undefined, -32000, message)), {
    status: 409,
    headers: { "Content-Type": "application/json" },
  });
}

/** 400 for a `Last-Event-ID` that cannot be resumed (unknown, another session's, or evicted): nothing replayed. */
export function notResumable(message: string): Response {
  return new Response(JSON.stringify(errorResponse(undefined, -32000, message)), {
    status: 400,
    headers: { "Content-Type": "application/json" },
  });
}

/** 404 for a session that ended, never existed, or is another principal's. */
export function sessionNotFound(id: unknown): Response {
  return httpError("sessionNotFound", id, {
    message: "Session not found: it ended or never existed; send initialize to start a new one",
  });
}

/** 429: `max` long streams are open. */
export function tooManyStreams(id: unknown, max: number): Response {
  return httpError("tooManyStreams", id, {
    message: `Too many open streams: this server keeps at most ${max}; close one and retry`,
    headers: { "Retry-After": "5" },
  });
}

/** 429: `max` sessions are live. */
export function tooManySessions(id: unknown, max: number): Response {
  return httpError("tooManyStreams", id, {
    message: `Too many sessions: this server keeps at most ${max}; end one (DELETE) and retry`,
    headers: { "Retry-After": "5" },
  });
}
