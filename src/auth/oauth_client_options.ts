/**
 * The options of {@linkcode OAuthClient} and of its `authorize`, apart from the client so that the
 * grants it drives (`grants/`) read them without importing it.
 * @module
 */
import type { TimeProvider } from "../stream/time_provider.ts";
import type { FetchLike } from "./fetch_like.ts";
import type { OAuthStore } from "./oauth_store.ts";
import type { BearerChallenge } from "./www_authenticate.ts";
import type { DPoPOptions } from "./dpop_proofs.ts";
import type { EnterpriseAuthorizationOptions, WorkloadIdentityOptions } from "./assertion_grants.ts";
import type { PreRegisteredClient } from "./client_identity.ts";
import type { OutboundGuardOptions } from "./outbound_guard.ts";

/** Options of {@linkcode OAuthClient}. */
export interface OAuthClientOptions {
  /** What discovery, registration and token requests may reach (SSRF): see {@linkcode OutboundGuardOptions}. */
  outbound?: OutboundGuardOptions;
  /** `authorization_code` (default: a user authorizes in a browser) or `client_credentials` (machine to machine). */
  grantType?: "authorization_code" | "client_credentials";
  /** The redirect URI (authorization code grant); registered through DCR and listed in a CIMD document. */
  redirectUri?: string;
  /**
   * Sends the user agent to the authorization URL. Return the callback URL when the flow ends in this
   * process (a loopback listener, a popup); return nothing when the page navigates away, then call
   * {@linkcode OAuthClient.finishAuthorization} with the callback URL once back.
   */
  redirectTo?: (authorizationUrl: URL) => Promise<URL | string | void> | URL | string | void;
  /** Pre-registered credentials: used first when given. */
  client?: PreRegisteredClient;
  /** An HTTPS URL serving this client's Client ID Metadata Document; used when the server advertises CIMD support. */
  clientMetadataUrl?: string;
  /** Client metadata for Dynamic Client Registration (RFC 7591); `client_name` defaults to "onemodelcontext". */
  clientMetadata?: Record<string, unknown>;
  /** Scopes to request instead of the specification's selection (challenge `scope`, else `scopes_supported`). */
  scope?: string;
  /**
   * Add `offline_access` when the authorization server lists it in `scopes_supported`. Default true.
   * @default true
   */
  offlineAccess?: boolean;
  /**
   * Picks the authorization server among the resource's `authorization_servers`. Default: the first.
   * @default the first
   */
  selectAuthorizationServer?: (servers: readonly string[]) => string;
  /**
   * Where tokens and registrations live. Default: a new {@linkcode InMemoryOAuthStore}.
   * @default a new {@linkcode InMemoryOAuthStore}
   */
  store?: OAuthStore;
  /**
   * The `fetch` for discovery, registration and token requests. Default: the global `fetch`.
   * @default the global `fetch`
   */
  fetch?: FetchLike;
  /**
   * The clock for token expiry. Default: the system clock.
   * @default the system clock
   */
  time?: TimeProvider;
  /**
   * Refresh this long before the access token expires, in ms. Default 30 000.
   * @default 30000
   */
  refreshSkew?: number;
  /**
   * Whether plain-HTTP authorization server endpoints are allowed: `"loopback"` (default: only for
   * localhost and 127.0.0.0/8, as tests and local servers need), `true` or `false`.
   */
  allowInsecureRequests?: boolean | "loopback";
  /**
   * Authorizations allowed for one server without a successful response in between. Default 3.
   * @default 3
   */
  maxAuthorizations?: number;
  /**
   * DPoP (RFC 9449, SEP-1932): sender-constrained tokens. Default: used with an authorization server
   * that advertises `dpop_signing_alg_values_supported`; `false` turns it off; an object passes a
   * key pair or `always`.
   */
  dpop?: boolean | DPoPOptions;
  /**
   * Workload identity federation (SEP-1933): the workload's JWT in the JWT bearer grant, instead of a
   * browser. Failures are not retried and never fall back to another grant.
   */
  workloadIdentity?: WorkloadIdentityOptions;
  /**
   * Enterprise-managed authorization (SEP-990): the user's ID token exchanged at the IdP for an
   * ID-JAG, then the ID-JAG in the JWT bearer grant, instead of a browser.
   */
  enterpriseAuthorization?: EnterpriseAuthorizationOptions;
}

/** Why {@linkcode OAuthClient.authorize} runs. */
export interface AuthorizeOptions {
  /** The challenge of the 401 or 403 that asked for it. */
  challenge?: BearerChallenge | undefined;
  /** A 403 `insufficient_scope`: request the union of the previous and the challenged scopes. */
  stepUp?: boolean;
  signal?: AbortSignal | undefined;
}
