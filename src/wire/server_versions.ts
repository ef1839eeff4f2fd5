/**
 * The era rules of {@linkcode ContextServer}: which versions it speaks, legacy version negotiation,
 * and the typed errors it answers with.
 * @module
 */
import { ErrorCodes, InvalidOptionError, JsonRpcError } from "./errors.ts";
import { eraOf, LEGACY_VERSIONS, MODERN_VERSIONS } from "./protocol_versions.ts";
import { quotePeerText } from "./quote_peer_text.ts";

/** The longest requested version echoed in `data.requested`. */
const MAX_ECHOED_VERSION = 256;

/** The versions a server speaks, split by era, each list newest first. */
export class ServerVersions {
  readonly legacy: readonly string[];
  readonly modern: readonly string[];

  /** Throws {@linkcode InvalidOptionError} for an empty list or a version of no known era. */
  constructor(supported: readonly string[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS]) {
    if (!Array.isArray(supported) || supported.length === 0) {
      throw new InvalidOptionError("Option supportedVersions must name at least one protocol version");
    }
    for (const version of supported) {
      if (typeof version !== "string" || eraOf(version) === undefined) {
        throw new InvalidOptionError(
          `Option supportedVersions holds ${JSON.stringify(version)}, which is neither a legacy (${
            LEGACY_VERSIONS.join(", ")
          }) nor a modern (${MODERN_VERSIONS.join(", ")}) version`,
        );
      }
    }
    const newestFirst = [...new Set(supported)].sort().reverse();
    this.legacy = newestFirst.filter((v) => eraOf(v) === "legacy");
    this.modern = newestFirst.filter((v) => eraOf(v) === "modern");
  }

  /** True when `version` is a modern version this server speaks. */
  supportsModern(version: string): boolean {
    return this.modern.includes(version);
  }

  /**
   * What a `-32022` lists as `data.supported`: the modern versions, or for a legacy-only server the
   * legacy ones (an explicit legacy-only list tells a dual-era client to use `initialize`).
   */
  get advertised(): readonly string[] {
    return this.modern.length > 0 ? this.modern : this.legacy;
  }

  /**
   * Legacy negotiation: echoes `requested` when this server speaks it as a legacy version, else offers
   * the newest legacy version. Never offers a modern version. A modern-only server answers -32022.
   */
  negotiateLegacy(requested: string): string {
    if (this.legacy.length === 0) {
      throw this.unsupported(requested, "initialize (this server speaks only the modern era)");
    }
    return this.legacy.includes(requested) ? requested : this.legacy[0];
  }

  /** The -32022 error for `requested`, with `data.supported` and `data.requested`. */
  unsupported(requested: string, where?: string): JsonRpcError {
    const supported = [...this.advertised];
    return new JsonRpcError(
      ErrorCodes.UnsupportedProtocolVersion,
      `Unsupported protocol version ${quotePeerText(requested)}${
        where ? ` in ${where}` : ""
      }: this server supports ${supported.join(", ")}`,
      // Echoed for the client to compare, but never more than a bounded prefix of what it sent.
      {
        supported,
        requested: requested.length > MAX_ECHOED_VERSION ? requested.slice(0, MAX_ECHOED_VERSION) : requested,
      },
    );
  }
}

/** A -32602 error with `message`. */
export function invalidParams(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCodes.InvalidParams, message);
}
