/**
 * `NegotiationRecord`: the bookkeeping of one connect's era negotiation, the same for the stream
 * negotiator ({@linkcode EraNegotiator}) and the HTTP transport's era probe: when it started, the
 * probes sent, a respawn, what the era cache gave, learned and forgot, and the
 * {@linkcode NegotiationInfo} a session reports from it.
 * @module
 */
import { type EraCacheEntry, type EraCacheStore, forgetEra, readEra, storeEra } from "./era_cache.ts";
import type { NegotiationInfo } from "./era_negotiation.ts";
import type { NegotiationOutcome } from "./probe_classifier.ts";
import type { Era } from "../wire/protocol_versions.ts";
import type { TimeProvider } from "../stream/time_provider.ts";

/** Where a negotiation's clock and era cache come from (a subset of both transports' settings). */
export interface NegotiationRecordSettings {
  time: TimeProvider;
  cache?: EraCacheStore | undefined;
  cacheKey?: string | undefined;
  report(error: Error): void;
}

/** What a settled negotiation adds to its {@linkcode NegotiationInfo}. */
export interface SettledNegotiation {
  /**
   * True when a cache entry decided the era. Default false.
   * @default false
   */
  fromCache?: boolean | undefined;
  learned?: Era | undefined;
  detail?: string | undefined;
}

/** One connect's negotiation bookkeeping (see the module note). Starts its clock when made. */
export class NegotiationRecord {
  readonly #s: NegotiationRecordSettings;
  readonly #started: number;
  #probes = 0;
  #respawned = false;
  #forgotten = false;

  constructor(settings: NegotiationRecordSettings) {
    this.#s = settings;
    this.#started = settings.time.now();
  }

  /** When the negotiation started, on its clock. */
  get started(): number {
    return this.#started;
  }

  /** Counts one `server/discover` probe sent; returns how many were sent so far. */
  countProbe(): number {
    return ++this.#probes;
  }

  /** Records that the server was started again after it died on the probe. */
  markRespawned(): void {
    this.#respawned = true;
  }

  /** What was done so far, for an error message: ` (2 probes sent, server respawned)`, or "". */
  progressNote(): string {
    const parts: string[] = [];
    if (this.#probes) parts.push(`${this.#probes} probe${this.#probes > 1 ? "s" : ""} sent`);
    if (this.#respawned) parts.push("server respawned");
    return parts.length ? ` (${parts.join(", ")})` : "";
  }

  /** The cache's entry for this server; undefined without a cache or a key. */
  cached(): Promise<EraCacheEntry | undefined> {
    const { cache, cacheKey, report } = this.#s;
    return cache && cacheKey !== undefined ? readEra(cache, cacheKey, report) : Promise.resolve(undefined);
  }

  /** Teaches the cache what this negotiation learned. */
  async learn(entry: EraCacheEntry): Promise<void> {
    const { cache, cacheKey, report } = this.#s;
    if (cache && cacheKey !== undefined) await storeEra(cache, cacheKey, entry, report);
  }

  /** Forgets the cache's entry for this server, once per negotiation. */
  async forget(): Promise<void> {
    const { cache, cacheKey, report } = this.#s;
    if (!cache || cacheKey === undefined || this.#forgotten) return;
    this.#forgotten = true;
    await forgetEra(cache, cacheKey, report);
  }

  /** The negotiation's account once it settled on `outcome`. */
  info(outcome: NegotiationOutcome, settled: SettledNegotiation = {}): NegotiationInfo {
    const info: NegotiationInfo = {
      outcome,
      elapsedMs: this.#s.time.now() - this.#started,
      probes: this.#probes,
      respawned: this.#respawned,
      fromCache: settled.fromCache ?? false,
      forgotten: this.#forgotten,
    };
    if (settled.learned !== undefined) info.learned = settled.learned;
    if (settled.detail !== undefined) info.detail = settled.detail;
    return info;
  }
}
