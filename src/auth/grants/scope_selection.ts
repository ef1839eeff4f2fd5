/**
 * The scope an authorization asks for, as the MCP authorization specification selects it.
 * @module
 */
import type * as oauth from "oauth4webapi";
import type { ProtectedResource } from "../discover_protected_resource.ts";
import type { AuthorizeOptions, OAuthClientOptions } from "../oauth_client_options.ts";

/** What {@linkcode selectScope} chooses from. */
export interface ScopeSources {
  resource: ProtectedResource;
  as: oauth.AuthorizationServer;
  /** Why the authorization runs (its challenge, step-up). */
  authorize: AuthorizeOptions;
  /** The scope of the tokens held from the same authorization server, if any. */
  previous: string | undefined;
}

/**
 * The `scope` option, else the challenge's `scope`, else the resource's `scopes_supported`; a
 * step-up adds the previous scope; `offline_access` when a refresh token is wanted and the server
 * lists it. Undefined when nothing names a scope.
 */
export function selectScope(options: OAuthClientOptions, sources: ScopeSources): string | undefined {
  const { resource, as, authorize, previous } = sources;
  let scopes: string[] | undefined;
  if (options.scope !== undefined) scopes = splitScope(options.scope);
  else if (authorize.challenge?.scope !== undefined) scopes = splitScope(authorize.challenge.scope);
  else if (Array.isArray(resource.metadata.scopes_supported)) {
    scopes = [...resource.metadata.scopes_supported];
  }
  if (authorize.stepUp && previous !== undefined) scopes = [...splitScope(previous), ...(scopes ?? [])];
  if (scopes === undefined || scopes.length === 0) return undefined;
  const wantsRefresh = (options.grantType ?? "authorization_code") === "authorization_code" &&
    options.offlineAccess !== false;
  if (wantsRefresh && as.scopes_supported?.includes("offline_access")) scopes.push("offline_access");
  return [...new Set(scopes)].join(" ");
}

function splitScope(scope: string): string[] {
  return scope.split(" ").filter((s) => s !== "");
}
