/**
 * The OAuth 2.1 client of the MCP authorization specification (revisions 2025-11-25 and 2026-07-28),
 * on `oauth4webapi` for the OAuth mechanics.
 * @module
 */
import { systemTimeProvider } from "../stream/time_provider.ts";
import { discoverAuthorizationServer } from "./discover_authorization_server.ts";
import { discoverProtectedResource } from "./discover_protected_resource.ts";
import { AuthError } from "./errors.ts";
import { canonicalServerUrl, type FetchLike, isLoopbackHost } from "./fetch_like.ts";
import { InMemoryOAuthStore, type OAuthStore, type StoredTokens } from "./oauth_store.ts";
import { DPoPProofs } from "./dpop_proofs.ts";
import { outboundGuardFor } from "./outbound_guard_for.ts";
import type { OutboundGuard } from "./outbound_guard.ts";
import type { AuthorizeOptions, OAuthClientOptions } from "./oauth_client_options.ts";
import { GrantContext } from "./grants/grant_context.ts";
import { refreshTokens } from "./grants/token_refresh.ts";
import { selectScope } from "./grants/scope_selection.ts";
import { clientCredentialsGrant, type GrantTarget, jwtBearerGrant } from "./grants/machine_grants.ts";
import { exchangeAuthorizationCode, redirectForAuthorization } from "./grants/authorization_code_grant.ts";

export type { PreRegisteredClient } from "./client_identity.ts";
export type { AuthorizeOptions, OAuthClientOptions } from "./oauth_client_options.ts";

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
  /** What the grants share (grants/grant_context.ts). */
  #context: GrantContext;
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
    if (options.dpop !== false) {
      this.#dpop = new DPoPProofs(options.dpop === true ? { always: true } : options.dpop);
    }
    this.#context = new GrantContext(options, {
      store: this.#store,
      fetch: this.#fetch,
      time: options.time ?? systemTimeProvider,
      dpop: this.#dpop,
    });
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
    if (this.#context.expired(tokens)) {
      tokens = tokens.refreshToken === undefined
        ? undefined
        : await refreshTokens(this.#context, key, { tokens });
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
  finishAuthorization(callbackUrl: string | URL): Promise<void> {
    return exchangeAuthorizationCode(this.#context, callbackUrl);
  }

  /**
   * Discovers the protected resource and its authorization server, uses tokens another holder saved
   * or a refresh when they do, else runs the configured grant.
   */
  async #authorize(serverUrl: string, options: AuthorizeOptions): Promise<void> {
    const context = this.#context;
    this.#guard.trust(new URL(serverUrl).origin); // the server the user asked for is reachable whatever its address
    const resource = await discoverProtectedResource(new URL(serverUrl), {
      fetch: this.#fetch,
      challenge: options.challenge,
      signal: options.signal,
    });
    const select = this.#options.selectAuthorizationServer ?? ((servers) => servers[0] as string);
    const issuer = select(resource.authorizationServers);
    const as = await discoverAuthorizationServer(issuer, { fetch: this.#fetch, signal: options.signal });
    context.rememberServer(as);

    const previous = await this.#store.getTokens(serverUrl);
    if (previous !== undefined && previous.issuer !== as.issuer) {
      await this.#store.deleteTokens(serverUrl); // tokens of another authorization server are never sent again
    } else if (previous !== undefined && !options.stepUp) {
      const refused = this.#sent.get(serverUrl) ?? previous.accessToken;
      // Another client or process saved new tokens since the request went out: send it again with them.
      if (previous.accessToken !== refused && !context.expired(previous)) return;
      if (
        previous.refreshToken !== undefined &&
        (await refreshTokens(context, serverUrl, { tokens: previous, refused })) !== undefined
      ) return;
    }
    const scope = selectScope(this.#options, {
      resource,
      as,
      authorize: options,
      previous: previous?.issuer === as.issuer ? previous?.scope : undefined,
    });
    const target: GrantTarget = { serverUrl, as, resource: resource.resource, scope };
    if ((this.#options.grantType ?? "authorization_code") === "client_credentials") {
      return clientCredentialsGrant(context, target);
    }
    const { workloadIdentity, enterpriseAuthorization } = this.#options;
    if (workloadIdentity !== undefined || enterpriseAuthorization !== undefined) {
      return jwtBearerGrant(context, target);
    }
    await this.finishAuthorization(await redirectForAuthorization(context, target));
  }
}
