/**
 * JSON-RPC 2.0 message shapes and their classification.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "./errors.ts";

/** A request id: a string or a number, never `null`. */
export type RequestId = string | number;

/** A request from the peer, after validation. */
export interface IncomingRequest {
  id: RequestId;
  method: string;
  params: unknown;
}

/** What one parsed input value turned out to be. */
export type ClassifiedMessage =
  | { kind: "request"; request: IncomingRequest }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "result"; id: RequestId; result: unknown }
  | { kind: "error"; id: RequestId | undefined; error: JsonRpcError }
  | { kind: "invalid"; id: RequestId | undefined; reason: string };

/** True for a value usable as a request id. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** A map key that keeps `1` and `"1"` apart. */
export function idKey(id: RequestId): string {
  return typeof id === "number" ? `n:${id}` : `s:${id}`;
}

/** Sorts a parsed JSON value into request, notification, response or invalid (with the id when readable). */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (Array.isArray(value)) return { kind: "invalid", id: undefined, reason: "JSON-RPC batches are not supported" };
  if (typeof value !== "object" || value === null) return { kind: "invalid", id: undefined, reason: "A message must be a JSON object" };
  const m = value as Record<string, unknown>;
  const readableId = isRequestId(m.id) ? m.id : undefined;
  if (m.jsonrpc !== "2.0") return { kind: "invalid", id: readableId, reason: 'The member "jsonrpc" must be "2.0"' };
  if ("method" in m) {
    if (typeof m.method !== "string") return { kind: "invalid", id: readableId, reason: 'The member "method" must be a string' };
    if (!("id" in m) || m.id === undefined) return { kind: "notification", method: m.method, params: m.params };
    if (readableId === undefined) return { kind: "invalid", id: undefined, reason: "A request id must be a string or a number" };
    return { kind: "request", request: { id: readableId, method: m.method, params: m.params } };
  }
  if ("error" in m) {
    const e = m.error as Record<string, unknown> | null;
    if (typeof e !== "object" || e === null || typeof e.code !== "number") {
      return { kind: "invalid", id: readableId, reason: "An error response needs an error object with a numeric code" };
    }
    const message = typeof e.message === "string" ? e.message : "";
    return { kind: "error", id: readableId, error: new JsonRpcError(e.code, message, e.data) };
  }
  if ("result" in m) {
    if (readableId === undefined) return { kind: "invalid", id: undefined, reason: "A result response needs a string or number id" };
    return { kind: "result", id: readableId, result: m.result };
  }
  return { kind: "invalid", id: readableId, reason: "A message needs a method, a result or an error" };
}

/** An error response; `id` is omitted when it could not be read. */
export function errorResponse(id: RequestId | undefined, code: number, message: string, data?: unknown): Record<string, unknown> {
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
