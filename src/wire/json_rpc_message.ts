/**
 * JSON-RPC 2.0 message shapes and their classification.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "./errors.ts";
import { JsonText } from "./json_text.ts";

/** A request id: a string or a number, never `null`. */
export type RequestId = string | number;

/** A request from the peer, after validation. */
export interface IncomingRequest {
  id: RequestId;
  method: string;
  params: unknown;
  /**
   * The id as written on the wire, kept only when `id` is a number JSON.parse could not hold exactly
   * (an integer beyond 2^53, say 9007199254740993): the reply echoes this text byte for byte.
   */
  idLiteral?: string;
}

/** The longest string id accepted, in UTF-16 code units; a longer one makes the message an Invalid Request. */
export const MAX_ID_LENGTH = 1024;

/** What one parsed input value turned out to be. */
export type ClassifiedMessage =
  | { kind: "request"; request: IncomingRequest }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "result"; id: RequestId; result: unknown }
  | { kind: "error"; id: RequestId | undefined; error: JsonRpcError }
  | { kind: "invalid"; id: RequestId | undefined; reason: string };

/** True for a value usable as a request id. */
export function isRequestId(value: unknown): value is RequestId {
  return (typeof value === "string" && value.length <= MAX_ID_LENGTH) ||
    (typeof value === "number" && Number.isFinite(value));
}

/** Why `id` (present, not null) is no request id, for an Invalid Request reply. */
function badIdReason(id: unknown): string {
  if (typeof id === "string") {
    return `A request id must be at most ${MAX_ID_LENGTH} characters, got ${id.length}`;
  }
  return "A request id must be a string or a number";
}

/** The message of the -32600 for a JSON-RPC batch where batches are not served. */
export const BATCH_REJECTED_REASON =
  "JSON-RPC batches are not supported: only protocol version 2025-03-26 allows them, and this session did not negotiate it";

/** A map key that keeps `1` and `"1"` apart. */
export function idKey(id: RequestId): string {
  return typeof id === "number" ? `n:${id}` : `s:${id}`;
}

/**
 * The in-flight key of `request`: the id's exact wire text when JSON.parse could not hold it, so
 * `9007199254740995` and `9007199254740997` (both read as 9007199254740996) stay two requests.
 */
export function requestKey(request: IncomingRequest): string {
  return request.idLiteral === undefined ? idKey(request.id) : `n:${request.idLiteral}`;
}

/** The key of a cancelled request id; `literal` is its wire text when JSON.parse could not hold it. */
export function cancelledKey(requestId: RequestId, literal: string | undefined): string {
  return typeof requestId === "number" && literal !== undefined ? `n:${literal}` : idKey(requestId);
}

/** Sorts a parsed JSON value into request, notification, response or invalid (with the id when readable). */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (Array.isArray(value)) return { kind: "invalid", id: undefined, reason: BATCH_REJECTED_REASON };
  if (typeof value !== "object" || value === null) {
    return { kind: "invalid", id: undefined, reason: "A message must be a JSON object" };
  }
  const m = value as Record<string, unknown>;
  const readableId = isRequestId(m.id) ? m.id : undefined;
  if (m.jsonrpc !== "2.0") {
    return { kind: "invalid", id: readableId, reason: 'The member "jsonrpc" must be "2.0"' };
  }
  if ("method" in m) {
    if (typeof m.method !== "string") {
      return { kind: "invalid", id: readableId, reason: 'The member "method" must be a string' };
    }
    if (!("id" in m) || m.id === undefined) {
      return { kind: "notification", method: m.method, params: m.params };
    }
    if (readableId === undefined) return { kind: "invalid", id: undefined, reason: badIdReason(m.id) };
    return { kind: "request", request: { id: readableId, method: m.method, params: m.params } };
  }
  if ("error" in m) {
    const e = m.error as Record<string, unknown> | null;
    if (typeof e !== "object" || e === null || typeof e.code !== "number") {
      return {
        kind: "invalid",
        id: readableId,
        reason: "An error response needs an error object with a numeric code",
      };
    }
    const message = typeof e.message === "string" ? e.message : "";
    return { kind: "error", id: readableId, error: new JsonRpcError(e.code, message, e.data) };
  }
  if ("result" in m) {
    if (readableId === undefined) {
      return {
        kind: "invalid",
        id: undefined,
        reason: `A result response needs a string or number id${
          typeof m.id === "string" ? ` of at most ${MAX_ID_LENGTH} characters` : ""
        }`,
      };
    }
    return { kind: "result", id: readableId, result: m.result };
  }
  return { kind: "invalid", id: readableId, reason: "A message needs a method, a result or an error" };
}

/** An error response; `id` is omitted when it could not be read. */
export function errorResponse(
  id: RequestId | undefined,
  code: number,
  message: string,
  data?: unknown,
): Record<string, unknown> {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  return id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
}

/** The error response for whatever a handler threw. */
export function errorResponseFor(id: RequestId, thrown: unknown): Record<string, unknown> {
  if (thrown instanceof JsonRpcError) return errorResponse(id, thrown.code, thrown.message, thrown.data);
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return errorResponse(id, ErrorCodes.InternalError, message || "Internal error");
}

/**
 * `reply` (a response to `request`) ready for the channel: the object itself, or, when the request's
 * id was a number JSON.parse could not hold exactly, its JSON text with the id's wire text spliced in.
 */
export function replyFor(
  request: IncomingRequest,
  reply: Record<string, unknown>,
): Record<string, unknown> | JsonText {
  if (request.idLiteral === undefined) return reply;
  const { jsonrpc: _jsonrpc, id: _id, ...rest } = reply;
  const body = JSON.stringify(rest); // throws for a BigInt or a cycle, as the channel would
  return new JsonText(
    `{"jsonrpc":"2.0","id":${request.idLiteral}${body.length > 2 ? "," + body.slice(1) : "}"}`,
  );
}
