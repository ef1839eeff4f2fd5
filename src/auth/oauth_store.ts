/**
 * Where the OAuth client keeps what it obtained: tokens per protected resource, client registrations
 * per authorization server, and pending browser authorizations per `state`.
 * @module
 */
import { InMemoryOAuthLock, type OAuthLock } from "./oauth_lock.ts";

/** Tokens for one protected resource (an MCP server's canonical URL). */
export interface StoredTokens {
  accessToken: string;
  /** `Bearer`, or `DPoP` for a token bound to a DPoP key (sent with a proof, RFC 9449). */
  tokenType: string;
  /** The JWK SHA-256 thumbprint of the DPoP key a `DPoP` token is bound to (`cnf.jkt`). */
  dpopJkt?: string;
  refreshToken?: string;
  /**
   * When the access token expires, on the client's {@linkcode TimeProvider} clock (milliseconds): a
   * store that outlives the process or page must drop it (see `WebStorageOAuthStore`).
   */
  expiresAt?: number;
  /** The scopes requested (space-separated), kept for step-up unions. */
  scope?: string;
  /** The `issuer` of the authorization server that issued the tokens. */
  issuer: string;
  /** The `client_id` the tokens were issued to. */
  clientId: string;
  /** The `resource` parameter they were requested for (RFC 8707), sent again on refresh. */
  resource?: string;
}

/** A client identity at one authorization server (pre-registered, registered, or a CIMD URL). */
export interface StoredClient {
  clientId: string;
  clientSecret?: string;
  /** `client_secret_basic`, `client_secret_post` or `none`. */
  tokenEndpointAuthMethod?: string;
}

/** What a browser redirect needs to finish: recorded before the user agent leaves (RFC 9207, PKCE). */
export interface PendingAuthorization {
  /** The canonical server URL the tokens are for. */
  serverUrl: string;
  /** The `resource` parameter sent (RFC 8707). */
  resource: string;
  /** The issuer recorded from the validated metadata. */
  issuer: string;
  codeVerifier: string;
  state: string;
  redirectUri: string;
  scope?: string;
}

/** The storage interface; every method may be async. Keys are plain strings. */
export interface OAuthStore {
  getTokens(serverUrl: string): StoredTokens | undefined | Promise<StoredTokens | undefined>;
  saveTokens(serverUrl: string, tokens: StoredTokens): void | Promise<void>;
  deleteTokens(serverUrl: string): void | Promise<void>;
  getClient(issuer: string): StoredClient | undefined | Promise<StoredClient | undefined>;
  saveClient(issuer: string, client: StoredClient): void | Promise<void>;
  savePending(state: string, pending: PendingAuthorization): void | Promise<void>;
  /** Returns and forgets the pending authorization for `state`. */
  takePending(state: string): PendingAuthorization | undefined | Promise<PendingAuthorization | undefined>;
  /**
   * Serializes refreshes among everyone sharing this store's tokens: a store shared between
   * processes needs a lock shared between them too (a file lock, a Redis lock). Without one,
   * only the refreshes of one `OAuthClient` are serialized.
   */
  readonly lock?: OAuthLock;
}

/** The default store: three maps in memory, gone with the process or page. */
export class InMemoryOAuthStore implements OAuthStore {
  /** Serializes refreshes of every client sharing this store. */
  readonly lock: OAuthLock = new InMemoryOAuthLock();
  #tokens = new Map<string, StoredTokens>();
  #clients = new Map<string, StoredClient>();
  #pending = new Map<string, PendingAuthorization>();

  getTokens(serverUrl: string): StoredTokens | undefined {
    return this.#tokens.get(serverUrl);
  }
  saveTokens(serverUrl: string, tokens: StoredTokens): void {
    this.#tokens.set(serverUrl, tokens);
  }
  deleteTokens(serverUrl: string): void {
    this.#tokens.delete(serverUrl);
  }
  getClient(issuer: string): StoredClient | undefined {
    return this.#clients.get(issuer);
  }
  saveClient(issuer: string, client: StoredClient): void {
    this.#clients.set(issuer, client);
  }
  savePending(state: string, pending: PendingAuthorization): void {
    this.#pending.set(state, pending);
  }
  takePending(state: string): PendingAuthorization | undefined {
    const pending = this.#pending.get(state);
    this.#pending.delete(state);
    return pending;
  }
}
