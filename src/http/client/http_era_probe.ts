/**
 * `HttpEraProbe`: one connect of {@linkcode httpTransport} in Streamable HTTP: the era read from the
 * cache or probed with `server/discover` (reprobed once with the version a -32022 names), learned
 * into the cache or forgotten there, then the modern exchange or the legacy session made and
 * initialized, with the record of how the era was reached.
 * @module
 */
import { asError, JsonRpcError, NegotiationFailedError, TimeoutError } from "../../wire/errors.ts";
import { LATEST_LEGACY_VERSION } from "../../wire/protocol_versions.ts";
import { timeoutSignal } from "../../stream/time_kit.ts";
import { NegotiationRecord } from "../../client/negotiation_record.ts";
import type { NegotiationInfo } from "../../client/negotiation_record.ts";
import type { ExchangeConnectSettings, ExchangeSession } from "../../client/exchange_transport.ts";
import {
  describeRpcError,
  type DiscoverInfo,
  type NegotiationOutcome,
  newestLegacy,
  parseInitializeResult,
} from "../../client/probe_classifier.ts";
import type { HttpEndpoint } from "./http_endpoint.ts";
import { ModernHttpExchange } from "./modern_http_exchange.ts";
import { LegacyHttpClientSession, type ReconnectOptions } from "./legacy_http_client_session.ts";
import { type HttpVerdict, sendDiscoverProbe } from "./discover_probe.ts";

/** The bounds and choices of one connect, from the transport's options. */
export interface ProbeSettings {
  timeouts: { timeout: number; maxTotalTimeout: number };
  reconnect: Required<ReconnectOptions>;
  listen: boolean;
}

/** One connect over HTTP: probe, classify, cache, then hand back the exchange. */
export class HttpEraProbe {
  readonly #endpoint: HttpEndpoint;
  readonly #s: ExchangeConnectSettings;
  readonly #p: ProbeSettings;
  readonly #record: NegotiationRecord;
  #signal!: AbortSignal;

  constructor(endpoint: HttpEndpoint, settings: ExchangeConnectSettings, probe: ProbeSettings) {
    this.#endpoint = endpoint;
    this.#s = settings;
    this.#p = probe;
    this.#record = new NegotiationRecord(settings);
  }

  async run(): Promise<ExchangeSession> {
    const s = this.#s;
    const deadline = timeoutSignal(s.time, s.connectTimeout, {
      reason: () =>
        new TimeoutError(
          `Connecting to ${this.#endpoint.url} timed out after ${s.connectTimeout} ms (connectTimeout)`,
          s.connectTimeout,
        ),
    });
    this.#signal = deadline.signal;
    try {
      return await this.#negotiate();
    } catch (error) {
      throw deadline.signal.aborted ? deadline.signal.reason : error;
    } finally {
      deadline.clear();
    }
  }

  async #negotiate(): Promise<ExchangeSession> {
    const s = this.#s;
    if (s.era === "legacy") return this.#legacy("requested_legacy", LATEST_LEGACY_VERSION, {});
    const cached = s.era === "auto" && s.cache && s.cacheKey !== undefined
      ? await this.#record.cached()
      : undefined;
    if (cached?.era === "legacy") {
      const attempt = await this.#record.tryCachedLegacy(
        cached,
        (version) => this.#legacy("cached_legacy", version, { fromCache: true }),
        (error) => error instanceof TimeoutError || this.#signal.aborted,
      );
      if (attempt.ok) return attempt.session;
    }
    const cachedModern = cached?.era === "modern";
    let version = this.#record.firstProbeVersion(cached);
    let reprobed = false;
    for (;;) {
      let verdict: HttpVerdict;
      try {
        verdict = await sendDiscoverProbe(this.#endpoint, this.#signal, {
          id: `discover-probe-${this.#record.countProbe()}`,
          version,
          settings: s,
          mayReprobe: !reprobed,
        });
      } catch (error) {
        if (cachedModern) await this.#record.forget();
        throw error;
      }
      if (verdict.kind === "reprobe") {
        reprobed = true;
        version = verdict.version;
        continue;
      }
      if (verdict.kind === "modern" || verdict.kind === "modern-refusal") {
        const discover: DiscoverInfo = verdict.kind === "modern"
          ? verdict.discover
          : { supportedVersions: [version], capabilities: {} } as DiscoverInfo;
        const agreed = verdict.kind === "modern" ? verdict.version : version;
        const fromCache = cachedModern && agreed === cached!.protocolVersion;
        if (!fromCache) {
          await this.#record.learn({ era: "modern", protocolVersion: agreed, learnedAt: s.time.now() });
        }
        const outcome: NegotiationOutcome = fromCache
          ? "cached_modern"
          : reprobed
          ? "reprobed_modern"
          : "discovered_modern";
        return this.#modern(agreed, discover, outcome, {
          fromCache,
          learned: fromCache ? undefined : "modern",
          detail: verdict.kind === "modern-refusal" ? verdict.detail : undefined,
        });
      }
      if (cachedModern) await this.#record.forget();
      await this.#record.learnLegacy(verdict);
      if (s.era === "modern") {
        throw new NegotiationFailedError(
          `Server at ${this.#endpoint.url} does not speak the modern era (era: "modern"): ${verdict.detail}. Use era: "auto" or "legacy" for a legacy server`,
        );
      }
      return this.#legacy(verdict.outcome, newestLegacy(verdict.legacyVersions), {
        learned: verdict.learn ? "legacy" : undefined,
        detail: verdict.detail,
      });
    }
  }

  #modern(
    version: string,
    discover: DiscoverInfo,
    outcome: NegotiationOutcome,
    extra: Partial<NegotiationInfo>,
  ): ExchangeSession {
    const s = this.#s;
    const exchange = new ModernHttpExchange({
      endpoint: this.#endpoint,
      protocolVersion: version,
      time: s.time,
      timeouts: this.#p.timeouts,
      report: s.report,
      onNotification: s.onNotification,
    });
    return {
      exchange,
      closed: exchange.closed,
      ...this.#record.modernSession(version, discover, outcome, extra),
    };
  }

  async #legacy(
    outcome: NegotiationOutcome,
    offered: string,
    extra: Partial<NegotiationInfo>,
  ): Promise<ExchangeSession> {
    const s = this.#s;
    const session = new LegacyHttpClientSession({
      endpoint: this.#endpoint,
      time: s.time,
      timeouts: this.#p.timeouts,
      reconnect: this.#p.reconnect,
      clientInfo: s.clientInfo,
      capabilities: s.capabilities,
      listen: this.#p.listen,
      report: s.report,
      onNotification: s.onNotification,
      onRequest: s.onRequest,
      onResync: s.onResync,
    });
    const abandon = (): void => void session.close();
    this.#signal.addEventListener("abort", abandon, { once: true });
    let result: unknown;
    try {
      result = await session.initialize(offered, (value) => {
        const parsed = parseInitializeResult(value);
        return typeof parsed === "string" ? undefined : parsed.protocolVersion;
      });
    } catch (error) {
      await session.close();
      if (this.#signal.aborted) throw this.#signal.reason;
      if (error instanceof JsonRpcError) {
        throw new NegotiationFailedError(
          `Server rejected initialize (protocolVersion ${offered}) with ${describeRpcError(error)}`,
          { cause: error },
        );
      }
      throw new NegotiationFailedError(
        `Initialize with ${this.#endpoint.url} failed: ${asError(error).message}`,
        { cause: error },
      );
    } finally {
      this.#signal.removeEventListener("abort", abandon);
    }
    const parsed = parseInitializeResult(result);
    if (typeof parsed === "string") {
      await session.close();
      throw new NegotiationFailedError(parsed);
    }
    return {
      exchange: session,
      era: "legacy",
      ...parsed,
      info: this.#record.info(outcome, extra),
      closed: session.closed,
    };
  }
}
