/**
 * `httpTransport(url, options)`: the Streamable HTTP client transport of {@linkcode ContextClient},
 * in both eras. Connecting probes the era as the 2026-07-28 transport page says: `server/discover`
 * with the modern headers first; a 400 whose JSON-RPC error code is modern (-32022, -32021, -32020)
 * means modern; any other 4xx means legacy `initialize`; no answer in time is an error, never a
 * legacy signal. The era is cached per endpoint.
 * @module
 */
import {
  asError,
  ErrorCodes,
  InvalidOptionError,
  JsonRpcError,
  NegotiationFailedError,
  TimeoutError,
} from "../../wire/errors.ts";
import { classifyMessage } from "../../wire/json_rpc_message.ts";
import { withRequestEnvelope } from "../../wire/meta_envelope.ts";
import {
  type Era,
  eraOf,
  LATEST_LEGACY_VERSION,
  LATEST_MODERN_VERSION,
} from "../../wire/protocol_versions.ts";
import { integerOption, numberOption } from "../../stream/options.ts";
import { timeoutSignal } from "../../stream/time_kit.ts";
import { type EraCacheEntry, forgetEra, readEra, storeEra } from "../../client/era_cache.ts";
import type { NegotiationInfo } from "../../client/era_negotiation.ts";
import type {
  ExchangeConnectSettings,
  ExchangeSession,
  ExchangeTransport,
} from "../../client/exchange_transport.ts";
import {
  classifyProbeError,
  classifyProbeResult,
  describeRpcError,
  type DiscoverInfo,
  type NegotiationOutcome,
  newestLegacy,
  parseInitializeResult,
  type ProbeVerdict,
} from "../../client/probe_classifier.ts";
import { deriveRequestHeaders, HEADER_MISMATCH } from "../mcp_request_headers.ts";
import {
  ACCEPT_BOTH,
  type FetchLike,
  type HeadersSource,
  HttpEndpoint,
  type HttpReply,
  type HttpSend,
} from "./http_endpoint.ts";
import { HttpStatusError } from "./http_client_errors.ts";
import { ModernHttpExchange } from "./modern_http_exchange.ts";
import { LegacyHttpClientSession, type ReconnectOptions } from "./legacy_http_client_session.ts";
import { readResponseExcerpt } from "./read_response_text.ts";
import { connectLegacySse } from "./legacy_sse_client.ts";

/** Options of {@linkcode httpTransport}. */
export interface HttpTransportOptions {
  /**
   * The `fetch` every request goes through (authentication wrappers, test doubles, undici's `fetch`
   * on Node). Default: the runtime's global `fetch`.
   */
  fetch?: FetchLike;
  /**
   * Sends every request in place of `fetch`, when no `fetch` is given: the seam the Node entry's
   * `httpTransport` fills with undici's dispatcher API. Default: none (`fetch` sends).
   */
  send?: HttpSend;
  /** Headers added to every request (e.g. `Authorization`), or a function returning them per request. */
  headers?: HeadersSource;
  /** Milliseconds a request may go without its reply or a progress notification. Default 60 000; `Infinity` turns it off. */
  requestTimeout?: number;
  /** Milliseconds a request may take in all, progress or not. Default 600 000; `Infinity` turns it off. */
  maxTotalTimeout?: number;
  /** Legacy era: open the GET stream for server-initiated messages after `initialize`. Default true. */
  listen?: boolean;
  /** Legacy era: how the GET stream and interrupted response streams reconnect. */
  reconnect?: ReconnectOptions;
  /** Largest SSE event accepted, in bytes. Default 4 MiB. */
  maxEventBytes?: number;
  /** Largest `application/json` response body accepted, in bytes; a bigger one fails the request with `ResponseTooLargeError`. Default 4 MiB. */
  maxResponseBytes?: number;
  /**
   * `"streamable-http"`: only Streamable HTTP. `"sse"`: the deprecated HTTP+SSE transport of
   * 2024-11-05 (`GET` the URL, POST to its `endpoint` event's URL). `"auto"` (default): Streamable
   * HTTP, and when `initialize` gets a 4xx other than 401/403, the HTTP+SSE transport, as the spec's
   * backwards-compatibility section says.
   */
  transport?: "auto" | "streamable-http" | "sse";
}

/** The {@linkcode ExchangeTransport} that {@linkcode httpTransport} returns. */
export interface HttpTransport extends ExchangeTransport {
  /** The MCP endpoint. */
  readonly url: string;
  /** The era cache key: the endpoint's origin and path (`http://127.0.0.1:3000/mcp`). */
  readonly cacheKey: string;
}

/**
 * The Streamable HTTP client transport for {@linkcode ContextClient.connect}.
 *
 * @example
 * ```ts
 * declare const token: string;
 * const client = await ContextClient.connect(httpTransport("https://example.com/mcp", {
 *   headers: { Authorization: `Bearer ${token}` },
 * }));
 * console.log(client.era, client.protocolVersion);
 * const tools = await client.listTools();
 * await client.close(); // legacy sessions end with DELETE
 * ```
 */
export function httpTransport(url: string | URL, options: HttpTransportOptions = {}): HttpTransport {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidOptionError(
      `The httpTransport URL must be an absolute http(s) URL, got ${JSON.stringify(String(url))}`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new InvalidOptionError(
      `The httpTransport URL must be http: or https:, got ${JSON.stringify(parsed.protocol)}`,
    );
  }
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw new InvalidOptionError("Option fetch must be a function");
  }
  if (options.send !== undefined && typeof options.send !== "function") {
    throw new InvalidOptionError("Option send must be a function");
  }
  const timeouts = {
    timeout: numberOption("requestTimeout", options.requestTimeout, 60_000, 1),
    maxTotalTimeout: numberOption("maxTotalTimeout", options.maxTotalTimeout, 600_000, 1),
  };
  const r = options.reconnect ?? {};
  const reconnect = {
    initialDelay: numberOption("reconnect.initialDelay", r.initialDelay, 1_000),
    maxDelay: numberOption("reconnect.maxDelay", r.maxDelay, 30_000),
    factor: numberOption("reconnect.factor", r.factor, 1.5, 1),
    maxAttempts: integerOption("reconnect.maxAttempts", r.maxAttempts, 10, 1),
  };
  const endpoint = new HttpEndpoint(parsed, {
    fetch: options.fetch,
    send: options.send,
    headers: options.headers,
    maxEventBytes: options.maxEventBytes,
    maxResponseBytes: options.maxResponseBytes,
  });
  const cacheKey = `${parsed.origin}${parsed.pathname}`;
  const transport = options.transport ?? "auto";
  if (transport !== "auto" && transport !== "streamable-http" && transport !== "sse") {
    throw new InvalidOptionError(
      `Option transport must be "auto", "streamable-http" or "sse", got ${JSON.stringify(transport)}`,
    );
  }
  const sseOptions = { fetch: options.fetch, headers: options.headers, maxEventBytes: options.maxEventBytes };
  return {
    url: parsed.href,
    cacheKey,
    connectExchange: async (settings) => {
      if (transport === "sse") return connectLegacySse(parsed, sseOptions, settings);
      try {
        return await new HttpEraProbe(endpoint, settings, {
          timeouts,
          reconnect,
          listen: options.listen ?? true,
        })
          .run();
      } catch (error) {
        if (transport === "streamable-http" || settings.era === "modern" || !refusedAsLegacySse(error)) {
          throw error;
        }
        try {
          return await connectLegacySse(parsed, sseOptions, settings);
        } catch {
          throw error; // not an HTTP+SSE server either: the Streamable HTTP failure says more
        }
      }
    },
  };
}

/** True for a 4xx answer (not 401/403) to the Streamable HTTP handshake: a server of the HTTP+SSE transport, maybe. */
function refusedAsLegacySse(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e instanceof HttpStatusError) {
      const status = (e as unknown as { status: number }).status;
      return status >= 400 && status < 500 && status !== 401 && status !== 403;
    }
  }
  return false;
}

/** What a probe answer over HTTP means. */
type HttpVerdict = ProbeVerdict | { kind: "modern-refusal"; code: number; detail: string };

interface ProbeSettings {
  timeouts: { timeout: number; maxTotalTimeout: number };
  reconnect: Required<ReconnectOptions>;
  listen: boolean;
}

/** One connect over HTTP: probe, classify, cache, then hand back the exchange. */
class HttpEraProbe {
  readonly #endpoint: HttpEndpoint;
  readonly #s: ExchangeConnectSettings;
  readonly #p: ProbeSettings;
  readonly #started: number;
  #probes = 0;
  #forgotten = false;
  #signal!: AbortSignal;

  constructor(endpoint: HttpEndpoint, settings: ExchangeConnectSettings, probe: ProbeSettings) {
    this.#endpoint = endpoint;
    this.#s = settings;
    this.#p = probe;
    this.#started = settings.time.now();
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
      ? await readEra(s.cache, s.cacheKey, s.report)
      : undefined;
    if (cached?.era === "legacy") {
      try {
        const version = cached.protocolVersion !== undefined && eraOf(cached.protocolVersion) === "legacy"
          ? cached.protocolVersion
          : LATEST_LEGACY_VERSION;
        return await this.#legacy("cached_legacy", version, { fromCache: true });
      } catch (error) {
        if (error instanceof TimeoutError || this.#signal.aborted) throw error;
        s.report(
          new NegotiationFailedError(
            `Cached legacy era failed for ${JSON.stringify(s.cacheKey)}: ${
              asError(error).message
            }; probing again`,
            { cause: error },
          ),
        );
        await this.#forget();
      }
    }
    const cachedModern = cached?.era === "modern";
    let version = cachedModern && eraOf(cached!.protocolVersion ?? "") === "modern"
      ? cached!.protocolVersion!
      : LATEST_MODERN_VERSION;
    let reprobed = false;
    for (;;) {
      let verdict: HttpVerdict;
      try {
        verdict = await this.#probe(version, !reprobed);
      } catch (error) {
        if (cachedModern) await this.#forget();
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
          await this.#learn({ era: "modern", protocolVersion: agreed, learnedAt: s.time.now() });
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
      if (cachedModern) await this.#forget();
      if (verdict.learn) {
        const entry: EraCacheEntry = { era: "legacy", learnedAt: s.time.now() };
        if (verdict.legacyVersions.length > 0) entry.protocolVersion = newestLegacy(verdict.legacyVersions);
        await this.#learn(entry);
      }
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

  /** POSTs `server/discover` with the modern headers and classifies the answer. Throws when the answer says nothing about the era. */
  async #probe(version: string, mayReprobe: boolean): Promise<HttpVerdict> {
    const s = this.#s;
    this.#probes++;
    const message = {
      jsonrpc: "2.0",
      id: `discover-probe-${this.#probes}`,
      method: "server/discover",
      params: withRequestEnvelope(undefined, {
        protocolVersion: version,
        clientCapabilities: s.capabilities,
        clientInfo: s.clientInfo,
      }),
    };
    const headers = {
      "Content-Type": "application/json",
      Accept: ACCEPT_BOTH,
      ...deriveRequestHeaders(message),
    };
    let response: HttpReply;
    try {
      response = await this.#endpoint.send("POST", {
        headers,
        body: JSON.stringify(message),
        signal: this.#signal,
      });
    } catch (error) {
      if (this.#signal.aborted) throw this.#signal.reason;
      throw new NegotiationFailedError(
        `The server/discover probe to ${this.#endpoint.url} failed: ${asError(error).message}`,
        { cause: error },
      );
    }
    const status = response.status;
    if (response.ok && status !== 202) {
      let reply: { result: unknown } | { error: JsonRpcError } | undefined;
      await this.#endpoint.read(response, (value) => {
        const m = classifyMessage(value);
        if ((m.kind === "result" || m.kind === "error") && m.id === message.id) {
          reply = m.kind === "result" ? { result: m.result } : { error: m.error };
          return true;
        }
        return false;
      });
      if (reply === undefined) {
        throw new NegotiationFailedError(
          `The server answered the server/discover probe with HTTP ${status} but no reply`,
        );
      }
      return "result" in reply
        ? classifyProbeResult(reply.result)
        : classifyProbeError(reply.error, mayReprobe);
    }
    const { text } = await readResponseExcerpt(response);
    let error: JsonRpcError | undefined;
    try {
      const m = classifyMessage(JSON.parse(text));
      if (m.kind === "error") error = m.error;
    } catch {
      // Not JSON: only the status speaks.
    }
    if (status >= 400 && status < 500) {
      if (error?.code === ErrorCodes.UnsupportedProtocolVersion) return classifyProbeError(error, mayReprobe);
      if (error?.code === ErrorCodes.MissingRequiredClientCapability || error?.code === HEADER_MISMATCH) {
        return {
          kind: "modern-refusal",
          code: error.code,
          detail: `server/discover was answered HTTP ${status} with ${
            describeRpcError(error)
          }, a modern error`,
        };
      }
      if (error !== undefined) {
        const verdict = classifyProbeError(error, false) as Extract<ProbeVerdict, { kind: "legacy" }>;
        return { ...verdict, detail: `HTTP ${status}: ${verdict.detail}` };
      }
      return {
        kind: "legacy",
        outcome: "fallback_rpc_error",
        learn: false,
        legacyVersions: [],
        detail: `server/discover was answered HTTP ${status} without a JSON-RPC error${
          text ? `: ${JSON.stringify(text.slice(0, 100))}` : ""
        }`,
      };
    }
    const cause = error ?? new HttpStatusError("server/discover", { status, body: text });
    throw new NegotiationFailedError(
      `The server/discover probe to ${this.#endpoint.url} was answered HTTP ${status}: ${cause.message}`,
      { cause },
    );
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
    const session: ExchangeSession = {
      exchange,
      era: "modern",
      protocolVersion: version,
      serverCapabilities: discover.capabilities,
      info: this.#info(outcome, extra),
      closed: exchange.closed,
    };
    if (discover.serverInfo) session.serverInfo = discover.serverInfo;
    if (discover.instructions !== undefined) session.instructions = discover.instructions;
    return session;
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
      info: this.#info(outcome, extra),
      closed: session.closed,
    };
  }

  #info(outcome: NegotiationOutcome, extra: Partial<NegotiationInfo>): NegotiationInfo {
    const info: NegotiationInfo = {
      outcome,
      elapsedMs: this.#s.time.now() - this.#started,
      probes: this.#probes,
      respawned: false,
      fromCache: extra.fromCache ?? false,
      forgotten: this.#forgotten,
    };
    if (extra.learned !== undefined) info.learned = extra.learned as Era;
    if (extra.detail !== undefined) info.detail = extra.detail;
    return info;
  }

  async #learn(entry: EraCacheEntry): Promise<void> {
    const { cache, cacheKey, report } = this.#s;
    if (cache && cacheKey !== undefined) await storeEra(cache, cacheKey, entry, report);
  }

  async #forget(): Promise<void> {
    const { cache, cacheKey, report } = this.#s;
    if (!cache || cacheKey === undefined || this.#forgotten) return;
    this.#forgotten = true;
    await forgetEra(cache, cacheKey, report);
  }
}
