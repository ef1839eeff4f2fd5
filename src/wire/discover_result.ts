/**
 * The modern `server/discover` result: its shape, the builder a server uses, and a lenient reader
 * for clients (deployed servers still send the pre-#3002 shape with a top-level `serverInfo` and no
 * cache fields).
 * @module
 */
import { isImplementation, isPlainObject, serverInfoOf } from "./meta_envelope.ts";
import { type Capabilities, type Implementation, MetaKeys } from "./protocol_versions.ts";

/** How widely a client may share a cached result: `public` across users, `private` per user. */
export type CacheScope = "public" | "private";

/** `DiscoverResult` of protocol version 2026-07-28. */
export interface DiscoverResult {
  resultType: "complete";
  /** The modern protocol versions the server speaks. */
  supportedVersions: string[];
  capabilities: Capabilities;
  instructions?: string;
  /** How long the client may cache this result, in milliseconds (0: immediately stale). */
  ttlMs: number;
  cacheScope: CacheScope;
  _meta: { [MetaKeys.serverInfo]: Implementation; [key: string]: unknown };
}

/** What {@linkcode buildDiscoverResult} needs. */
export interface DiscoverResultInit {
  serverInfo: Implementation;
  supportedVersions: readonly string[];
  capabilities: Capabilities;
  instructions?: string;
  ttlMs: number;
  cacheScope: CacheScope;
}

/** Builds a `server/discover` result; `instructions` is left out when undefined. */
export function buildDiscoverResult(init: DiscoverResultInit): DiscoverResult {
  const result: DiscoverResult = {
    resultType: "complete",
    supportedVersions: [...init.supportedVersions],
    capabilities: init.capabilities,
    ttlMs: init.ttlMs,
    cacheScope: init.cacheScope,
    _meta: { [MetaKeys.serverInfo]: init.serverInfo },
  };
  if (init.instructions !== undefined) result.instructions = init.instructions;
  return result;
}

/** A discover result as a client understands it, whichever shape the server sent. */
export interface ParsedDiscoverResult {
  supportedVersions: string[];
  capabilities: Capabilities;
  instructions?: string;
  /** From `_meta`, or from the older top-level `serverInfo`. */
  serverInfo?: Implementation;
  /** Absent when the server did not send it (older shape). */
  ttlMs?: number;
  cacheScope?: CacheScope;
}

/**
 * Reads a `server/discover` result leniently: requires `supportedVersions` (an array of strings) and
 * `capabilities` (an object); accepts a missing
 * `resultType` or one equal to `"complete"`, the server info in `_meta` or at top level, and missing
 * cache fields. Returns `undefined` for anything else (a malformed probe response).
 */
export function parseDiscoverResult(value: unknown): ParsedDiscoverResult | undefined {
  if (!isPlainObject(value)) return undefined;
  if (value.resultType !== undefined && value.resultType !== "complete") return undefined;
  const versions = value.supportedVersions;
  if (!Array.isArray(versions) || !versions.every((v) => typeof v === "string")) return undefined;
  if (!isPlainObject(value.capabilities)) return undefined;
  const parsed: ParsedDiscoverResult = { supportedVersions: [...versions], capabilities: value.capabilities };
  if (typeof value.instructions === "string") parsed.instructions = value.instructions;
  const info = serverInfoOf(value) ?? (isImplementation(value.serverInfo) ? value.serverInfo : undefined);
  if (info) parsed.serverInfo = info;
  if (typeof value.ttlMs === "number" && value.ttlMs >= 0) parsed.ttlMs = value.ttlMs;
  if (value.cacheScope === "public" || value.cacheScope === "private") parsed.cacheScope = value.cacheScope;
  return parsed;
}
