/**
 * `GrantContext`: what every grant of an {@linkcode OAuthClient} shares: its options, the store, the
 * guarded `fetch`, the clock, the DPoP keys, and the authorization servers' metadata by issuer.
 * @module
 */
import * as oauth from "oauth4webapi";
import type { TimeProvider } from "../../stream/time_provider.ts";
import { discoverAuthorizationServer } from "../discover_authorization_server.ts";
import { type FetchLike, isLoopbackHost } from "../fetch_like.ts";
import type { OAuthStore, StoredClient, StoredTokens } from "../oauth_store.ts";
import type { DPoPKey, DPoPProofs } from "../dpop_proofs.ts";
import { clientAuthentication, type OAuthHttpOptions, resolveClient } from "../client_identity.ts";
import type { OAuthClientOptions } from "../oauth_client_options.ts";

const DEFAULT_REFRESH_SKEW = 30_000;

/** The parts of an {@linkcode OAuthClient} its grants use (see the module note). */
export class GrantContext {
  readonly options: OAuthClientOptions;
  readonly store: OAuthStore;
  /** The outbound-guarded `fetch` of discovery, registration and token requests. */
  readonly fetch: FetchLike;
  readonly time: TimeProvider;
  /** The DPoP keys; undefined when DPoP is off. */
  readonly dpop: DPoPProofs | undefined;
  readonly #servers = new Map<string, oauth.AuthorizationServer>();

  constructor(
    options: OAuthClientOptions,
    parts: { store: OAuthStore; fetch: FetchLike; time: TimeProvider; dpop: DPoPProofs | undefined },
  ) {
    this.options = options;
    this.store = parts.store;
    this.fetch = parts.fetch;
    this.time = parts.time;
    this.dpop = parts.dpop;
  }

  /** Keeps the metadata of an authorization server just discovered. */
  rememberServer(as: oauth.AuthorizationServer): void {
    this.#servers.set(as.issuer, as);
  }

  /** The metadata of `issuer`'s authorization server, discovered once. */
  async serverMetadata(issuer: string): Promise<oauth.AuthorizationServer> {
    let as = this.#servers.get(issuer);
    if (as === undefined) {
      as = await discoverAuthorizationServer(issuer, { fetch: this.fetch });
      this.#servers.set(issuer, as);
    }
    return as;
  }

  /** The `oauth4webapi` options of a request to `as`: the guarded fetch, plain HTTP as `allowInsecureRequests` says. */
  http(as: oauth.AuthorizationServer): OAuthHttpOptions {
    const allow = this.options.allowInsecureRequests ?? "loopback";
    const insecure = allow === "loopback" ? isLoopbackHost(new URL(as.issuer).hostname) : allow;
    return { [oauth.customFetch]: this.fetch as never, [oauth.allowInsecureRequests]: insecure };
  }

  /** This client's identity at `as` (see `resolveClient`). */
  clientFor(as: oauth.AuthorizationServer): Promise<StoredClient> {
    return resolveClient(as, { ...this.options, store: this.store, http: this.http(as) });
  }

  /** How `client` authenticates at `as`'s token endpoint. */
  clientAuth(client: StoredClient, as: oauth.AuthorizationServer): oauth.ClientAuth {
    return clientAuthentication(client, as, this.options.client?.privateKey);
  }

  /** The DPoP key for `as`, or undefined when DPoP is off or the server does not advertise it. */
  dpopFor(as: oauth.AuthorizationServer): Promise<DPoPKey | undefined> {
    return this.dpop === undefined ? Promise.resolve(undefined) : this.dpop.forServer(as);
  }

  /** True when `tokens` expire within `refreshSkew`. */
  expired(tokens: StoredTokens): boolean {
    return tokens.expiresAt !== undefined &&
      this.time.now() >= tokens.expiresAt - (this.options.refreshSkew ?? DEFAULT_REFRESH_SKEW);
  }
}
