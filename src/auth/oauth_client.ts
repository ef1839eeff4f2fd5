/**
 * The OAuth 2.1 client of the MCP authorization specification (revisions 2025-11-25 and 2026-07-28),
 * on `oauth4webapi` for the OAuth mechanics.
 * @module
 */
import * as oauth from "oauth4webapi";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";
import { discoverAuthorizationServer } from "./discover_authorization_server.ts";
import { discoverProtectedResource, type ProtectedResource } from "./discover_protected_resource.ts";
import { AuthError } from "./errors.ts";
import { canonicalServerUrl, type FetchLike, isLoopbackHost } from "./fetch_like.ts";
import {
  InMemoryOAuthStore,
  type OAuthStore,
  type PendingAuthorization,
  type StoredClient,
  type StoredTokens,
} from "./oauth_store.ts";
import type { BearerChallenge } from "./www_authenticate.ts";
import { type DPoPKey, type DPoPOptions, DPoPProofs } from "./dpop_proofs.ts";
import {
  type EnterpriseAuthorizationOptions,
  JWT_BEARER_GRANT,
  readToken,
  requestIdJag,
  type WorkloadIdentityOptions,
} from "./assertion_grants.ts";
import {
  clientAuthentication,
  type OAuthHttpOptions as HttpOptions,
  type PreRegisteredClient,
  resolveClient,
} from "./client_identity.ts";

import { outboundGuardFor } from "./outbound_guard_for.ts";
import type { OutboundGuard, OutboundGuardOptions } from "./outbound_guard.ts";

export type { PreRegisteredClient } from "./client_identity.ts";

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
  /** Add `offline_access` when the authorization server lists it in `scopes_supported`. Default true. */
  offlineAccess?: boolean;
  /** Picks the authorization server among the resource's `authorization_servers`. Default: the first. */
  selectAuthorizationServer?: (servers: readonly string[]) => string;
  /** Where tokens and registrations live. Default: a new {@linkcode InMemoryOAuthStore}. */
  store?: OAuthStore;
  /** The `fetch` for discovery, registration and token requests. Default: the global `fetch`. */
  fetch?: FetchLike;
  /** The clock for token expiry. Default: the system clock. */
  time?: TimeProvider;
  /** Refresh this long before the access token expires, in ms. Default 30 000. */
  refreshSkew?: number;
  /**
   * Whether plain-HTTP authorization server endpoints are allowed: `"loopback"` (default: only for
   * localhost and 127.0.0.0/8, as tests and local servers need), `true` or `false`.
   */
  allowInsecureRequests?: boolean | "loopback";
  /** Authorizations allowed for one server without a successful response in between. Default 3. */
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

const DEFAULT_REFRESH_SKEW = 30_000;
const DEFAULT_MAX_AUTHORIZATIONS = 3;

/**
 * Obtains and keeps access tokens for MCP servers: discovery (RFC 9728, RFC 8414 / OpenID), client
 * identity (pre-registration, then Client ID Metadata Document, then Dynamic Client Registration),
 * PKCE S256, resource indicators (RFC 8707), `iss` validation (RFC 9207), scope selection and
 * step-up, refresh and `client_credentials`. Usually driven by {@linkcode withOAuth}.
 *
 * @example
 * ```ts
 * declare function openAndWait(authorizationUrl: URL): Promise<URL>; // opens a browser, awaits the redirect
 * const oauth = new OAuthClient({ redirectUri: "http://127.0.0.1:8765/callback", redirectTo: openAndWait });
 * const authFetch = withOAuth(fetch, oauth);
 * ```
 */
export class OAuthClient {
  #options: OAuthClientOptions;
  #store: OAuthStore;
  #fetch: FetchLike;
  #guard: OutboundGuard;
  #time: TimeProvider;
  #servers = new Map<string, oauth.AuthorizationServer>();
  #inflight = new Map<string, Promise<void>>();
  #attempts = new Map<string, number>();
  #dpop: DPoPProofs | undefined;
  /** The access token last sent to each server: a 401 refuses that one, not a newer one in the store. */
  #sent = new Map<string, string>();

  constructor(options: OAuthClientOptions = {}) {
    if (
      (options.grantType ?? "authorization_code") === "authorization_code" &&
      options.redirectUri !== undefined
    ) {
      let redirect: URL;
      try {
        redirect = new URL(options.redirectUri);
      } catch (cause) {
        throw new AuthError(
          "invalid_option",
          `redirectUri ${JSON.stringify(options.redirectUri)} is not a URL`,
          { cause },
        );
      }
      if (redirect.protocol === "http:" && !isLoopbackHost(redirect.hostname)) {
        throw new AuthError(
          "invalid_option",
          `redirectUri ${JSON.stringify(options.redirectUri)} must use https or a loopback host`,
        );
      }
    }
    this.#options = options;
    this.#store = options.store ?? new InMemoryOAuthStore();
    this.#guard = outboundGuardFor(options);
    this.#fetch = this.#guard.fetch;
    this.#time = options.time ?? systemTimeProvider;
    if (options.dpop !== false) {
      this.#dpop = new DPoPProofs(options.dpop === true ? { always: true } : options.dpop);
    }
  }

  /** The store holding tokens and registrations. */
  get store(): OAuthStore {
    return this.#store;
  }

  /**
   * The `Authorization` header value for `serverUrl`, refreshing an expired token first when a
   * refresh token is held; undefined when no usable token is held.
   */
  async authorizationHeader(serverUrl: string | URL): Promise<string | undefined> {
    const tokens = await this.#usableTokens(canonicalServerUrl(serverUrl));
    if (tokens === undefined) return undefined;
    return `${tokens.tokenType === "DPoP" ? "DPoP" : "Bearer"} ${tokens.accessToken}`;
  }

  /**
   * Sends one request to `requestUrl` with its credentials: `send` gets the headers to set
   * (`authorization`, and `dpop` with a DPoP-bound token: a fresh proof for `method` and the URL,
   * sent once more on `401 use_dpop_nonce`), or `{}` when no usable token is held.
   */
  async sendAuthorized(
    requestUrl: string | URL,
    method: string,
    send: (headers: Record<string, string>) => Promise<Response>,
  ): Promise<Response> {
    const serverUrl = canonicalServerUrl(requestUrl);
    const tokens = await this.#usableTokens(serverUrl);
    if (tokens === undefined) return send({});
    this.#sent.set(serverUrl, tokens.accessToken);
    if (tokens.tokenType !== "DPoP") return send({ authorization: `Bearer ${tokens.accessToken}` });
    const key = tokens.dpopJkt === undefined ? undefined : await this.#dpop?.byThumbprint(tokens.dpopJkt);
    if (key === undefined) return send({}); // bound to a key this client no longer holds: authorize again
    return key.send(tokens.accessToken, method, new URL(requestUrl).href, send);
  }

  async #usableTokens(key: string): Promise<StoredTokens | undefined> {
    const pending = this.#inflight.get(key);
    if (pending !== undefined) await pending.catch(() => {}); // its failure belongs to the request that started it
    let tokens = await this.#store.getTokens(key);
    if (tokens === undefined) return undefined;
    if (this.#expired(tokens)) {
      tokens = tokens.refreshToken === undefined ? undefined : await this.#refresh(key, tokens);
    }
    return tokens;
  }

  /**
   * Runs the authorization for `serverUrl` after a 401 (or a 403 `insufficient_scope` with
   * `stepUp`). Concurrent calls for one server share one run. Rejects with {@linkcode AuthError}
   * (code `unauthorized`) once `maxAuthorizations` ran without a successful response in between.
   */
  authorize(serverUrl: string | URL, options: AuthorizeOptions = {}): Promise<void> {
    const key = canonicalServerUrl(serverUrl);
    const running = this.#inflight.get(key);
    if (running !== undefined) return running;
    const attempts = this.#attempts.get(key) ?? 0;
    const max = this.#options.maxAuthorizations ?? DEFAULT_MAX_AUTHORIZATIONS;
    if (attempts >= max) {
      const what = options.stepUp
        ? `403 insufficient_scope (scope ${JSON.stringify(options.challenge?.scope ?? "")})`
        : "401";
      return Promise.reject(
        new AuthError(
          "unauthorized",
          `The server ${key} still answered ${what} after ${attempts} authorizations`,
        ),
      );
    }
    this.#attempts.set(key, attempts + 1);
    const run = this.#authorize(key, options).finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, run);
    return run;
  }

  /** Records a response other than 401/403 from `serverUrl`: the authorization count starts again. */
  succeeded(serverUrl: string | URL): void {
    this.#attempts.delete(canonicalServerUrl(serverUrl));
  }

  /**
   * Finishes a redirect: validates the authorization response (`state`, then `iss` per RFC 9207,
   * compared as plain strings), exchanges the code with the PKCE verifier and the `resource`
   * parameter, and stores the tokens. Rejects with code `authorization_response` or `token`.
   */
  async finishAuthorization(callbackUrl: string | URL): Promise<void> {
    const url = new URL(callbackUrl);
    const state = url.searchParams.get("state");
    const pending = state === null ? undefined : await this.#store.takePending(state);
    if (pending === undefined) {
      throw new AuthError(
        "authorization_response",
        `The authorization response carries an unknown state ${JSON.stringify(state)}`,
      );
    }
    const as = await this.#serverMetadata(pending.issuer);
    const stored = await this.#clientFor(as);
    const client: oauth.Client = { client_id: stored.clientId };
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, client, url, pending.state);
    } catch (error) {
      // On an issuer mismatch the response's error fields are not acted on (RFC 9207 §2.4).
      const detail = error instanceof oauth.AuthorizationResponseError
        ? `the server answered error ${JSON.stringify(error.error)}`
        : (error as Error).message;
      throw new AuthError("authorization_response", `The authorization response was refused: ${detail}`, {
        cause: error,
      });
    }
    const dpop = await this.#dpopFor(as);
    const tokens = await this.#tokenRequest(as, dpop, "authorization_code", async (http) => {
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        this.#clientAuth(stored, as),
        params,
        pending.redirectUri,
        pending.codeVerifier,
        {
          ...http,
          additionalParameters: { resource: pending.resource },
        },
      );
      return oauth.processAuthorizationCodeResponse(as, client, response);
    });
    await this.#saveTokens(pending.serverUrl, tokens, {
      issuer: as.issuer,
      clientId: stored.clientId,
      resource: pending.resource,
      scope: pending.scope,
    }, dpop);
  }

  async #authorize(serverUrl: string, options: AuthorizeOptions): Promise<void> {
    this.#guard.trust(new URL(serverUrl).origin); // the server the user asked for is reachable whatever its address
    const resource = await discoverProtectedResource(new URL(serverUrl), {
      fetch: this.#fetch,
      challenge: options.challenge,
      signal: options.signal,
    });
    const select = this.#options.selectAuthorizationServer ?? ((servers) => servers[0] as string);
    const issuer = select(resource.authorizationServers);
    const as = await discoverAuthorizationServer(issuer, { fetch: this.#fetch, signal: options.signal });
    this.#servers.set(as.issuer, as);

    const previous = await this.#store.getTokens(serverUrl);
    if (previous !== undefined && previous.issuer !== as.issuer) {
      await this.#store.deleteTokens(serverUrl); // tokens of another authorization server are never sent again
    } else if (previous !== undefined && !options.stepUp) {
      const refused = this.#sent.get(serverUrl) ?? previous.accessToken;
      // Another client or process saved new tokens since the request went out: send it again with them.
      if (previous.accessToken !== refused && !this.#expired(previous)) return;
      if (
        previous.refreshToken !== undefined &&
        (await this.#refresh(serverUrl, previous, refused)) !== undefined
      ) return;
    }
    const scope = this.#selectScope(
      resource,
      as,
      options,
      previous?.issuer === as.issuer ? previous?.scope : undefined,
    );

    if ((this.#options.grantType ?? "authorization_code") === "client_credentials") {
      const stored = await this.#clientFor(as);
      const client: oauth.Client = { client_id: stored.clientId };
      const parameters: Record<string, string> = { resource: resource.resource };
      if (scope !== undefined) parameters.scope = scope;
      const dpop = await this.#dpopFor(as);
      const tokens = await this.#tokenRequest(as, dpop, "client_credentials", async (http) => {
        const response = await oauth.clientCredentialsGrantRequest(
          as,
          client,
          this.#clientAuth(stored, as),
          parameters,
          http,
        );
        return oauth.processClientCredentialsResponse(as, client, response);
      });
      const context: TokenContext = {
        issuer: as.issuer,
        clientId: stored.clientId,
        resource: resource.resource,
      };
      if (scope !== undefined) context.scope = scope;
      await this.#saveTokens(serverUrl, tokens, context, dpop);
      return;
    }

    const { workloadIdentity, enterpriseAuthorization } = this.#options;
    if (workloadIdentity !== undefined || enterpriseAuthorization !== undefined) {
      await this.#jwtBearerGrant(serverUrl, as, resource.resource, scope);
      return;
    }

    const methods = as.code_challenge_methods_supported;
    if (!Array.isArray(methods) || !methods.includes("S256")) {
      throw new AuthError(
        "pkce_unsupported",
        `The authorization server ${as.issuer} does not advertise PKCE S256 (code_challenge_methods_supported ${
          JSON.stringify(methods)
        }): refusing to authorize`,
      );
    }
    if (as.authorization_endpoint === undefined) {
      throw new AuthError(
        "server_metadata",
        `The authorization server ${as.issuer} has no authorization_endpoint`,
      );
    }
    if (
      !this.#http(as)[oauth.allowInsecureRequests] && new URL(as.authorization_endpoint).protocol !== "https:"
    ) {
      throw new AuthError(
        "server_metadata",
        `The authorization endpoint ${as.authorization_endpoint} is not https`,
      );
    }
    const { redirectUri, redirectTo } = this.#options;
    if (redirectUri === undefined || redirectTo === undefined) {
      throw new AuthError("invalid_option", "The authorization code grant needs redirectUri and redirectTo");
    }
    const stored = await this.#clientFor(as);
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", stored.clientId);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set("code_challenge_method", "S256");
    url.searchParams.set("state", state);
    if (scope !== undefined) url.searchParams.set("scope", scope);
    url.searchParams.set("resource", resource.resource);
    const pending: PendingAuthorization = {
      serverUrl,
      resource: resource.resource,
      issuer: as.issuer,
      codeVerifier,
      state,
      redirectUri,
    };
    if (scope !== undefined) pending.scope = scope;
    await this.#store.savePending(state, pending);
    let callback: URL | string | void;
    try {
      callback = await redirectTo(url);
    } catch (error) {
      await this.#store.takePending(state); // a flow that never comes back leaves nothing behind
      throw error;
    }
    if (callback === undefined || callback === null) {
      throw new AuthError(
        "authorization_pending",
        `Authorization for ${serverUrl} continues in the browser: call finishAuthorization(callbackUrl) when it returns`,
      );
    }
    await this.finishAuthorization(callback);
  }

  /** Scope selection: option, else the challenge's `scope`, else `scopes_supported`; step-up unions; `offline_access`. */
  #selectScope(
    resource: ProtectedResource,
    as: oauth.AuthorizationServer,
    options: AuthorizeOptions,
    previous: string | undefined,
  ): string | undefined {
    let scopes: string[] | undefined;
    if (this.#options.scope !== undefined) scopes = split(this.#options.scope);
    else if (options.challenge?.scope !== undefined) scopes = split(options.challenge.scope);
    else if (Array.isArray(resource.metadata.scopes_supported)) {
      scopes = [...resource.metadata.scopes_supported];
    }
    if (options.stepUp && previous !== undefined) scopes = [...split(previous), ...(scopes ?? [])];
    if (scopes === undefined || scopes.length === 0) return undefined;
    const wantsRefresh = (this.#options.grantType ?? "authorization_code") === "authorization_code" &&
      this.#options.offlineAccess !== false;
    if (wantsRefresh && as.scopes_supported?.includes("offline_access")) scopes.push("offline_access");
    return [...new Set(scopes)].join(" ");
  }

  #clientFor(as: oauth.AuthorizationServer): Promise<StoredClient> {
    return resolveClient(as, { ...this.#options, store: this.#store, http: this.#http(as) });
  }

  #clientAuth(client: StoredClient, as: oauth.AuthorizationServer): oauth.ClientAuth {
    return clientAuthentication(client, as, this.#options.client?.privateKey);
  }

  /**
   * Refreshes under the store's lock, when it has one: inside, the tokens are read again, and tokens
   * another holder saved meanwhile are used instead of spending the refresh token a second time.
   */
  #refresh(
    serverUrl: string,
    tokens: StoredTokens,
    refused: string = tokens.accessToken,
  ): Promise<StoredTokens | undefined> {
    const lock = this.#store.lock;
    if (lock === undefined) return this.#refreshNow(serverUrl, tokens);
    return lock.withLock(`refresh ${serverUrl}`, async () => {
      const current = await this.#store.getTokens(serverUrl);
      if (current === undefined) return undefined; // dropped by another holder: authorize again
      if (current.accessToken !== refused && !this.#expired(current)) return current;
      return this.#refreshNow(serverUrl, current);
    });
  }

  #expired(tokens: StoredTokens): boolean {
    return tokens.expiresAt !== undefined &&
      this.#time.now() >= tokens.expiresAt - (this.#options.refreshSkew ?? DEFAULT_REFRESH_SKEW);
  }

  async #refreshNow(serverUrl: string, tokens: StoredTokens): Promise<StoredTokens | undefined> {
    const refreshToken = tokens.refreshToken;
    if (refreshToken === undefined) return undefined;
    try {
      const as = await this.#serverMetadata(tokens.issuer);
      const stored = await this.#clientFor(as);
      if (stored.clientId !== tokens.clientId) {
        throw new AuthError(
          "token",
          `The refresh token belongs to client ${tokens.clientId}, not ${stored.clientId}`,
        );
      }
      const client: oauth.Client = { client_id: stored.clientId };
      const additionalParameters: Record<string, string> = {};
      if (tokens.resource !== undefined) additionalParameters.resource = tokens.resource;
      let dpop: DPoPKey | undefined;
      if (tokens.tokenType === "DPoP") {
        dpop = tokens.dpopJkt === undefined ? undefined : await this.#dpop?.byThumbprint(tokens.dpopJkt);
        // Bound to a key this client does not hold (another process's, or one lost in a restart): leave
        // the stored tokens to their holder and authorize anew.
        if (dpop === undefined) return undefined;
      }
      const result = await this.#tokenRequest(as, dpop, "refresh_token", async (http) => {
        const response = await oauth.refreshTokenGrantRequest(
          as,
          client,
          this.#clientAuth(stored, as),
          refreshToken,
          { ...http, additionalParameters },
        );
        return oauth.processRefreshTokenResponse(as, client, response);
      });
      const context: TokenContext = { issuer: tokens.issuer, clientId: tokens.clientId, refreshToken };
      if (tokens.resource !== undefined) context.resource = tokens.resource;
      if (tokens.scope !== undefined) context.scope = tokens.scope;
      return await this.#saveTokens(serverUrl, result, context, dpop);
    } catch (error) {
      if (!(error instanceof AuthError) || error.code !== "token") throw error;
      await this.#store.deleteTokens(serverUrl); // a refused refresh token is dropped; a new authorization follows
      return undefined;
    }
  }

  async #tokenRequest(
    as: oauth.AuthorizationServer,
    dpop: DPoPKey | undefined,
    grant: string,
    run: (http: HttpOptions & { DPoP?: oauth.DPoPHandle }) => Promise<oauth.TokenEndpointResponse>,
  ): Promise<oauth.TokenEndpointResponse> {
    let response: oauth.TokenEndpointResponse;
    const http = dpop === undefined ? this.#http(as) : { ...this.#http(as), DPoP: dpop.handle };
    try {
      try {
        response = await run(http);
      } catch (error) {
        // RFC 9449 §8: the handle cached the nonce of the 400 use_dpop_nonce; one more try carries it.
        if (dpop === undefined || !oauth.isDPoPNonceError(error)) throw error;
        response = await run(http);
      }
    } catch (cause) {
      if (cause instanceof AuthError) throw cause;
      const detail = cause instanceof oauth.ResponseBodyError
        ? `${cause.error}${cause.error_description ? ` (${cause.error_description})` : ""}`
        : (cause as Error).message;
      throw new AuthError("token", `The ${grant} token request to ${as.token_endpoint} failed: ${detail}`, {
        cause,
      });
    }
    if (response.token_type !== "bearer" && (response.token_type !== "dpop" || dpop === undefined)) {
      throw new AuthError(
        "token",
        `The token endpoint ${as.token_endpoint} issued a ${JSON.stringify(response.token_type)} token; ${
          dpop === undefined ? "only Bearer is expected" : "only Bearer and DPoP are expected"
        }`,
      );
    }
    return response;
  }

  async #saveTokens(
    serverUrl: string,
    response: oauth.TokenEndpointResponse,
    context: TokenContext,
    dpop?: DPoPKey,
  ): Promise<StoredTokens> {
    const tokens: StoredTokens = {
      accessToken: response.access_token,
      tokenType: response.token_type === "dpop" ? "DPoP" : "Bearer",
      issuer: context.issuer,
      clientId: context.clientId,
    };
    if (tokens.tokenType === "DPoP" && dpop !== undefined) tokens.dpopJkt = dpop.thumbprint;
    const refreshToken = response.refresh_token ?? context.refreshToken;
    if (refreshToken !== undefined) tokens.refreshToken = refreshToken;
    if (typeof response.expires_in === "number") {
      tokens.expiresAt = this.#time.now() + response.expires_in * 1000;
    }
    const scope = context.scope ?? response.scope;
    if (scope !== undefined) tokens.scope = scope;
    if (context.resource !== undefined) tokens.resource = context.resource;
    await this.#store.saveTokens(serverUrl, tokens);
    return tokens;
  }

  /** The DPoP key for `as`, or undefined when DPoP is off or the server does not advertise it. */
  #dpopFor(as: oauth.AuthorizationServer): Promise<DPoPKey | undefined> {
    return this.#dpop === undefined ? Promise.resolve(undefined) : this.#dpop.forServer(as);
  }

  /**
   * The JWT bearer grant (RFC 7523) with the workload's token (SEP-1933) or with an ID-JAG obtained
   * from the enterprise IdP (SEP-990). A refusal rejects with code `token`: never retried, and no
   * other grant is tried.
   */
  async #jwtBearerGrant(
    serverUrl: string,
    as: oauth.AuthorizationServer,
    resource: string,
    scope: string | undefined,
  ): Promise<void> {
    const { workloadIdentity, enterpriseAuthorization } = this.#options;
    const assertion = workloadIdentity !== undefined
      ? await readToken(workloadIdentity.token, "workload identity token")
      : await requestIdJag(
        enterpriseAuthorization!,
        { audience: as.issuer, resource, scope },
        this.#fetch,
        this.#options.allowInsecureRequests ?? "loopback",
      );
    const stored = await this.#clientFor(as);
    const client: oauth.Client = { client_id: stored.clientId };
    const parameters: Record<string, string> = { assertion, resource };
    if (scope !== undefined) parameters.scope = scope;
    const dpop = await this.#dpopFor(as);
    const tokens = await this.#tokenRequest(as, dpop, "jwt-bearer", async (http) => {
      const response = await oauth.genericTokenEndpointRequest(
        as,
        client,
        this.#clientAuth(stored, as),
        JWT_BEARER_GRANT,
        parameters,
        http,
      );
      return oauth.processGenericTokenEndpointResponse(as, client, response);
    });
    const context: TokenContext = { issuer: as.issuer, clientId: stored.clientId, resource };
    if (scope !== undefined) context.scope = scope;
    await this.#saveTokens(serverUrl, tokens, context, dpop);
  }

  async #serverMetadata(issuer: string): Promise<oauth.AuthorizationServer> {
    let as = this.#servers.get(issuer);
    if (as === undefined) {
      as = await discoverAuthorizationServer(issuer, { fetch: this.#fetch });
      this.#servers.set(issuer, as);
    }
    return as;
  }

  #http(as: oauth.AuthorizationServer): HttpOptions {
    const allow = this.#options.allowInsecureRequests ?? "loopback";
    const insecure = allow === "loopback" ? isLoopbackHost(new URL(as.issuer).hostname) : allow;
    return { [oauth.customFetch]: this.#fetch as never, [oauth.allowInsecureRequests]: insecure };
  }
}

interface TokenContext {
  issuer: string;
  clientId: string;
  resource?: string;
  scope?: string;
  refreshToken?: string;
}

function split(scope: string): string[] {
  return scope.split(" ").filter((s) => s !== "");
}
