/**
 * Remembers which protocol era a server speaks, so a client need not probe it on every connect.
 * @module
 */
import { ProtocolError } from "../wire/errors.ts";
import { integerOption, numberOption } from "../stream/options.ts";
import type { Era } from "../wire/protocol_versions.ts";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";

/** What the cache knows about one server. */
export interface EraCacheEntry {
  /** The era the server was found to speak. */
  era: Era;
  /** The protocol version negotiated when the entry was learned (modern: the version to send). */
  protocolVersion?: string;
  /**
   * When the definitive probe that taught this entry answered, on the client's clock
   * (`TimeProvider.now()`: monotonic, not wall-clock). The client calls `set` at that moment. The
   * in-memory {@linkcode EraCache} stamps entries with its own clock on `set` instead, so a cache
   * shared by clients with different clocks still expires correctly; a persistent store should
   * likewise record its own (wall-clock) time.
   */
  learnedAt: number;
}

/**
 * The small interface {@linkcode ContextClient} uses; implement it to persist eras elsewhere.
 * Every method may be synchronous or return a promise. A custom store owns its expiry policy:
 * the client never refreshes an entry on a cached connect, and calls `forget` when a negotiation
 * that relied on an entry fails.
 */
export interface EraCacheStore {
  get(key: string): EraCacheEntry | undefined | Promise<EraCacheEntry | undefined>;
  set(key: string, entry: EraCacheEntry): void | Promise<void>;
  forget(key: string): void | Promise<void>;
}

/** Options of {@linkcode EraCache}. */
export interface EraCacheOptions {
  /**
   * The clock used for expiry. Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /**
   * How long a legacy entry lives after the definitive probe that taught it, in ms. Default 300 000.
   * @default 300000
   */
  legacyLifetime?: number;
  /**
   * How long a modern entry lives after the probe that taught it, in ms. Default 86 400 000 (24 h).
   * @default 86400000 (24 h)
   */
  modernLifetime?: number;
  /**
   * Entries kept at most; storing one more drops the least recently used. Default 1 000.
   * @default 1000
   */
  maxEntries?: number;
}

/** Default {@linkcode EraCacheOptions.maxEntries}. */
export const DEFAULT_ERA_CACHE_MAX_ENTRIES = 1_000;

/** Default lifetime of a legacy entry: five minutes. */
export const DEFAULT_LEGACY_LIFETIME = 300_000;

/** Default lifetime of a modern entry: 24 hours. */
export const DEFAULT_MODERN_LIFETIME = 86_400_000;

/**
 * The in-memory {@linkcode EraCacheStore}.
 *
 * A legacy entry expires `legacyLifetime` after the definitive probe that taught it (when the
 * client stored it with `set`), however many cached legacy connections succeed meanwhile, so an
 * upgraded or dual-era server gets probed again. A modern entry expires `modernLifetime` (24 h) after
 * the probe that taught it, the same way, so a server that was downgraded or replaced by a legacy one
 * under the same key is probed again even if no negotiation failed; `forget(key)` drops either at once.
 * The modern lifetime is the cache's own, not the discover result's `ttlMs`: that one says how long
 * the server's capabilities and instructions stay fresh (the SDKs default it to 0), not how long its era does.
 *
 * @example
 * ```ts
 * const eraCache = new EraCache({ legacyLifetime: 60_000 });
 * const client = await ContextClient.connect(spawnProcess("node", ["server.js"]), { eraCache });
 * ```
 */
export class EraCache implements EraCacheStore {
  readonly legacyLifetime: number;
  readonly modernLifetime: number;
  readonly maxEntries: number;
  #time: TimeProvider;
  #entries = new Map<string, EraCacheEntry>();

  constructor(options: EraCacheOptions = {}) {
    this.#time = options.timeProvider ?? systemTimeProvider;
    this.legacyLifetime = numberOption("legacyLifetime", options.legacyLifetime, DEFAULT_LEGACY_LIFETIME);
    this.modernLifetime = numberOption("modernLifetime", options.modernLifetime, DEFAULT_MODERN_LIFETIME);
    this.maxEntries = integerOption("maxEntries", options.maxEntries, DEFAULT_ERA_CACHE_MAX_ENTRIES, 1);
  }

  /** The live entry for `key`; an expired entry is dropped and reported as absent. */
  get(key: string): EraCacheEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    const lifetime = entry.era === "legacy" ? this.legacyLifetime : this.modernLifetime;
    if (this.#time.now() - entry.learnedAt >= lifetime) {
      this.#entries.delete(key);
      return undefined;
    }
    // Least recently used first: a hit moves the entry to the end of the Map's order.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return { ...entry };
  }

  /**
   * Stores `entry` for `key`, replacing any previous one. `learnedAt` is set to this cache's clock
   * now: the client calls `set` when the definitive probe answers, and expiry counts from here.
   */
  set(key: string, entry: EraCacheEntry): void {
    this.#entries.delete(key);
    this.#entries.set(key, { ...entry, learnedAt: this.#time.now() });
    // One entry per distinct server key: a client that meets many servers keeps the recent ones only.
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** Drops what is known about `key`. */
  forget(key: string): void {
    this.#entries.delete(key);
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.clear();
  }

  /** How many entries are stored (expired entries count until next looked up). */
  get size(): number {
    return this.#entries.size;
  }
}

/** The cache every client shares when none is given: in memory, system clock, 5 min legacy and 24 h modern lifetimes. */
export const defaultEraCache: EraCache = new EraCache();

/** `store.get(key)`, reporting (not throwing) a failing store; an entry of unknown era counts as absent. */
export async function readEra(
  store: EraCacheStore,
  key: string,
  report: (error: Error) => void,
): Promise<EraCacheEntry | undefined> {
  try {
    const entry = await store.get(key);
    return entry && (entry.era === "legacy" || entry.era === "modern") ? entry : undefined;
  } catch (error) {
    report(storeError("get", key, error));
    return undefined;
  }
}

/** `store.set(key, entry)`, reporting (not throwing) a failing store. */
export async function storeEra(
  store: EraCacheStore,
  key: string,
  entry: EraCacheEntry,
  report: (error: Error) => void,
): Promise<void> {
  try {
    await store.set(key, entry);
  } catch (error) {
    report(storeError("set", key, error));
  }
}

/** `store.forget(key)`, reporting (not throwing) a failing store. */
export async function forgetEra(
  store: EraCacheStore,
  key: string,
  report: (error: Error) => void,
): Promise<void> {
  try {
    await store.forget(key);
  } catch (error) {
    report(storeError("forget", key, error));
  }
}

function storeError(operation: string, key: string, cause: unknown): ProtocolError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new ProtocolError(`Era cache ${operation}(${JSON.stringify(key)}) failed: ${message}`, { cause });
}
