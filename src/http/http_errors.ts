/**
 * Every HTTP answer of the Streamable HTTP endpoint that is not a handled request, from one table:
 * status, JSON-RPC error code, default message and extra headers. Each answer is a `Response` whose
 * body is a JSON-RPC error response echoing the request id when it could be read.
 * @module
 */
import { ErrorCodes, type JsonRpcError } from "../wire/errors.ts";

/**
 * Response headers as the `Headers` constructor takes them. Spelled out instead of the DOM's
 * `HeadersInit`, which a Node project without the DOM lib does not have.
 */
export type HeaderFields = Headers | Record<string, string> | Array<[string, string]>;
import { errorResponse, isRequestId, type RequestId } from "../wire/json_rpc_message.ts";
import { JsonText } from "../wire/json_text.ts";
import { quotePeerText } from "../wire/quote_peer_text.ts";
import { messageText } from "./exact_id_text.ts";
import { HEADER_MISMATCH } from "./mcp_request_headers.ts";

/** One row of {@linkcode HTTP_ERRORS}. */
export interface HttpErrorRow {
  readonly status: number;
  readonly code: number;
  readonly message: string;
}

/** The JSON-RPC code for transport-level refusals that JSON-RPC has no code for (as the official SDKs use). */
export const TRANSPORT_ERROR_CODE = -32000;
/** The JSON-RPC code of an unknown or ended legacy session (as the official SDKs use). */
export const SESSION_NOT_FOUND_CODE = -32001;

/**
 * The table. Modern-era rows follow the 2026-07-28 transport page (DESIGN.md "Streamable HTTP");
 * the transport rows (403, 405, 406, 413, 415, 429, 404 session) use -32000/-32001 like the SDKs.
 */
export const HTTP_ERRORS = {
  parseError: { status: 400, code: ErrorCodes.ParseError, message: "Parse error" },
  invalidRequest: { status: 400, code: ErrorCodes.InvalidRequest, message: "Invalid request" },
  headerMismatch: { status: 400, code: HEADER_MISMATCH, message: "Header mismatch" },
  unsupportedProtocolVersion: {
    status: 400,
    code: ErrorCodes.UnsupportedProtocolVersion,
    message: "Unsupported protocol version",
  },
  missingRequiredClientCapability: {
    status: 400,
    code: ErrorCodes.MissingRequiredClientCapability,
    message: "Missing required client capability",
  },
  invalidParams: { status: 400, code: ErrorCodes.InvalidParams, message: "Invalid params" },
  sessionRequired: {
    status: 400,
    code: TRANSPORT_ERROR_CODE,
    message: "Bad Request: Mcp-Session-Id header is required",
  },
  forbidden: { status: 403, code: TRANSPORT_ERROR_CODE, message: "Forbidden" },
  methodNotFound: { status: 404, code: ErrorCodes.MethodNotFound, message: "Method not found" },
  sessionNotFound: { status: 404, code: SESSION_NOT_FOUND_CODE, message: "Session not found" },
  methodNotAllowed: { status: 405, code: TRANSPORT_ERROR_CODE, message: "Method not allowed" },
  notAcceptable: {
    status: 406,
    code: TRANSPORT_ERROR_CODE,
    message: "Not Acceptable: the client must accept application/json and text/event-stream",
  },
  payloadTooLarge: { status: 413, code: TRANSPORT_ERROR_CODE, message: "Payload too large" },
  unsupportedMediaType: {
    status: 415,
    code: TRANSPORT_ERROR_CODE,
    message: "Unsupported Media Type: Content-Type must be application/json",
  },
  tooManyStreams: { status: 429, code: TRANSPORT_ERROR_CODE, message: "Too many open streams" },
} as const satisfies Record<string, HttpErrorRow>;

/** A row name of {@linkcode HTTP_ERRORS}. */
export type HttpErrorKind = keyof typeof HTTP_ERRORS;

/** Options of {@linkcode httpError}. */
export interface HttpErrorOptions {
  /** Replaces the row's default message. */
  message?: string;
  /** `error.data`. */
  data?: unknown;
  /** Extra response headers (e.g. `Allow`, `Retry-After`). */
  headers?: HeaderFields;
}

/**
 * The `Response` for one row of the table: its status, `Content-Type: application/json`, and a
 * JSON-RPC error response whose `id` is `id` when it is a string or a number, its text when it is a
 * `JsonText` (the exact text of an id JSON.parse rounded), omitted otherwise.
 *
 * @example
 * ```ts
 * const tooLarge: Response = httpError("payloadTooLarge", undefined, { message: "Body exceeds 4194304 bytes" });
 * ```
 */
export function httpError(kind: HttpErrorKind, id: unknown, options: HttpErrorOptions = {}): Response {
  const row: HttpErrorRow = HTTP_ERRORS[kind];
  const readableId: RequestId | undefined = isRequestId(id) ? id : undefined;
  const body = errorResponse(readableId, row.code, options.message ?? row.message, options.data);
  const headers = new Headers(options.headers);
  headers.set("Content-Type", "application/json");
  // A JsonText id is the exact text of an id JSON.parse rounded: written back as the client wrote it.
  const text = id instanceof JsonText ? messageText(body, id.text) : JSON.stringify(body);
  return new Response(text, { status: row.status, headers });
}

/** The `Response` for a JSON-RPC error raised before the request was handled: its code picks the row (400 when unknown). */
export function httpErrorFor(error: JsonRpcError, id: unknown): Response {
  const kind = (Object.keys(HTTP_ERRORS) as HttpErrorKind[]).find((k) =>
    HTTP_ERRORS[k].code === error.code && HTTP_ERRORS[k].code !== TRANSPORT_ERROR_CODE
  );
  const row: HttpErrorRow = kind
    ? HTTP_ERRORS[kind]
    : { status: 400, code: error.code, message: error.message };
  const readableId = isRequestId(id) ? id : undefined;
  const body = errorResponse(readableId, error.code, error.message, error.data);
  return new Response(JSON.stringify(body), {
    status: row.status,
    headers: { "Content-Type": "application/json" },
  });
}

/** 400/-32020: the HeaderMismatch error from `validateRequestHeaders`. */
export function headerMismatch(id: unknown, error: JsonRpcError): Response {
  return httpError("headerMismatch", id, { message: error.message, data: error.data });
}

/** 400/-32022 with `data.supported` and `data.requested`. */
export function unsupportedProtocolVersion(
  id: unknown,
  requested: string,
  supported: readonly string[],
): Response {
  return httpError("unsupportedProtocolVersion", id, {
    message: `Unsupported protocol version ${JSON.stringify(requested)}; supported: ${supported.join(", ")}`,
    data: { supported: [...supported], requested },
  });
}

/** 400/-32021 with `data.requiredCapabilities`. */
export function missingRequiredClientCapability(
  id: unknown,
  requiredCapabilities: Record<string, unknown>,
): Response {
  return httpError("missingRequiredClientCapability", id, {
    message: `Missing required client capability: ${Object.keys(requiredCapabilities).join(", ")}`,
    data: { requiredCapabilities },
  });
}

/** 400/-32602, e.g. a required `_meta` key missing. */
export function invalidParams(id: unknown, message: string, data?: unknown): Response {
  return httpError("invalidParams", id, { message, data });
}

/** 400/-32700: the body was empty, not UTF-8 or not JSON. Never carries an id. */
export function parseError(message = "Parse error"): Response {
  return httpError("parseError", undefined, { message });
}

/** 400/-32600: the body was JSON but not one valid JSON-RPC message (a batch, a response, …). */
export function invalidRequest(id: unknown, message: string): Response {
  return httpError("invalidRequest", id, { message });
}

/** 404/-32601 for `method` (including `initialize` and `ping` on a modern-only server). */
export function methodNotFound(id: unknown, method: string): Response {
  return httpError("methodNotFound", id, { message: `Method not found: ${quotePeerText(method)}` });
}

/** 405 with `Allow` (default `POST`), e.g. GET or DELETE on a modern-only endpoint. */
export function methodNotAllowed(method: string, allow: readonly string[] = ["POST"]): Response {
  return httpError("methodNotAllowed", undefined, {
    message: `Method not allowed: ${method}; this endpoint accepts ${allow.join(", ")}`,
    headers: { Allow: allow.join(", ") },
  });
}

/**
 * 413: the body is over `limitBytes`. With `Connection: close`: the rest of the body is not read, so
 * the connection cannot carry another request (a server lingers, reading it away, before closing).
 */
export function payloadTooLarge(limitBytes: number, id?: unknown): Response {
  return httpError("payloadTooLarge", id, {
    message: `Payload too large: the body exceeds ${limitBytes} bytes`,
    headers: { Connection: "close" },
  });
}

/** 403 for a refused `Origin` or `Host`, without an id as the specification says. */
export function forbidden(reason: string): Response {
  return httpError("forbidden", undefined, { message: `Forbidden: ${reason}` });
}

/** 202 Accepted with no body: a notification (or, in the legacy era, a response) was accepted. */
export function accepted(): Response {
  return new Response(null, { status: 202 });
}
