/**
 * The request metadata headers of the 2026-07-28 Streamable HTTP transport: derived from a JSON-RPC
 * body on the client, checked against the body on the server (HeaderMismatch, -32020).
 * @module
 */
import { JsonRpcError, ProtocolError } from "../wire/errors.ts";
import { MetaKeys } from "../wire/protocol_versions.ts";
import {
  decodeHeaderValue,
  encodeHeaderValue,
  headerTextOf,
  headerValueMatches,
} from "./header_value_codec.ts";
import { argumentAt, type ParamHeader } from "./mcp_header_annotations.ts";

/** The header names of both HTTP eras, spelled as the specifications spell them. */
export const McpHeaders = {
  protocolVersion: "MCP-Protocol-Version",
  method: "Mcp-Method",
  name: "Mcp-Name",
  paramPrefix: "Mcp-Param-",
  sessionId: "Mcp-Session-Id",
  lastEventId: "Last-Event-ID",
} as const;

/** The JSON-RPC error code of a header that is missing, malformed or different from the body. */
export const HEADER_MISMATCH = -32020;

/** Methods whose `Mcp-Name` header mirrors a body field, and which field. */
const NAME_SOURCES: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // The tasks extension (SEP-2663): routing by task id.
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/** Options of {@linkcode deriveRequestHeaders}. */
export interface DeriveRequestHeadersOptions {
  /** `MCP-Protocol-Version` when the body's `_meta` carries no protocol version. */
  protocolVersion?: string;
  /** The called tool's mirrored parameters (from `readMcpHeaderAnnotations`); used for `tools/call` only. */
  paramHeaders?: readonly ParamHeader[];
}

/**
 * The metadata headers for one outgoing message: `MCP-Protocol-Version` (from
 * `params._meta["io.modelcontextprotocol/protocolVersion"]`, else `options.protocolVersion`),
 * `Mcp-Method`, `Mcp-Name` (`params.name` of `tools/call` and `prompts/get`, `params.uri` of
 * `resources/read`) and, for `tools/call`, one `Mcp-Param-{Name}` per mirrored argument that is
 * present and not `null`. Values are encoded with `encodeHeaderValue`. Throws `ProtocolError`
 * naming the header when a mirrored argument is not a string, boolean or safe integer.
 *
 * @example
 * ```ts
 * const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
 * const headers = deriveRequestHeaders(
 *   { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sql", arguments: { region: "eu" }, _meta } },
 *   { paramHeaders: [{ name: "Region", path: ["region"] }] },
 * ); // { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "sql", "Mcp-Param-Region": "eu" }
 * ```
 */
export function deriveRequestHeaders(
  message: unknown,
  options: DeriveRequestHeadersOptions = {},
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!isObject(message)) return headers;
  const params = isObject(message.params) ? message.params : undefined;
  const version = bodyProtocolVersion(params) ?? options.protocolVersion;
  if (version !== undefined) headers[McpHeaders.protocolVersion] = version;
  if (typeof message.method !== "string") return headers;
  headers[McpHeaders.method] = message.method;
  const source = NAME_SOURCES[message.method];
  const name = source === undefined ? undefined : params?.[source];
  if (typeof name === "string") headers[McpHeaders.name] = encodeHeaderValue(name);
  if (message.method === "tools/call") {
    for (const param of options.paramHeaders ?? []) {
      const value = argumentAt(params?.arguments, param.path);
      if (value === undefined || value === null) continue;
      const header = McpHeaders.paramPrefix + param.name;
      const text = headerTextOf(value);
      if (text === undefined) {
        const shown = typeof value === "number"
          ? String(value)
          : (JSON.stringify(value)?.slice(0, 60) ?? typeof value);
        throw new ProtocolError(
          `Argument for ${header} cannot be sent as a header: ${shown} is not a string, boolean or safe integer`,
        );
      }
      headers[header] = encodeHeaderValue(text);
    }
  }
  return headers;
}

/** Options of {@linkcode validateRequestHeaders}. */
export interface ValidateRequestHeadersOptions {
  /**
   * The called tool's mirrored parameters; checked for `tools/call` only. Default none.
   * @default none
   */
  paramHeaders?: readonly ParamHeader[];
  /**
   * Longest raw header value accepted, in characters. Default 8192.
   * @default 8192
   */
  maxHeaderValueLength?: number;
}

/** What {@linkcode validateRequestHeaders} puts in `error.data`. */
export interface HeaderMismatchData {
  /** The header, as the specification spells it. */
  header: string;
  /** `missing`: required and absent; `invalid`: undecodable or bad characters; `mismatch`: differs from the body. */
  reason: "missing" | "invalid" | "mismatch";
  /** The header value as received (trimmed), when there was one. */
  headerValue?: string;
  /** The body value it was compared with, when there was one. */
  bodyValue?: unknown;
}

/**
 * Checks a modern request's metadata headers against its body and returns the HeaderMismatch
 * error (-32020, `data` per {@linkcode HeaderMismatchData}) for the first header that is missing,
 * malformed or different, or `undefined` when all agree. Header names compare ignoring case,
 * values exactly (after optional whitespace is trimmed); `Mcp-Name` and `Mcp-Param-*` are decoded
 * from `=?base64?…?=` first, and integer parameters compare numerically.
 *
 * Checked: `MCP-Protocol-Version` equals the body's `_meta` protocol version; `Mcp-Method` equals
 * `method`; `Mcp-Name` equals `params.name`/`params.uri` for `tools/call`, `prompts/get`,
 * `resources/read` (required when the body has the value, refused when the body lacks it); and for
 * `tools/call` each of `paramHeaders`: required when the argument is present and not `null`,
 * refused when it is absent. `Mcp-Param-*` headers no parameter declares are ignored. Messages
 * without an id (notifications) are not checked: this revision defines no headers for them.
 */
export function validateRequestHeaders(
  headers: Pick<Headers, "get">,
  message: unknown,
  options: ValidateRequestHeadersOptions = {},
): JsonRpcError | undefined {
  if (!isObject(message) || message.id === undefined || typeof message.method !== "string") return undefined;
  const params = isObject(message.params) ? message.params : undefined;
  const maxLength = options.maxHeaderValueLength;

  const version = readPlain(headers, McpHeaders.protocolVersion);
  const bodyVersion = bodyProtocolVersion(params);
  if (version === undefined) {
    return mismatch({ header: McpHeaders.protocolVersion, reason: "missing", bodyValue: bodyVersion });
  }
  if (version !== bodyVersion) {
    return mismatch({
      header: McpHeaders.protocolVersion,
      reason: "mismatch",
      headerValue: version,
      bodyValue: bodyVersion,
    });
  }

  const method = readPlain(headers, McpHeaders.method);
  if (method === undefined) {
    return mismatch({ header: McpHeaders.method, reason: "missing", bodyValue: message.method });
  }
  if (method !== message.method) {
    return mismatch({
      header: McpHeaders.method,
      reason: "mismatch",
      headerValue: method,
      bodyValue: message.method,
    });
  }

  const source = NAME_SOURCES[message.method];
  if (source !== undefined) {
    const problem = checkMirrored(headers, McpHeaders.name, params?.[source], maxLength);
    if (problem) return problem;
  }
  if (message.method === "tools/call") {
    for (const param of options.paramHeaders ?? []) {
      const problem = checkMirrored(
        headers,
        McpHeaders.paramPrefix + param.name,
        argumentAt(params?.arguments, param.path),
        maxLength,
      );
      if (problem) return problem;
    }
  }
  return undefined;
}

/** The HeaderMismatch error for `data`, with a message naming the header and both values. */
export function headerMismatchError(data: HeaderMismatchData): JsonRpcError {
  return mismatch(data);
}

function checkMirrored(
  headers: Pick<Headers, "get">,
  header: string,
  bodyValue: unknown,
  maxLength: number | undefined,
): JsonRpcError | undefined {
  const raw = headers.get(header);
  const absentInBody = bodyValue === undefined || bodyValue === null;
  if (raw === null) return absentInBody ? undefined : mismatch({ header, reason: "missing", bodyValue });
  const decoded = decodeHeaderValue(raw, { maxLength });
  if (!decoded.ok) return mismatch({ header, reason: "invalid", headerValue: raw.trim() }, decoded.reason);
  if (absentInBody || !headerValueMatches(decoded.value, bodyValue)) {
    return mismatch({
      header,
      reason: "mismatch",
      headerValue: decoded.value,
      ...(absentInBody ? {} : { bodyValue }),
    });
  }
  return undefined;
}

function readPlain(headers: Pick<Headers, "get">, name: string): string | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  return isBlank(raw.charCodeAt(0)) || isBlank(raw.charCodeAt(raw.length - 1))
    ? raw.replace(/^[ \t]+|[ \t]+$/g, "")
    : raw;
}

/** Space or tab (what HTTP trims around a header value). */
function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

function mismatch(data: HeaderMismatchData, detail?: string): JsonRpcError {
  let message: string;
  if (data.reason === "missing") {
    message = `Header mismatch: ${data.header} header is missing; the body value is ${show(data.bodyValue)}`;
  } else if (data.reason === "invalid") {
    message = `Header mismatch: ${data.header} header value ${show(data.headerValue)} is invalid: ${detail}`;
  } else if (data.bodyValue === undefined) {
    message = `Header mismatch: ${data.header} header value ${
      show(data.headerValue)
    } has no value in the body`;
  } else {message = `Header mismatch: ${data.header} header value ${
      show(data.headerValue)
    } does not match body value ${show(data.bodyValue)}`;}
  const clean: HeaderMismatchData = { header: data.header, reason: data.reason };
  if (data.headerValue !== undefined) clean.headerValue = data.headerValue;
  if (data.bodyValue !== undefined) clean.bodyValue = data.bodyValue;
  return new JsonRpcError(HEADER_MISMATCH, message, clean);
}

function bodyProtocolVersion(params: Record<string, unknown> | undefined): string | undefined {
  const meta = params?._meta;
  const version = isObject(meta) ? meta[MetaKeys.protocolVersion] : undefined;
  return typeof version === "string" ? version : undefined;
}

function show(value: unknown): string {
  if (value === undefined) return "absent";
  if (typeof value === "string") return `'${value.length > 100 ? `${value.slice(0, 100)}…` : value}'`;
  return JSON.stringify(value)?.slice(0, 100) ?? String(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
