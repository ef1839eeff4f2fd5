/**
 * The MCP protocol versions of both eras and the `_meta` keys of the modern envelope.
 * @module
 */

/** Legacy-era versions (the `initialize` handshake), oldest first. */
export const LEGACY_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const;

/** Modern-era versions (stateless, per-request `_meta`), oldest first. */
export const MODERN_VERSIONS = ["2026-07-28"] as const;

/** The newest legacy version. */
export const LATEST_LEGACY_VERSION = "2025-11-25";

/** The newest modern version. */
export const LATEST_MODERN_VERSION = "2026-07-28";

/** Which era a protocol version belongs to. */
export type Era = "legacy" | "modern";

/** The era of `version`, or `undefined` when this library does not know it. */
export function eraOf(version: string): Era | undefined {
  if ((MODERN_VERSIONS as readonly string[]).includes(version)) return "modern";
  if ((LEGACY_VERSIONS as readonly string[]).includes(version)) return "legacy";
  return undefined;
}

/** Keys of the modern per-request `_meta` envelope and of result `_meta`. */
export const MetaKeys = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** An MCP `Implementation`: who a client or server is. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  [key: string]: unknown;
}

/** Client or server capabilities: an open JSON object. */
export type Capabilities = Record<string, unknown>;
