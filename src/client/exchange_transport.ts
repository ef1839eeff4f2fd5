/**
 * `ExchangeTransport`: a client transport that negotiates the era itself and hands
 * {@linkcode ContextClient} a ready {@linkcode ClientExchange}, instead of a byte stream for the
 * client's own stream negotiation. The HTTP client transport (`httpTransport` in `src/http`) is one:
 * over HTTP the era probe reads status codes and headers, which a byte stream does not have.
 * @module
 */
import type { EraCacheStore } from "./era_cache.ts";
import type { NegotiationInfo } from "./negotiation_record.ts";
import type { ClientExchange } from "./client_exchange.ts";
import type { Capabilities, Era, Implementation } from "../wire/protocol_versions.ts";
import type { IncomingRequest } from "../wire/json_rpc_message.ts";
import type { TimeProvider } from "../stream/time_provider.ts";
import type { ConnectionCloseInfo } from "../rpc/connection_state.ts";
import type { RequestContext } from "../rpc/request_context.ts";

/** What {@linkcode ContextClient.connect} hands an {@linkcode ExchangeTransport}. */
export interface ExchangeConnectSettings {
  era: "auto" | "modern" | "legacy";
  clientInfo: Implementation;
  capabilities: Capabilities;
  time: TimeProvider;
  /** Bounds the whole connect (probes, fallback, `initialize`). */
  connectTimeout: number;
  cache?: EraCacheStore;
  cacheKey?: string;
  report(error: Error): void;
  /** Answers a server-to-client request (legacy era). */
  onRequest(request: IncomingRequest, context: RequestContext): unknown;
  /** Receives a notification no pending request claimed. */
  onNotification(method: string, params: unknown): unknown;
  /**
   * Server messages may have been lost: a GET stream reopened without resuming, or (`sessionLost`) a
   * legacy session re-initialized after its server forgot it. The feature API drops its list cache,
   * renews resource subscriptions after a lost session, and tells listen streams (`resync`).
   */
  onResync?(info: { sessionLost: boolean }): void;
}

/** What an {@linkcode ExchangeTransport} settled on. */
export interface ExchangeSession {
  exchange: ClientExchange;
  era: Era;
  protocolVersion: string;
  serverInfo?: Implementation;
  serverCapabilities: Capabilities;
  instructions?: string;
  info: NegotiationInfo;
  /** Resolves once the exchange has ended. */
  closed: Promise<ConnectionCloseInfo>;
}

/** A transport that negotiates by itself (see the module note). */
export interface ExchangeTransport {
  /** The server's key in the era cache. */
  readonly cacheKey?: string;
  /** Negotiates the era and returns the session; rejects with a typed error (`negotiation_failed`, `timeout`, …). */
  connectExchange(settings: ExchangeConnectSettings): Promise<ExchangeSession>;
}

/** True when `value` is an {@linkcode ExchangeTransport}. */
export function isExchangeTransport(value: unknown): value is ExchangeTransport {
  return typeof value === "object" && value !== null &&
    typeof (value as ExchangeTransport).connectExchange === "function";
}
