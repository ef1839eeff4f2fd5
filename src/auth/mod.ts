/**
 * Authorization for MCP over HTTP: the OAuth 2.1 client of the specification (`withOAuth`,
 * `OAuthClient`) and bearer-token protection for servers (`requireBearer`). The JWT verifier lives in
 * `jwt_verifier.ts` so that `jose` is loaded only when used.
 * @module
 */
export { AuthError, type AuthErrorCode, type AuthErrorOptions } from "./errors.ts";
export { withOAuth, type OAuthFetch } from "./with_oauth.ts";
export { OAuthClient, type AuthorizeOptions, type OAuthClientOptions, type PreRegisteredClient } from "./oauth_client.ts";
export { WebStorageOAuthStore, type StorageLike, type WebStorageOAuthStoreOptions } from "./web_storage_oauth_store.ts";
export { InMemoryOAuthStore, type OAuthStore, type PendingAuthorization, type StoredClient, type StoredTokens } from "./oauth_store.ts";
export { discoverProtectedResource, protectedResourceMetadataUrls, type DiscoverProtectedResourceOptions, type ProtectedResource } from "./discover_protected_resource.ts";
export { authorizationServerMetadataUrls, discoverAuthorizationServer, type DiscoverAuthorizationServerOptions } from "./discover_authorization_server.ts";
export { formatBearerChallenge, parseBearerChallenge, type BearerChallenge, type BearerChallengeParams } from "./www_authenticate.ts";
export {
  defaultMetadataUrl,
  getAuthInfo,
  requireBearer,
  type AccessTokenInfo,
  type FetchHandler,
  type ProtectedResourceMetadata,
  type RequireBearerOptions,
  type ScopedCall,
  type TokenVerifier,
} from "./require_bearer.ts";
export { scopesFromServer, type ToolScopesSource } from "./scopes_from_server.ts";
export type { FetchLike } from "./fetch_like.ts";
