/**
 * Authorization for MCP over HTTP: the OAuth 2.1 client of the specification (`withOAuth`,
 * `OAuthClient`) and bearer-token protection for servers (`requireBearer`). The JWT verifier lives in
 * `jwt_verifier.ts` so that `jose` is loaded only when used.
 * @module
 */
export { AuthError, type AuthErrorCode, type AuthErrorOptions } from "./errors.ts";
export { type OAuthFetch, withOAuth } from "./with_oauth.ts";
export {
  type AuthorizeOptions,
  OAuthClient,
  type OAuthClientOptions,
  type PreRegisteredClient,
} from "./oauth_client.ts";
export {
  type StorageLike,
  WebStorageOAuthStore,
  type WebStorageOAuthStoreOptions,
} from "./web_storage_oauth_store.ts";
export {
  InMemoryOAuthStore,
  type OAuthStore,
  type PendingAuthorization,
  type StoredClient,
  type StoredTokens,
} from "./oauth_store.ts";
export {
  discoverProtectedResource,
  type DiscoverProtectedResourceOptions,
  type ProtectedResource,
  protectedResourceMetadataUrls,
} from "./discover_protected_resource.ts";
export {
  authorizationServerMetadataUrls,
  discoverAuthorizationServer,
  type DiscoverAuthorizationServerOptions,
} from "./discover_authorization_server.ts";
export {
  type BearerChallenge,
  type BearerChallengeParams,
  formatBearerChallenge,
  parseBearerChallenge,
  parseDPoPChallenge,
} from "./www_authenticate.ts";
export {
  type AccessTokenInfo,
  defaultMetadataUrl,
  type FetchHandler,
  getAuthInfo,
  type ProtectedResourceMetadata,
  requireBearer,
  type RequireBearerOptions,
  type ScopedCall,
  type TokenVerifier,
} from "./require_bearer.ts";
export { scopesFromServer, type ToolScopesSource } from "./scopes_from_server.ts";
export type { FetchLike } from "./fetch_like.ts";
export type { DPoPOptions } from "./dpop_proofs.ts";
export { InMemoryOAuthLock, type OAuthLock } from "./oauth_lock.ts";
export { type DPoPFailure, DPoPVerifier, type DPoPVerifierOptions } from "./dpop_verifier.ts";
export type {
  EnterpriseAuthorizationOptions,
  TokenSource,
  WorkloadIdentityOptions,
} from "./assertion_grants.ts";
export type { OutboundGuardOptions } from "./outbound_guard.ts";
