/**
 * `NegotiationRecord`: the bookkeeping of one connect's era negotiation, the same for the stream
 * negotiator ({@linkcode EraNegotiator}) and the HTTP transport's era probe: when it started, the
 * probes sent, a respawn, what the era cache gave, learned and forgot, and the
 * {@linkcode NegotiationInfo} a session reports from it.
 * @module
 */
import { type EraCacheEntry, type EraCacheStore, forgetEra, readEra, storeEra } from "./era_cache.ts";
import { type DiscoverInfo, messageOf, type NegotiationOutcome, newestLegacy } from "./probe_classifier.ts";
import {
  type Capabilities,
  type Era,
  eraOf,
  type Implementation,
  LATEST_LEGACY_VERSION,
  LATEST_MODERN_VERSION,
} from "../wire/protocol_versions.ts";
import { NegotiationFailedError } from "../wire/errors.ts";
import type { TimeProvider } from "../stream/time_provider.ts";

/** How a client's era was decided, for diagnostics. */
export interface NegotiationInfo {
  /** Which row of the probe-outcome table applied (see {@linkcode NegotiationOutcome}). */
  outcome: NegotiationOutcome;
  /** Milliseconds from the start of `connect` until the era was settled (handshake included). */
  elapsedMs: number;
  /** `server/discover` probes sent (0, 1, or 2 after a -32022 re-probe; more after a stale cache entry). */
  probes: number;
  /** True when the server was started again after it died on the probe. */
  respawned: boolean;
  /** True when a cache entry decided the era without a probe verdict. */
  fromCache: boolean;
  /** What the era cache learned from this connect, if anything. */
  learned?: Era;
  /** True when a cache entry was forgotten because negotiation with it failed. */
  forgotten: boolean;
  /** Human-readable account of the deciding probe answer, when there was one. */
  detail?: string;
}

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

/** What a modern session settled on, whatever carries it (see {@linkcode NegotiationRecord.modernSession}). */
export interface ModernSessionFacts {
  era: "modern";
  protocolVersion: string;
  serverInfo?: Implementation;
  serverCapabilities: Capabilities;
  instructions?: string;
  info: NegotiationInfo;
}

/** What {@linkcode NegotiationRecord.tryCachedLegacy} came to: the session, or the failure it reported. */
export type CachedLegacyAttempt<T> = { ok: true; session: T } | { ok: false; error: unknown };

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

  /**
   * Starts the legacy session a cached `legacy` entry names (its version when that is a legacy one,
   * else the newest legacy version). When `start` fails with an error `isFinal` does not claim (the
   * connect deadline), the server no longer takes what the cache said: reports a
   * `NegotiationFailedError` ("Cached legacy era failed …; probing again"), forgets the entry and
   * returns the failure, so the caller negotiates afresh, once. An error `isFinal` claims is thrown.
   */
  async tryCachedLegacy<T>(
    cached: EraCacheEntry,
    start: (version: string) => Promise<T>,
    isFinal: (error: unknown) => boolean,
  ): Promise<CachedLegacyAttempt<T>> {
    const version = cached.protocolVersion !== undefined && eraOf(cached.protocolVersion) === "legacy"
      ? cached.protocolVersion
      : LATEST_LEGACY_VERSION;
    try {
      return { ok: true, session: await start(version) };
    } catch (error) {
      if (isFinal(error)) throw error;
      this.#s.report(
        new NegotiationFailedError(
          `Cached legacy era failed for ${JSON.stringify(this.#s.cacheKey)}: ${
            messageOf(error)
          }; probing again`,
          { cause: error },
        ),
      );
      await this.forget();
      return { ok: false, error };
    }
  }

  /** The version of the first `server/discover` probe: a cached modern entry's, else the newest modern one. */
  firstProbeVersion(cached: EraCacheEntry | undefined): string {
    return cached?.era === "modern" && eraOf(cached.protocolVersion ?? "") === "modern"
      ? cached.protocolVersion!
      : LATEST_MODERN_VERSION;
  }

  /**
   * Teaches the cache that the server is legacy, when a probe verdict says it may (`learn`): with the
   * newest of the versions the server named, if it named any.
   */
  async learnLegacy(verdict: { learn: boolean; legacyVersions: readonly string[] }): Promise<void> {
    if (!verdict.learn) return;
    const entry: EraCacheEntry = { era: "legacy", learnedAt: this.#s.time.now() };
    if (verdict.legacyVersions.length > 0) entry.protocolVersion = newestLegacy(verdict.legacyVersions);
    await this.learn(entry);
  }

  /** The facts of a modern session settled on `version` by the `server/discover` answer `discover`. */
  modernSession(
    version: string,
    discover: DiscoverInfo,
    outcome: NegotiationOutcome,
    settled: SettledNegotiation,
  ): ModernSessionFacts {
    const facts: ModernSessionFacts = {
      era: "modern",
      protocolVersion: version,
      serverCapabilities: discover.capabilities,
      info: this.info(outcome, settled),
    };
    if (discover.serverInfo) facts.serverInfo = discover.serverInfo;
    if (discover.instructions !== undefined) facts.instructions = discover.instructions;
    return facts;
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
