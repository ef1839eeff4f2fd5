/**
 * The connect-time dance of {@linkcode ContextClient}: probe with `server/discover`, classify the
 * answer, fall back to `initialize`, respawn a server that died on the probe, and teach the cache.
 * Every wait is bounded by the probe deadline and by the overall `connectTimeout`.
 * @module
 */
import type { EraCacheEntry, EraCacheStore } from "./era_cache.ts";
import { JsonRpcError, NegotiationFailedError, TimeoutError, TransportError } from "../wire/errors.ts";
import type { JsonRpcConnection } from "../rpc/json_rpc_connection.ts";
import { type RequestEnvelope, withRequestEnvelope } from "../wire/meta_envelope.ts";
import {
  classifyProbeError,
  classifyProbeResult,
  describeRpcError,
  type DiscoverInfo,
  messageOf,
  type NegotiationOutcome,
  newestLegacy,
  parseInitializeResult,
  type ProbeVerdict,
} from "./probe_classifier.ts";
import {
  type Capabilities,
  type Era,
  type Implementation,
  LATEST_LEGACY_VERSION,
} from "../wire/protocol_versions.ts";
import type { TimeProvider } from "../stream/time_provider.ts";
import { settlesWithin } from "../stream/time_kit.ts";
import type { ClientTransport, TransportConnection } from "../rpc/transport.ts";
import type { ClientExchange } from "./client_exchange.ts";
import { type NegotiationInfo, NegotiationRecord, type SettledNegotiation } from "./negotiation_record.ts";
import { ConnectDeadline, type Waited } from "./connect_deadline.ts";

/** One opened connection, its exchange and the exchange's JSON-RPC peer. */
export interface LiveConnection {
  transport: TransportConnection;
  /** What the client's requests go through once the era is settled. */
  exchange: ClientExchange;
  /** The JSON-RPC peer: negotiation probes and hands-shakes on it directly. */
  rpc: JsonRpcConnection;
  /** True once anything was sent on it (the startup allowance applies only to the first probe). */
  used: boolean;
}

/** What negotiation settled on. */
export interface NegotiatedSession {
  live: LiveConnection;
  era: Era;
  protocolVersion: string;
  serverInfo?: Implementation;
  serverCapabilities: Capabilities;
  instructions?: string;
  info: NegotiationInfo;
}

/** Everything the negotiator needs from the client. */
export interface NegotiationSettings {
  era: "auto" | "modern" | "legacy";
  transport: ClientTransport;
  /** Opens a connection through `transport` and wraps it in a started JSON-RPC peer. */
  open(): Promise<LiveConnection>;
  /** Releases a connection given up on (in the background; the client awaits it on close). */
  discard(live: LiveConnection): void;
  time: TimeProvider;
  probeTimeout: number;
  processStartupAllowance: number;
  connectTimeout: number;
  cache?: EraCacheStore;
  cacheKey?: string;
  clientInfo: Implementation;
  capabilities: Capabilities;
  report(error: Error): void;
}

type ProbeAnswer =
  | { kind: "verdict"; verdict: ProbeVerdict }
  | { kind: "silence"; waitedMs: number }
  | { kind: "transport"; error: unknown };

let probeSequence = 0;

/** Runs one connect's negotiation. Throws a typed error when no era could be settled. */
export class EraNegotiator {
  readonly #s: NegotiationSettings;
  readonly #record: NegotiationRecord;
  readonly #deadline: ConnectDeadline;
  #live: LiveConnection | undefined;

  constructor(settings: NegotiationSettings) {
    this.#s = settings;
    const record = new NegotiationRecord(settings);
    this.#record = record;
    this.#deadline = new ConnectDeadline(settings.time, {
      started: record.started,
      connectTimeout: settings.connectTimeout,
      progressNote: () => record.progressNote(),
    });
  }

  /** The connection in use when negotiation failed (for the client to clean up). */
  get current(): LiveConnection | undefined {
    return this.#live;
  }

  async run(): Promise<NegotiatedSession> {
    const s = this.#s;
    const live = await this.#open();
    if (s.era === "legacy") {
      return this.#initialize(live, "requested_legacy", LATEST_LEGACY_VERSION, { fromCache: false });
    }

    const cached = s.era === "auto" ? await this.#record.cached() : undefined;
    if (cached === undefined) return this.#negotiate(live, undefined);
    try {
      return await this.#negotiate(live, cached);
    } catch (error) {
      // A failed negotiation with a cached entry forgets it, whatever the failure was.
      await this.#record.forget();
      throw error;
    }
  }

  async #negotiate(live: LiveConnection, cached: EraCacheEntry | undefined): Promise<NegotiatedSession> {
    const s = this.#s;
    if (cached?.era === "legacy") {
      const attempt = await this.#record.tryCachedLegacy(
        cached,
        (version) => this.#initialize(live, "cached_legacy", version, { fromCache: true }),
        (error) => error instanceof TimeoutError,
      );
      if (attempt.ok) return attempt.session;
      live = await this.#usableOrRespawn(live, attempt.error);
    }

    let cachedModern = cached?.era === "modern";
    let version = this.#record.firstProbeVersion(cached);
    let reprobed = false;
    for (;;) {
      const answer = await this.#probe(live, version, !reprobed);
      if (answer.kind === "verdict" && answer.verdict.kind === "reprobe") {
        if (cachedModern) await this.#record.forget();
        cachedModern = false;
        reprobed = true;
        version = answer.verdict.version;
        continue;
      }
      if (answer.kind === "verdict" && answer.verdict.kind === "modern") {
        const { verdict } = answer;
        if (cachedModern && verdict.version === version) {
          return this.#modern(live, verdict.version, verdict.discover, "cached_modern", { fromCache: true });
        }
        if (cachedModern) await this.#record.forget();
        const learnedAt = s.time.now();
        await this.#record.learn({ era: "modern", protocolVersion: verdict.version, learnedAt });
        return this.#modern(
          live,
          verdict.version,
          verdict.discover,
          reprobed ? "reprobed_modern" : "discovered_modern",
          { learned: "modern" },
        );
      }
      // Not modern: a cached modern entry was wrong.
      if (cachedModern) await this.#record.forget();
      cachedModern = false;
      return this.#afterNonModern(live, answer);
    }
  }

  async #afterNonModern(
    live: LiveConnection,
    answer: Exclude<ProbeAnswer, { kind: "verdict"; verdict: { kind: "modern" | "reprobe" } }>,
  ): Promise<NegotiatedSession> {
    const s = this.#s;
    if (answer.kind === "verdict") {
      const verdict = answer.verdict as Extract<ProbeVerdict, { kind: "legacy" }>;
      await this.#record.learnLegacy(verdict);
      if (s.era === "modern") {
        throw new NegotiationFailedError(
          `Server does not speak the modern era (era: "modern"): ${verdict.detail}. Use era: "auto" or "legacy" for a legacy server`,
        );
      }
      return this.#initialize(live, verdict.outcome, newestLegacy(verdict.legacyVersions), {
        learned: verdict.learn ? "legacy" : undefined,
        detail: verdict.detail,
      });
    }
    if (answer.kind === "silence") {
      const detail = `No answer to server/discover within ${answer.waitedMs} ms (probeTimeout)`;
      if (s.era === "modern") {
        throw new NegotiationFailedError(
          `${detail}; the server does not answer the modern era (era: "modern")`,
        );
      }
      return this.#initialize(live, "fallback_silence", LATEST_LEGACY_VERSION, { detail });
    }
    const detail = `The connection failed during the server/discover probe: ${messageOf(answer.error)}`;
    if (s.era === "modern") {
      throw new NegotiationFailedError(
        `${detail}. The server may be a legacy server that exits on any request before initialize (era: "modern")`,
        { cause: answer.error },
      );
    }
    const fresh = await this.#respawn(live, answer.error, detail);
    return this.#initialize(fresh, "fallback_respawned", LATEST_LEGACY_VERSION, { detail });
  }

  // ---- steps ----

  async #probe(live: LiveConnection, version: string, mayReprobe: boolean): Promise<ProbeAnswer> {
    const s = this.#s;
    const allowance = live.transport.newlySpawned === true && !live.used ? s.processStartupAllowance : 0;
    const budget = s.probeTimeout + allowance;
    live.used = true;
    this.#record.countProbe();
    const params = withRequestEnvelope(undefined, this.#envelope(version));
    // A string id outside the connection's counter. An unanswered probe is not cancelled on the
    // wire: a notification before `initialize` could upset a legacy server. A late reply is dropped.
    const reply = live.rpc.request("server/discover", params, { id: `discover-probe-${++probeSequence}` });
    // Swallowed on purpose: the outcome is read through #wait below; this only keeps the rejection
    // of a probe abandoned at its deadline from surfacing as unhandled.
    reply.catch(() => {});
    const waited = await this.#deadline.wait(
      reply,
      budget,
      `waiting for the server/discover probe (probeTimeout ${s.probeTimeout} ms${
        allowance ? ` + processStartupAllowance ${allowance} ms` : ""
      })`,
    );
    if (waited.ok) return { kind: "verdict", verdict: classifyProbeResult(waited.value) };
    if ("stepTimeout" in waited) return { kind: "silence", waitedMs: budget };
    if (waited.error instanceof JsonRpcError) {
      return { kind: "verdict", verdict: classifyProbeError(waited.error, mayReprobe) };
    }
    return { kind: "transport", error: waited.error };
  }

  /**
   * A write can fail before the process's exit is known; the exit (code, signal, stderr tail) tells
   * the user more. Waits for the exit status (`transport.exited`), at most a second, then prefers the
   * transport's own account.
   */
  async #exitReason(live: LiveConnection, error: unknown): Promise<unknown> {
    const transport = live.transport;
    if (typeof transport.closeError !== "function") return error;
    if (!transport.closeError() && transport.exited) {
      await settlesWithin(this.#s.time, transport.exited, 1_000);
    }
    return transport.closeError() ?? error;
  }

  async #initialize(
    live: LiveConnection,
    outcome: NegotiationOutcome,
    offered: string,
    extra: SettledNegotiation,
  ): Promise<NegotiatedSession> {
    const s = this.#s;
    live.used = true;
    const params = { protocolVersion: offered, capabilities: s.capabilities, clientInfo: s.clientInfo };
    const waited = await this.#deadline.wait(
      live.rpc.request("initialize", params),
      Infinity,
      "waiting for the initialize reply",
    );
    if (!waited.ok) {
      const error = (waited as { error: unknown }).error;
      if (error instanceof JsonRpcError) {
        throw new NegotiationFailedError(
          `Server rejected initialize (protocolVersion ${offered}) with ${describeRpcError(error)}`,
          { cause: error },
        );
      }
      const why = await this.#exitReason(live, error);
      throw new NegotiationFailedError(
        `The connection failed during initialize${this.#record.progressNote()}: ${messageOf(why)}`,
        { cause: why },
      );
    }
    const parsed = parseInitializeResult(waited.value);
    if (typeof parsed === "string") throw new NegotiationFailedError(parsed);
    await live.rpc.notify("notifications/initialized");
    return { live, era: "legacy", ...parsed, info: this.#record.info(outcome, extra) };
  }

  #modern(
    live: LiveConnection,
    version: string,
    discover: DiscoverInfo,
    outcome: NegotiationOutcome,
    extra: SettledNegotiation,
  ): NegotiatedSession {
    return { live, ...this.#record.modernSession(version, discover, outcome, extra) };
  }

  async #open(): Promise<LiveConnection> {
    const opening = this.#s.open();
    let waited: Waited<LiveConnection>;
    try {
      waited = await this.#deadline.wait(opening, Infinity, "opening the transport");
    } catch (error) {
      // A late open is released; a late open failure is dropped on purpose: connect already
      // rejected with the deadline, and there is nothing left for that failure to fail.
      opening.then((late) => this.#s.discard(late), () => {});
      throw error;
    }
    if (!waited.ok) throw (waited as { error: unknown }).error;
    this.#live = waited.value;
    return waited.value;
  }

  /** After a failed cached legacy handshake: keep the connection if it still works, else respawn. */
  #usableOrRespawn(live: LiveConnection, error: unknown): Promise<LiveConnection> {
    const transportFailed = error instanceof TransportError && error.cause !== undefined &&
      !(error.cause instanceof JsonRpcError);
    if (!transportFailed && !live.rpc.isClosed) return Promise.resolve(live);
    return this.#respawn(
      live,
      error,
      `The connection failed during the cached legacy handshake: ${messageOf(error)}`,
    );
  }

  #respawn(live: LiveConnection, cause: unknown, detail: string): Promise<LiveConnection> {
    const s = this.#s;
    if (!s.transport.canRespawn) {
      throw new NegotiationFailedError(
        `${detail}; this transport cannot start the server again (a bare duplex cannot respawn). Use a respawnable transport such as spawnProcess(), or era: "legacy"`,
        { cause },
      );
    }
    s.discard(live);
    this.#live = undefined;
    this.#record.markRespawned();
    return this.#open();
  }

  #envelope(version: string): RequestEnvelope {
    return {
      protocolVersion: version,
      clientCapabilities: this.#s.capabilities,
      clientInfo: this.#s.clientInfo,
    };
  }
}
