/**
 * `RequestSender`: how {@linkcode ContextClient.request} sends in the negotiated era. Legacy
 * requests go out as they are; modern ones carry the `_meta` envelope, have their `input_required`
 * rounds fulfilled through `inputs`, and forget the cached era on a -32022 reply.
 * @module
 */
import { type EraCacheStore, forgetEra } from "./era_cache.ts";
import { ErrorCodes, JsonRpcError, ProtocolError } from "../wire/errors.ts";
import { isPlainObject, type RequestEnvelope, withRequestEnvelope } from "../wire/meta_envelope.ts";
import { envelopeMembersText, paramsTextWithEnvelope } from "../wire/envelope_text.ts";
import { JsonText } from "../wire/json_text.ts";
import type { Capabilities, Era, Implementation } from "../wire/protocol_versions.ts";
import type { ClientExchange } from "./client_exchange.ts";
import { StreamClientExchange } from "./stream_client_exchange.ts";
import type { ClientInputs } from "./client_inputs.ts";
import type { InputAnswerer } from "./input_rounds.ts";
import type { McpTelemetry, NetworkTransport } from "../telemetry/mcp_telemetry.ts";
import { type ClientRequestOptions, DEFAULT_CLIENT_INFO } from "./context_client_options.ts";
import type { DeclaredCapabilities } from "./declared_capabilities.ts";
import { traceRequest } from "./traced_request.ts";

/** The part of a client session a request needs. */
export interface SendingSession {
  era: Era;
  protocolVersion: string;
  live: { exchange: ClientExchange };
}

/** What the sender needs from its client. */
export interface RequestSenderOptions {
  /** The session; undefined before connect settled it. */
  session(): SendingSession | undefined;
  /** The client's options: `clientInfo` is read at each request. */
  clientOptions: { readonly clientInfo?: Implementation };
  capabilities: DeclaredCapabilities;
  inputs: ClientInputs;
  answerInput: InputAnswerer;
  telemetry: McpTelemetry;
  cache: EraCacheStore | undefined;
  cacheKey: string | undefined;
  report(error: Error): void;
}

/** Sends a client's requests (see the module note). */
export class RequestSender {
  readonly #o: RequestSenderOptions;
  /** The modern envelope's members as JSON text, and what it was made from. */
  #envelopeText: {
    version: string;
    capabilities: Capabilities;
    info: Implementation | undefined;
    members: string;
  } | undefined;

  constructor(options: RequestSenderOptions) {
    this.#o = options;
  }

  /** Sends a request and resolves with its result; traced when an OpenTelemetry SDK is registered. */
  send(method: string, params: unknown, options: ClientRequestOptions): Promise<unknown> {
    const telemetry = this.#o.telemetry;
    const globals = telemetry.globals();
    if (globals === undefined) return this.#send(method, params, options);
    const session = this.#o.session();
    return traceRequest(telemetry, globals, {
      method,
      params,
      options,
      networkTransport: session === undefined ? undefined : networkTransportOf(session.live.exchange),
      protocolVersion: session?.protocolVersion,
      send: (m, p, o) => this.#send(m, p, o),
    });
  }

  #send(method: string, params: unknown, options: ClientRequestOptions): Promise<unknown> {
    // Not an async function: this runs once per request (an async layer is a promise and a hop).
    try {
      const session = this.#o.session()!;
      const { exchange } = session.live;
      const sent = {
        signal: options.signal,
        onNotification: options.onNotification,
        id: options.id,
        idempotent: options.idempotent,
      };
      if (session.era !== "modern") return exchange.request(method, params, sent);
      if (params !== undefined && !isPlainObject(params)) {
        throw new ProtocolError(
          `Request params must be an object in the modern era, got ${
            Array.isArray(params) ? "an array" : typeof params
          }`,
        );
      }
      const envelope = {
        protocolVersion: session.protocolVersion,
        clientCapabilities: options.clientCapabilities ?? this.#o.capabilities.current(),
        clientInfo: this.#o.clientOptions.clientInfo ?? DEFAULT_CLIENT_INFO,
      };
      let reply: Promise<unknown>;
      if (options.inputRequired === "manual") {
        reply = exchange.request(method, this.#withEnvelope(exchange, params, envelope), sent);
      } else {
        // Each retry is a new request (a new id) with this request's own answers and state.
        const send = (m: string, p: Record<string, unknown>) =>
          exchange.request(m, this.#withEnvelope(exchange, p, envelope), sent);
        const rounds = {
          signal: options.signal,
          maxInputRounds: options.maxInputRounds,
          answer: this.#o.answerInput,
        };
        reply = this.#o.inputs.request(send, method, (params ?? {}) as Record<string, unknown>, rounds);
      }
      return reply.then(undefined, this.#modernRequestFailed);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A modern request failed: a -32022 reply forgets the cached era; the error goes on to the caller. */
  readonly #modernRequestFailed = async (error: unknown): Promise<never> => {
    const { cache, cacheKey } = this.#o;
    if (
      error instanceof JsonRpcError && error.code === ErrorCodes.UnsupportedProtocolVersion && cache &&
      cacheKey !== undefined
    ) {
      await forgetEra(cache, cacheKey, (e) => this.#o.report(e));
    }
    throw error;
  };

  /**
   * `params` with the modern envelope in `_meta`. On a stream, as JSON text with the envelope's text
   * spliced in (made once per protocol version, capabilities and client info objects, see
   * `envelope_text.ts`); as an object on other exchanges, or when `params` has a `_meta` of its own.
   */
  #withEnvelope(exchange: unknown, params: unknown, envelope: RequestEnvelope): Record<string, unknown> {
    if (exchange instanceof StreamClientExchange) {
      let cached = this.#envelopeText;
      if (
        cached?.version !== envelope.protocolVersion || cached.capabilities !== envelope.clientCapabilities ||
        cached.info !== envelope.clientInfo
      ) {
        cached = {
          version: envelope.protocolVersion,
          capabilities: envelope.clientCapabilities,
          info: envelope.clientInfo,
          members: envelopeMembersText(envelope),
        };
        this.#envelopeText = cached;
      }
      const text = paramsTextWithEnvelope(params, cached.members);
      // The connection sends JSON text params as they are (a JsonText is not a user-visible value).
      if (text !== undefined) return new JsonText(text) as unknown as Record<string, unknown>;
    }
    return withRequestEnvelope(params, envelope);
  }
}

/** The `network.transport` of a telemetry record: `pipe` on a stream, `tcp` over HTTP. */
export function networkTransportOf(exchange: ClientExchange): NetworkTransport {
  return exchange instanceof StreamClientExchange ? "pipe" : "tcp";
}
