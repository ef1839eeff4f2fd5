/**
 * An {@linkcode OAuthStore} on Web Storage (`sessionStorage`, `localStorage`), so a browser redirect
 * flow survives the page navigating to the authorization server and back.
 * @module
 */
import type { OAuthStore, PendingAuthorization, StoredClient, StoredTokens } from "./oauth_store.ts";
import type { OAuthLock } from "./oauth_lock.ts";

/** The part of the Web Storage interface the store uses. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Options of {@linkcode WebStorageOAuthStore}. */
export interface WebStorageOAuthStoreOptions {
  /**
   * Prefix of every key. Default `"onemodelcontext.oauth."`.
   * @default "onemodelcontext.oauth."
   */
  prefix?: string;
  /**
   * The lock serializing refreshes among everyone sharing the storage (tabs, processes with a
   * file-backed storage). Default none: only one client's own refreshes are serialized.
   * @default none
   */
  lock?: OAuthLock;
}

/**
 * Keeps tokens, registrations and pending authorizations as JSON under prefixed keys. Token expiry
 * (`expiresAt`) is on the client's clock, which restarts with the page: tokens read by another store
 * instance (after a reload) count as unexpired until the server refuses them, then they are refreshed.
 *
 * @example
 * ```ts browser
 * declare const redirectUri: string;
 * const oauth = new OAuthClient({ store: new WebStorageOAuthStore(sessionStorage), redirectUri, redirectTo: (url) => void location.assign(url) });
 * if (new URL(location.href).searchParams.has("code")) await oauth.finishAuthorization(location.href);
 * ```
 */
export class WebStorageOAuthStore implements OAuthStore {
  #storage: StorageLike;
  #prefix: string;
  /** Marks tokens saved by this instance: their `expiresAt` is on this page load's clock. */
  #load = crypto.randomUUID();

  constructor(storage: StorageLike, options: WebStorageOAuthStoreOptions = {}) {
    this.#storage = storage;
    this.#prefix = options.prefix ?? "onemodelcontext.oauth.";
    if (options.lock !== undefined) this.lock = options.lock;
  }

  readonly lock?: OAuthLock;

  getTokens(serverUrl: string): StoredTokens | undefined {
    const saved = this.#read<StoredTokens & { load?: string }>(`tokens.${serverUrl}`);
    if (saved === undefined) return undefined;
    const { load, ...tokens } = saved;
    if (load !== this.#load) delete tokens.expiresAt; // a clock from another page load means nothing here
    return tokens;
  }
  saveTokens(serverUrl: string, tokens: StoredTokens): void {
    this.#write(`tokens.${serverUrl}`, { ...tokens, load: this.#load });
  }
  deleteTokens(serverUrl: string): void {
    this.#storage.removeItem(`${this.#prefix}tokens.${serverUrl}`);
  }
  getClient(issuer: string): StoredClient | undefined {
    return this.#read<StoredClient>(`client.${issuer}`);
  }
  saveClient(issuer: string, client: StoredClient): void {
    this.#write(`client.${issuer}`, client);
  }
  savePending(state: string, pending: PendingAuthorization): void {
    this.#write(`pending.${state}`, pending);
  }
  takePending(state: string): PendingAuthorization | undefined {
    const pending = this.#read<PendingAuthorization>(`pending.${state}`);
    this.#storage.removeItem(`${this.#prefix}pending.${state}`);
    return pending;
  }

  #read<T>(key: string): T | undefined {
    const text = this.#storage.getItem(`${this.#prefix}${key}`);
    return text === null ? undefined : (JSON.parse(text) as T);
  }
  #write(key: string, value: unknown): void {
    this.#storage.setItem(`${this.#prefix}${key}`, JSON.stringify(value));
  }
}
