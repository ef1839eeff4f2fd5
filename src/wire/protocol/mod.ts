/**
 * The MCP protocol types of revisions 2025-11-25 (legacy era) and 2026-07-28 (modern era), and the
 * method maps the client and the server are typed with.
 *
 * - `Legacy.*` and `Modern.*`: every declaration of each revision's published schema, as published
 *   (generated from `schema/<revision>/schema.ts`; see `scripts/generate_protocol_types.mjs`).
 * - Top-level types such as `Implementation`, `Icon`, `ToolAnnotations`, `LoggingLevel`: the types
 *   declared identically in both revisions (`./current.ts`, generated), usable in either era.
 * - `ClientRequestMap`, `ServerRequestMap`, `ClientNotificationMap`, `ServerNotificationMap`: one
 *   entry per method of either era, merged as `./method_maps.ts` describes; the `Legacy…Map` and
 *   `Modern…Map` interfaces hold each revision's exact shapes.
 * - `*_METHODS`: the method names of each map, at run time.
 * @example
 * ```ts
 * import type { ClientRequestMap, Modern } from "onemodelcontext/protocol";
 * type ToolsCall = ClientRequestMap["tools/call"]; // { params: …; result: … }
 * const tool: Modern.Tool = { name: "echo", inputSchema: { type: "object" } };
 * ```
 * @module
 */
export type * as Legacy from "./v2025_11_25.ts";
export type * as Modern from "./v2026_07_28.ts";
export type * from "./current.ts";
export type {
  LegacyClientNotificationMap,
  LegacyClientRequestMap,
  LegacyServerNotificationMap,
  LegacyServerRequestMap,
  ModernClientNotificationMap,
  ModernClientRequestMap,
  ModernInputRequestMap,
  ModernServerNotificationMap,
} from "./era_method_maps.ts";
export {
  LEGACY_CLIENT_NOTIFICATION_METHODS,
  LEGACY_CLIENT_REQUEST_METHODS,
  LEGACY_SERVER_NOTIFICATION_METHODS,
  LEGACY_SERVER_REQUEST_METHODS,
  MODERN_CLIENT_NOTIFICATION_METHODS,
  MODERN_CLIENT_REQUEST_METHODS,
  MODERN_INPUT_REQUEST_METHODS,
  MODERN_SERVER_NOTIFICATION_METHODS,
} from "./era_method_maps.ts";
export type {
  ClientNotificationMap,
  ClientNotificationParams,
  ClientRequestMap,
  ClientRequestParams,
  ClientRequestResult,
  ParamsAreOptional,
  RequestMeta,
  ServerNotificationMap,
  ServerNotificationParams,
  ServerRequestMap,
  ServerRequestParams,
  ServerRequestResult,
} from "./method_maps.ts";
export {
  CLIENT_NOTIFICATION_METHODS,
  CLIENT_REQUEST_METHODS,
  SERVER_NOTIFICATION_METHODS,
  SERVER_REQUEST_METHODS,
} from "./method_maps.ts";
