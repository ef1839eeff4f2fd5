/**
 * Request ids JSON.parse cannot hold exactly (an integer beyond 2^53, say 9007199254740995, reads as
 * 9007199254740996): their text as the client wrote it, found in a body's text, and written back
 * byte for byte in the reply, as the stdio transport does (`IncomingRequest.idLiteral`).
 * @module
 */
import { type IncomingRequest, MAX_ID_LENGTH, type RequestId } from "../wire/json_rpc_message.ts";
import { JsonText } from "../wire/json_text.ts";
import { isPlainObject } from "../wire/meta_envelope.ts";
import { nestedMemberLiteral, scanMessageHead } from "../wire/scan_message_head.ts";

/**
 * The text of the top-level `id` of `value` (parsed from `text`) when it is a number JSON.parse
 * rounded; `undefined` for every other id (and for a text longer than a request id may be).
 */
export function requestIdLiteral(value: unknown, text: string): string | undefined {
  if (!isPlainObject(value) || typeof value.id !== "number" || Number.isSafeInteger(value.id)) {
    return undefined;
  }
  return exactText(scanMessageHead(text).idLiteral, value.id);
}

/**
 * The text of `params.requestId` of a `notifications/cancelled` `value` (parsed from `text`) when it
 * is a number JSON.parse rounded; `undefined` otherwise.
 */
export function cancelledIdLiteral(value: unknown, text: string): string | undefined {
  if (!isPlainObject(value) || value.method !== "notifications/cancelled" || !isPlainObject(value.params)) {
    return undefined;
  }
  const requestId = value.params.requestId;
  if (typeof requestId !== "number" || Number.isSafeInteger(requestId)) return undefined;
  return exactText(nestedMemberLiteral(text, "params", "requestId"), requestId);
}

/** The id a reply to `request` carries: its exact text when JSON.parse rounded it, else the id. */
export function exactId(request: IncomingRequest): RequestId | JsonText {
  return request.idLiteral === undefined ? request.id : new JsonText(request.idLiteral);
}

/**
 * The JSON text of reply `message`, its `id` written as `idText` when given (the exact text of a
 * rounded id) and a result already serialised (`JsonText`) spliced in as it is; the same bytes
 * `JSON.stringify` gives otherwise.
 */
export function messageText(message: Record<string, unknown>, idText?: string): string {
  const result = message.result;
  if (idText === undefined && !(result instanceof JsonText)) return JSON.stringify(message);
  const head = `{"jsonrpc":${JSON.stringify(message.jsonrpc)},"id":${idText ?? JSON.stringify(message.id)}`;
  if (result instanceof JsonText) return `${head},"result":${result.text}}`;
  const { jsonrpc: _jsonrpc, id: _id, ...rest } = message;
  const body = JSON.stringify(rest); // throws for a BigInt or a cycle, as JSON.stringify(message) would
  return body.length > 2 ? `${head},${body.slice(1)}` : `${head}}`;
}

function exactText(literal: string | undefined, parsed: number): string | undefined {
  if (literal === undefined || literal.length > MAX_ID_LENGTH || literal === String(parsed)) return undefined;
  return literal;
}
