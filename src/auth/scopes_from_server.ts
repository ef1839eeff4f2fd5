/**
 * `scopesFromServer(server)`: the per-tool scope requirements of a server's registered tools, as a
 * `scopesFor` for `requireBearer`.
 * @module
 */
import type { ScopedCall } from "./require_bearer.ts";

/** What {@linkcode scopesFromServer} reads: a `ContextServer` (or anything with the same accessor). */
export interface ToolScopesSource {
  readonly features: { toolRequiredScopes(name: string): readonly string[] | undefined };
}

/**
 * A `scopesFor` that answers, for a `tools/call`, the `requiredScopes` the tool was registered with
 * (read at each call, so tools added or removed later count). Other calls need no extra scopes.
 *
 * @example
 * ```ts
 * declare const server: ContextServer, verify: TokenVerifier, metadata: ProtectedResourceMetadata;
 * server.tool("delete_file", { requiredScopes: ["files:write"] }, () => "deleted");
 * const handler = requireBearer(createHttpHandler(server), { verify, metadata, scopesFor: scopesFromServer(server) });
 * ```
 */
export function scopesFromServer(
  server: ToolScopesSource,
): (call: ScopedCall) => readonly string[] | undefined {
  return (
    call,
  ) => (call.method === "tools/call" && call.name !== undefined
    ? server.features.toolRequiredScopes(call.name)
    : undefined);
}
