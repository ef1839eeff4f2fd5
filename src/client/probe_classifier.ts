/**
 * Turns the answer to a `server/discover` probe into a verdict: which era, and what the cache learns.
 * Pure functions; no I/O.
 * @module
 */
import { ErrorCodes, type JsonRpcError } from "../wire/errors.ts";
import { type ParsedDiscoverResult, parseDiscoverResult } from "../wire/discover_result.ts";
import { isImplementation, isPlainObject } from "../wire/meta_envelope.ts";
import { quotePeerText } from "../wire/quote_peer_text.ts";
import {
  type Capabilities,
  eraOf,
  type Implementation,
  LATEST_LEGACY_VERSION,
  LEGACY_VERSIONS,
  MODERN_VERSIONS,
} from "../wire/protocol_versions.ts";

/**
 * How a connection's era was decided: one value per row of the probe-outcome table, plus the
 * paths that do not probe.
 *
 * | outcome | probe answer | connection | cache learns |
 * |---|---|---|---|
 * | `discovered_modern` | DiscoverResult with a shared modern version | modern | modern |
 * | `reprobed_modern` | -32022 naming a shared modern version, then a DiscoverResult | modern | modern |
 * | `legacy_only_versions` | DiscoverResult or -32022 listing only legacy versions | legacy | legacy |
 * | `definitive_rejection` | -32601 or -32602 | legacy | legacy |
 * | `fallback_rpc_error` | any other JSON-RPC error (also a second -32022) | legacy | nothing |
 * | `fallback_malformed` | a result that is not a DiscoverResult | legacy | nothing |
 * | `fallback_no_shared_version` | DiscoverResult sharing no version, not legacy-only | legacy | nothing |
 * | `fallback_silence` | nothing before the probe deadline | legacy | nothing |
 * | `fallback_respawned` | EOF, process exit or write failure during the probe | respawn, legacy | nothing |
 * | `cached_modern` | (cache said modern; `server/discover` confirmed it) | modern | unchanged |
 * | `cached_legacy` | (cache said legacy; no probe) | legacy | unchanged |
 * | `requested_legacy` | (`era: "legacy"`; no probe) | legacy | unchanged |
 */
export type NegotiationOutcome =
  | "discovered_modern"
  | "reprobed_modern"
  | "legacy_only_versions"
  | "definitive_rejection"
  | "fallback_rpc_error"
  | "fallback_malformed"
  | "fallback_no_shared_version"
  | "fallback_silence"
  | "fallback_respawned"
  | "cached_modern"
  | "cached_legacy"
  | "requested_legacy";

/** A `server/discover` result, normalised from either shape (WIRE §6 item 3). */
export type DiscoverInfo = ParsedDiscoverResult;

/** What one probe answer means. */
export type ProbeVerdict =
  | { kind: "modern"; version: string; discover: DiscoverInfo }
  | { kind: "reprobe"; version: string }
  | {
    kind: "legacy";
    outcome: "legacy_only_versions" | "definitive_rejection";
    learn: true;
    legacyVersions: string[];
    detail: string;
  }
  | {
    kind: "legacy";
    outcome: "fallback_rpc_error" | "fallback_malformed" | "fallback_no_shared_version";
    learn: false;
    legacyVersions: string[];
    detail: string;
  };

const MALFORMED_DISCOVER =
  'the result is not a DiscoverResult (needs supportedVersions: string[] and capabilities: object; resultType absent or "complete")';

/** The newest modern version this client shares with `versions`, if any. */
export function newestSharedModern(versions: readonly string[]): string | undefined {
  for (let i = MODERN_VERSIONS.length - 1; i >= 0; i--) {
    if (versions.includes(MODERN_VERSIONS[i])) return MODERN_VERSIONS[i];
  }
  return undefined;
}

/** True for a non-empty list in which every entry is a legacy version this client knows. */
export function isLegacyOnlyList(versions: readonly string[]): boolean {
  return versions.length > 0 && versions.every((v) => eraOf(v) === "legacy");
}

function legacyIn(versions: readonly string[]): string[] {
  return LEGACY_VERSIONS.filter((v) => versions.includes(v));
}

/** Versions quoted in a message at most; the rest are counted. */
const QUOTED_VERSIONS = 12;

/**
 * A server's version list for a message, bounded: the first {@linkcode QUOTED_VERSIONS} entries, each
 * quoted to 40 characters, and how many more there were (a server may list a million).
 */
export function quoteVersions(versions: readonly string[]): string {
  const shown = versions.slice(0, QUOTED_VERSIONS).map((v) => quotePeerText(v, 40)).join(",");
  const more = versions.length - QUOTED_VERSIONS;
  return `[${shown}${more > 0 ? `,… ${more} more` : ""}]`;
}

/** Classifies a result the server returned to `server/discover`. */
export function classifyProbeResult(result: unknown): ProbeVerdict {
  const parsed = parseDiscoverResult(result);
  if (parsed === undefined) {
    const shown = JSON.stringify(result)?.slice(0, 200) ?? String(result);
    return {
      kind: "legacy",
      outcome: "fallback_malformed",
      learn: false,
      legacyVersions: [],
      detail: `Malformed probe response: ${MALFORMED_DISCOVER}, got ${shown}`,
    };
  }
  const shared = newestSharedModern(parsed.supportedVersions);
  if (shared) return { kind: "modern", version: shared, discover: parsed };
  const list = quoteVersions(parsed.supportedVersions);
  if (isLegacyOnlyList(parsed.supportedVersions)) {
    return {
      kind: "legacy",
      outcome: "legacy_only_versions",
      learn: true,
      legacyVersions: legacyIn(parsed.supportedVersions),
      detail: `DiscoverResult lists only legacy versions ${list}`,
    };
  }
  return {
    kind: "legacy",
    outcome: "fallback_no_shared_version",
    learn: false,
    legacyVersions: legacyIn(parsed.supportedVersions),
    detail: `DiscoverResult shares no version with this client: ${list}`,
  };
}

/**
 * Classifies a JSON-RPC error the server returned to `server/discover`. `mayReprobe` is false once
 * the single corrective re-probe has been spent: a second -32022 then counts as an ordinary error.
 */
export function classifyProbeError(error: JsonRpcError, mayReprobe: boolean): ProbeVerdict {
  const what = `${error.code} ${quotePeerText(error.message)}`;
  if (error.code === ErrorCodes.UnsupportedProtocolVersion) {
    const data = isPlainObject(error.data) ? error.data : {};
    const supported = Array.isArray(data.supported)
      ? data.supported.filter((v): v is string => typeof v === "string")
      : [];
    const shared = newestSharedModern(supported);
    if (shared && mayReprobe) return { kind: "reprobe", version: shared };
    if (isLegacyOnlyList(supported)) {
      return {
        kind: "legacy",
        outcome: "legacy_only_versions",
        learn: true,
        legacyVersions: legacyIn(supported),
        detail: `server/discover was answered ${what} listing only legacy versions ${
          quoteVersions(supported)
        }`,
      };
    }
    return {
      kind: "legacy",
      outcome: "fallback_rpc_error",
      learn: false,
      legacyVersions: legacyIn(supported),
      detail: shared
        ? `server/discover was answered ${what} again after the one re-probe with ${shared}`
        : `server/discover was answered ${what} without a usable data.supported list`,
    };
  }
  if (error.code === ErrorCodes.MethodNotFound || error.code === ErrorCodes.InvalidParams) {
    return {
      kind: "legacy",
      outcome: "definitive_rejection",
      learn: true,
      legacyVersions: [],
      detail:
        `server/discover was rejected with ${what}, as legacy servers refuse a request before initialize`,
    };
  }
  return {
    kind: "legacy",
    outcome: "fallback_rpc_error",
    learn: false,
    legacyVersions: [],
    detail: `server/discover was answered ${what}`,
  };
}

/** What a legacy `initialize` result says, once checked. */
export interface InitializeInfo {
  protocolVersion: string;
  serverCapabilities: Capabilities;
  serverInfo?: Implementation;
  instructions?: string;
}

/**
 * Reads an `initialize` result. The server's version must be a legacy version this client knows
 * (a lower counter-offer is fine); returns the reason as a string otherwise.
 */
export function parseInitializeResult(result: unknown): InitializeInfo | string {
  if (!isPlainObject(result) || typeof result.protocolVersion !== "string") {
    return `Server answered initialize with a malformed result (no protocolVersion string): ${
      JSON.stringify(result)?.slice(0, 200)
    }`;
  }
  const version = result.protocolVersion;
  if (eraOf(version) !== "legacy") {
    return `Server answered initialize with protocolVersion ${
      quotePeerText(version, 100)
    }, which is not a legacy version this client supports (${LEGACY_VERSIONS.join(", ")})`;
  }
  const info: InitializeInfo = {
    protocolVersion: version,
    serverCapabilities: isPlainObject(result.capabilities) ? result.capabilities : {},
  };
  if (isImplementation(result.serverInfo)) info.serverInfo = result.serverInfo;
  if (typeof result.instructions === "string") info.instructions = result.instructions;
  return info;
}

/** The newest of `versions` that is a known legacy version; the newest legacy version when none is. */
export function newestLegacy(versions: readonly string[]): string {
  for (let i = LEGACY_VERSIONS.length - 1; i >= 0; i--) {
    if (versions.includes(LEGACY_VERSIONS[i])) return LEGACY_VERSIONS[i];
  }
  return LATEST_LEGACY_VERSION;
}

/** `-32603 "message" (data: …)`, for error messages. */
export function describeRpcError(error: JsonRpcError): string {
  const data = error.data === undefined ? undefined : JSON.stringify(error.data);
  return `${error.code} ${quotePeerText(error.message)}${data ? ` (data: ${quotePeerText(data, 200)})` : ""}`;
}

/** An error's message, or the value as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
