/**
 * The modern era's per-request `_meta` envelope (protocol version, client capabilities, client info)
 * and the result `_meta` that carries the server's identity: builders for the sending side and a
 * strict reader for the receiving side. Shared by `ContextServer` and `ContextClient`.
 * @module
 */
import { type Capabilities, type Implementation, MetaKeys } from "./protocol_versions.ts";
import { quotePeerText } from "./quote_peer_text.ts";

/** The MCP logging levels, least severe first. */
export const LOGGING_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** One MCP logging level. */
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

/** What a modern request says about its sender, read from or written to `params._meta`. */
export interface RequestEnvelope {
  /** `io.modelcontextprotocol/protocolVersion`: the version this request speaks. Required. */
  protocolVersion: string;
  /** `io.modelcontextprotocol/clientCapabilities`: `{}` means none. Required. */
  clientCapabilities: Capabilities;
  /** `io.modelcontextprotocol/clientInfo`: optional, clients SHOULD send it on every request. */
  clientInfo?: Implementation;
  /** `io.modelcontextprotocol/logLevel` (deprecated): ask for `notifications/message` at this level. */
  logLevel?: LoggingLevel;
}

/** The outcome of {@linkcode readRequestEnvelope}. */
export type EnvelopeReading =
  /** `params._meta` holds none of the envelope keys: not a modern request. */
  | { kind: "none" }
  /** A well-formed envelope. */
  | { kind: "envelope"; envelope: RequestEnvelope }
  /**
   * A modern claim that is malformed (reply -32602). `protocolVersion` is set when the version key
   * itself was a readable string, so a server can check it first and answer -32022 instead.
   */
  | { kind: "malformed"; message: string; protocolVersion?: string };

/** True for a non-null object that is not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `value` is an MCP `Implementation`: an object with string `name` and `version`. */
export function isImplementation(value: unknown): value is Implementation {
  return isPlainObject(value) && typeof value.name === "string" && typeof value.version === "string";
}

/** `params._meta` when it is an object, else `undefined`. */
export function metaOf(params: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(params)) return undefined;
  const meta = params._meta;
  return isPlainObject(meta) ? meta : undefined;
}

/** The request's `_meta.progressToken` when it is a string or a number, else `undefined`. */
export function progressTokenOf(params: unknown): string | number | undefined {
  const token = metaOf(params)?.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

const ENVELOPE_KEYS = [MetaKeys.protocolVersion, MetaKeys.clientCapabilities, MetaKeys.clientInfo] as const;

/**
 * True when `params._meta` makes a modern claim: it holds the protocol version, client capabilities
 * or client info key (well-formed or not). A bare `progressToken` is no claim.
 */
export function hasEnvelopeClaim(params: unknown): boolean {
  const meta = metaOf(params);
  return meta !== undefined && ENVELOPE_KEYS.some((key) => key in meta);
}

/**
 * Reads and validates the envelope of a request's `params`. Never throws.
 *
 * Malformed: a non-object `_meta`; a modern claim whose protocol version is missing or not a
 * non-empty string; client capabilities missing or not an object; client info present but without
 * string `name` and `version`; an unknown log level; a progress token that is neither string nor number.
 *
 * @example
 * ```ts
 * declare const request: { params?: unknown }; // a JSON-RPC request as it arrived
 * const reading = readRequestEnvelope(request.params);
 * if (reading.kind === "envelope") console.log(reading.envelope.protocolVersion);
 * ```
 */
export function readRequestEnvelope(params: unknown): EnvelopeReading {
  if (isPlainObject(params) && params._meta !== undefined && !isPlainObject(params._meta)) {
    return { kind: "malformed", message: "Invalid params._meta: expected an object" };
  }
  if (!hasEnvelopeClaim(params)) return { kind: "none" };
  const meta = metaOf(params)!;
  const version = meta[MetaKeys.protocolVersion];
  const protocolVersion = typeof version === "string" && version.length > 0 ? version : undefined;
  const malformed = (message: string): EnvelopeReading => ({ kind: "malformed", message, protocolVersion });
  if (protocolVersion === undefined) {
    return malformed(
      `Invalid params._meta: "${MetaKeys.protocolVersion}" must be a non-empty string, got ${
        describe(version)
      }`,
    );
  }
  const capabilities = meta[MetaKeys.clientCapabilities];
  if (!isPlainObject(capabilities)) {
    return malformed(
      `Invalid params._meta: "${MetaKeys.clientCapabilities}" must be an object, got ${
        describe(capabilities)
      }`,
    );
  }
  const info = meta[MetaKeys.clientInfo];
  if (info !== undefined && !isImplementation(info)) {
    return malformed(
      `Invalid params._meta: "${MetaKeys.clientInfo}" must be an object with string name and version`,
    );
  }
  const level = meta[MetaKeys.logLevel];
  if (level !== undefined && !(LOGGING_LEVELS as readonly unknown[]).includes(level)) {
    return malformed(
      `Invalid params._meta: "${MetaKeys.logLevel}" must be one of ${LOGGING_LEVELS.join(", ")}, got ${
        describe(level)
      }`,
    );
  }
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== "string" && typeof token !== "number") {
    return malformed(
      `Invalid params._meta: progressToken must be a string or a number, got ${describe(token)}`,
    );
  }
  const envelope: RequestEnvelope = { protocolVersion, clientCapabilities: capabilities };
  if (info !== undefined) envelope.clientInfo = info as Implementation;
  if (level !== undefined) envelope.logLevel = level as LoggingLevel;
  return { kind: "envelope", envelope };
}

/**
 * The `_meta` object of a modern request: `extra` (e.g. a `progressToken`) plus the envelope keys.
 * The envelope keys win over same-named keys in `extra`.
 */
export function buildRequestMeta(
  envelope: RequestEnvelope,
  extra?: Record<string, unknown>,
): Record<string, unknown> {
  const meta: Record<string, unknown> = { ...extra };
  meta[MetaKeys.protocolVersion] = envelope.protocolVersion;
  meta[MetaKeys.clientCapabilities] = envelope.clientCapabilities;
  if (envelope.clientInfo !== undefined) meta[MetaKeys.clientInfo] = envelope.clientInfo;
  if (envelope.logLevel !== undefined) meta[MetaKeys.logLevel] = envelope.logLevel;
  return meta;
}

/**
 * A copy of `params` (an object, or nothing) whose `_meta` carries the envelope; other `_meta` keys
 * of `params` are kept. Does not modify `params`.
 *
 * @example
 * ```ts
 * const params = withRequestEnvelope({ cursor: "2" }, { protocolVersion: "2026-07-28", clientCapabilities: {} });
 * ```
 */
export function withRequestEnvelope(params: unknown, envelope: RequestEnvelope): Record<string, unknown> {
  const base = isPlainObject(params) ? params : {};
  return { ...base, _meta: buildRequestMeta(envelope, metaOf(base)) };
}

/**
 * The methods whose 2026-07-28 results are `CacheableResult`s: a complete result of one of them must
 * carry `ttlMs` and `cacheScope`.
 */
export const CACHEABLE_RESULT_METHODS: readonly string[] = [
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "server/discover",
];

/** The cache hint a cacheable modern result gets when its handler set none: immediately stale, per user. */
export const DEFAULT_CACHE_HINT = { ttlMs: 0, cacheScope: "private" } as const;

/**
 * A copy of a modern result with `resultType: "complete"` unless it has one, and
 * `_meta["io.modelcontextprotocol/serverInfo"]` unless the result already names one. When `method`
 * is one of {@linkcode CACHEABLE_RESULT_METHODS} and the result is complete, a missing `ttlMs` or
 * `cacheScope` is filled from {@linkcode DEFAULT_CACHE_HINT}.
 * `undefined` and `null` count as `{}`; other non-objects are returned unchanged.
 */
export function decorateModernResult(result: unknown, serverInfo: Implementation, method?: string): unknown {
  if (result === undefined || result === null) result = {};
  if (!isPlainObject(result)) return result;
  const meta = isPlainObject(result._meta) ? result._meta : {};
  const decorated: Record<string, unknown> = {
    ...result,
    resultType: result.resultType ?? "complete",
    _meta: MetaKeys.serverInfo in meta ? meta : { ...meta, [MetaKeys.serverInfo]: serverInfo },
  };
  if (
    decorated.resultType === "complete" && method !== undefined && CACHEABLE_RESULT_METHODS.includes(method)
  ) {
    decorated.ttlMs ??= DEFAULT_CACHE_HINT.ttlMs;
    decorated.cacheScope ??= DEFAULT_CACHE_HINT.cacheScope;
  }
  return decorated;
}

/** The server's `Implementation` from a result's `_meta`, when present and well-formed. */
export function serverInfoOf(result: unknown): Implementation | undefined {
  const meta = isPlainObject(result) && isPlainObject(result._meta) ? result._meta : undefined;
  const info = meta?.[MetaKeys.serverInfo];
  return isImplementation(info) ? info : undefined;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return quotePeerText(value, 60);
  return typeof value;
}
