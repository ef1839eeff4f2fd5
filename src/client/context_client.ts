/**
 * `ContextClient`: one MCP client for servers of either era, over any {@linkcode ClientTransport}
 * or bare duplex. It negotiates the era at connect (see {@linkcode NegotiationOutcome}), then
 * `request` works the same in both eras.
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import { defaultEraCache, type EraCacheStore, forgetEra } from "./era_cache.ts";
import {
  EraNegotiator,
  type LiveConnection,
  type NegotiatedSession,
  type NegotiationInfo,
} from "./era_negotiation.ts";
import { asError, ErrorCodes, InvalidOptionError, JsonRpcError, ProtocolError } from "../wire/errors.ts";
import type { IncomingRequest } from "../wire/json_rpc_message.ts";
import type {
  KnownMethod,
  MethodMap,
  NoMethods,
  NotificationMap,
  NotificationParamsOf,
  OtherMethod,
  ParamsOf,
  ResultOf,
  UntypedMethod,
} from "../wire/method_map.ts";
import type {
  ConnectionCloseInfo,
  JsonRpcConnection,
  JsonRpcConnectionOptions,
  RequestContext,
} from "../rpc/json_rpc_connection.ts";
import { HandlerRegistry } from "../rpc/handler_registry.ts";
import { isPlainObject, type RequestEnvelope, withRequestEnvelope } from "../wire/meta_envelope.ts";
import { envelopeMembersText, paramsTextWithEnvelope } from "../wire/envelope_text.ts";
import { JsonText } from "../wire/json_text.ts";
import { numberOption } from "../stream/options.ts";
import type { Capabilities, Era, Implementation } from "../wire/protocol_versions.ts";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";
import {
  type ClientTransport,
  isClientTransport,
  singleConnection,
  type TransportConnection,
} from "../rpc/transport.ts";
import type { RelatedNotificationHandler } from "./client_exchange.ts";
import { StreamClientExchange } from "./stream_client_exchange.ts";
import {
  type CallToolOptions,
  type ClientFeatureOptions,
  ClientFeatures,
  type CompleteOptions,
} from "./features/client_features.ts";
import type { ChangeStream } from "./features/change_stream.ts";
import type * as F from "./features/feature_types.ts";
import type { FeatureRequestOptions } from "./features/feature_request.ts";
import type { IterateOptions, ListOptions } from "./features/list_reader.ts";
import type { ListenOptions } from "./features/open_listen.ts";
import type { ClientTask, FollowTaskOptions } from "./features/task_follower.ts";
import type { LoggingLevel } from "../wire/meta_envelope.ts";
import type { RequestId } from "../wire/protocol/mod.ts";
import {
  ClientInputs,
  type ElicitHandler,
  type ElicitHandlerOptions,
  type ListRootsHandler,
  type SampleHandler,
  type SampleHandlerOptions,
} from "./client_inputs.ts";
import type { InputAnswerer } from "./input_rounds.ts";
import type { Root } from "../wire/protocol/v2026_07_28.ts";
import { type ExchangeSession, type ExchangeTransport, isExchangeTransport } from "./exchange_transport.ts";
import { quotePeerText } from "../wire/quote_peer_text.ts";
import { McpTelemetry, type TelemetryOptions } from "../telemetry/mcp_telemetry.ts";
import {
  activeContext,
  OTEL_SPAN_KEY,
  type OtelContext,
  type OtelGlobals,
} from "../telemetry/otel_globals.ts";
import { extractTraceContext, injectTraceContext } from "../telemetry/trace_context.ts";

export type { NegotiationInfo } from "./era_negotiation.ts";
export type { NegotiationOutcome } from "./probe_classifier.ts";
export type {
  ClientExchange,
  ExchangeRequestOptions,
  RelatedNotificationHandler,
} from "./client_exchange.ts";
export type { ExchangeConnectSettings, ExchangeSession, ExchangeTransport } from "./exchange_transport.ts";

/** A stream session, or an exchange transport's (HTTP), which has no JSON-RPC connection underneath. */
type ClientSession =
  | NegotiatedSession
  | (Omit<ExchangeSession, "exchange"> & {
    live: { exchange: ExchangeSession["exchange"]; rpc?: undefined; transport?: undefined };
  });

/** The bounds of the client's connection: every {@linkcode JsonRpcConnectionOptions} the client does not set itself. */
export type ClientConnectionOptions = Omit<
  JsonRpcConnectionOptions,
  "onRequest" | "onNotification" | "isBarrier" | "onReport" | "timeProvider"
>;

/** Options of {@linkcode ContextClient.connect}. Client-level options are top level; the connection's bounds sit under `connection`. */
export interface ContextClientOptions {
  /** `"auto"` probes modern first and falls back; `"modern"` and `"legacy"` insist. Default `"auto"`. */
  era?: "auto" | "modern" | "legacy";
  /** How long a `server/discover` probe may go unanswered before legacy fallback. Default 5 000 ms. */
  probeTimeout?: number;
  /** Added to the first probe of a newly spawned process (`newlySpawned`). Default 10 000 ms. */
  processStartupAllowance?: number;
  /** Bounds the whole connect: probes, fallback, respawn and `initialize`. Default 30 000 ms. */
  connectTimeout?: number;
  /** Where eras are remembered. Default: a shared in-memory {@linkcode EraCache}; `null` turns caching off. */
  eraCache?: EraCacheStore | null;
  /** The server's key in the cache. Default: the transport's `cacheKey`; a bare duplex has none (no caching). */
  cacheKey?: string;
  /** Who this client is. Default `{ name: "onemodelcontext", version: "0.1.0" }`. */
  clientInfo?: Implementation;
  /** What this client can do, beyond what `inputs` implies (these win on a clash). Default `{}`. */
  capabilities?: Capabilities;
  /** Options of the feature API (`listTools`, `callTool`, `listen`…): bounds, timeouts, cache, validator. */
  features?: ClientFeatureOptions;
  /**
   * What servers may ask this client (elicitation, sampling, roots): the handlers' capabilities are
   * declared (in `initialize`, and in every modern request's `_meta`), legacy server requests are
   * answered, and modern `input_required` results are fulfilled and retried. Register legacy-era
   * handlers here, before connecting: `initialize` declares them once. Default: an empty
   * {@linkcode ClientInputs} (see {@linkcode ContextClient.onElicit} and friends).
   */
  inputs?: ClientInputs;
  /** The clock of every deadline. Default: the system clock. */
  timeProvider?: TimeProvider;
  /**
   * OpenTelemetry spans and metrics (MCP semantic conventions) through `@opentelemetry/api`, when an
   * SDK is registered; the trace context travels in `params._meta`. `enabled` (default `true`),
   * `maxSpanEvents` (default 16). See docs/observability.md.
   */
  telemetry?: TelemetryOptions;
  /** Every bad thing that is nobody's exception: stray server output, unknown reply ids, cache failures. */
  onReport?: (error: Error) => void;
  /**
   * Bounds of the connection (`shutdownTimeout`, `maxConcurrentRequests`, …; its stream's under
   * `channel`). `answerInvalidInput` defaults to `false` here: a server's stray stdout lines are
   * reported, never answered.
   */
  connection?: ClientConnectionOptions;
}

/** Options of one {@linkcode ContextClient.request}. */
export interface ClientRequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Receives the notifications tied to this request while it is pending (on a stream: the
   * `notifications/progress` that carry its `params._meta.progressToken`), instead of the handlers
   * of {@linkcode ContextClient.onNotification}.
   */
  onNotification?: RelatedNotificationHandler;
  /** The JSON-RPC id to send. Default: the next value of the connection's counter. */
  id?: RequestId;
  /** Modern `input_required` results: `"auto"` (default) fulfils them through `inputs` and retries; `"manual"` returns them. */
  inputRequired?: "auto" | "manual";
  /** Retries `input_required` may cause before the request fails. Default: the `inputs`' `maxInputRounds` (10). */
  maxInputRounds?: number;
  /**
   * Modern era: the client capabilities this request's envelope declares instead of this client's
   * own (a gateway passing on another client's request, with `inputRequired: "manual"`). Ignored in
   * the legacy era, where `initialize` declared them.
   */
  clientCapabilities?: Capabilities;
  /**
   * Marks the request safe to repeat: over HTTP, a response stream that breaks before the reply
   * re-issues it once with a new id instead of rejecting. Default `false`.
   */
  idempotent?: boolean;
}

/** Answers one server-to-client request; the value becomes the result, a thrown `JsonRpcError` the error reply. */
export type ClientRequestHandler<P = unknown, R = unknown> = (
  params: P,
  context: RequestContext,
) => R | Promise<R>;
/** Handles one notification from the server. */
export type ClientNotificationHandler<P = unknown> = (params: P) => unknown;

/** Connection and channel option names that moved under `connection` (a JavaScript caller gets told). */
const CONNECTION_KEYS = [
  "endOfStreamTimeout",
  "shutdownTimeout",
  "maxConcurrentRequests",
  "maxQueuedInputBytes",
  "answerInvalidInput",
  "maxQueuedOutputBytes",
  "writeBlockBytes",
  "maxMessageBytes",
  "drainTimeout",
];

const DEFAULT_CLIENT_INFO: Implementation = { name: "onemodelcontext", version: "0.1.0" };
/** The server-to-client requests `ClientInputs` answers. */
const INPUT_REQUEST_METHODS: ReadonlySet<string> = new Set([
  "elicitation/create",
  "sampling/createMessage",
  "roots/list",
]);

/**
 * An MCP client connected to one server, in the era it negotiated. Its requests go through a
 * {@linkcode ClientExchange}; its server-to-client handlers live in one registry.
 *
 * The method maps (see {@linkcode MethodMap}) type `request()` (`Requests`: what it sends),
 * `onNotification()` (`Notifications`: what the server sends) and `handle()` (`ServerRequests`);
 * methods they do not name stay allowed, with `unknown` params and results.
 *
 * @example
 * ```ts
 * const client = await ContextClient.connect(spawnProcess("node", ["server.js"]), { era: "auto" });
 * console.log(client.era, client.protocolVersion, client.serverInfo, client.negotiation.outcome);
 * const { tools } = await client.request<{ tools: unknown[] }>("tools/list", {});
 * await client.close();
 * ```
 */
export class ContextClient<
  Requests extends MethodMap<Requests> = NoMethods,
  Notifications extends NotificationMap = NoMethods,
  ServerRequests extends MethodMap<ServerRequests> = NoMethods,
> implements AsyncDisposable {
  readonly #options: ContextClientOptions;
  readonly #telemetry: McpTelemetry;
  readonly #sessionStart: number;
  readonly #cache: EraCacheStore | undefined;
  readonly #cacheKey: string | undefined;
  readonly #handlers = new HandlerRegistry<ClientRequestHandler, ClientNotificationHandler>();
  readonly #background = new Set<Promise<unknown>>();
  readonly #inputs: ClientInputs;
  /** `#capabilities()` when it merges two objects: the same object while neither changes. */
  #mergedCapabilities: { own: Capabilities; implied: Capabilities; capabilities: Capabilities } | undefined;
  /** The modern envelope's members as JSON text, and what it was made from. */
  #envelopeText: {
    version: string;
    capabilities: Capabilities;
    info: Implementation | undefined;
    members: string;
  } | undefined;
  #session!: ClientSession;
  #era: Era | undefined;
  #closing: Promise<void> | undefined;
  #transportClosing: Promise<void> | undefined;
  readonly #features: ClientFeatures;
  /** Connected through an `ExchangeTransport` (HTTP): each request on its own connection. */
  #separateRequests = false;

  private constructor(
    options: ContextClientOptions,
    cache: EraCacheStore | undefined,
    cacheKey: string | undefined,
  ) {
    this.#options = options;
    this.#telemetry = new McpTelemetry(
      "client",
      options.timeProvider ?? systemTimeProvider,
      options.telemetry,
    );
    this.#sessionStart = this.#telemetry.now();
    this.#cache = cache;
    this.#cacheKey = cacheKey;
    const inputs = options.inputs ?? new ClientInputs({ timeProvider: options.timeProvider });
    this.#features = new ClientFeatures({
      era: () => this.era,
      serverCapabilities: () => this.serverCapabilities,
      time: options.timeProvider ?? systemTimeProvider,
      // The feature API runs the input_required rounds itself (the same loop, with its typed errors and per-call timeouts): raw results here.
      request: (method, params, o) =>
        (this as unknown as ContextClient).request<unknown>(method, params, {
          ...o,
          inputRequired: "manual",
        }),
      closed: () => this.closed,
      report: (error) => this.#report(error),
      separateRequests: () => this.#separateRequests,
      answerInputRequest: this.#answerInput,
      get stateOnlyRetryDelay() {
        return inputs.stateOnlyRetryDelay;
      },
    }, options.features);
    this.#inputs = inputs;
  }

  /**
   * Answers one modern input request (`elicitation/create`, `sampling/createMessage`, `roots/list`),
   * for `request()` and the feature API alike: a `handle()` handler for `method` first, then
   * `inputs`; `undefined` when neither answers it or `method` is not an input request method.
   */
  readonly #answerInput: InputAnswerer = (method, params, context) => {
    if (!INPUT_REQUEST_METHODS.has(method)) return undefined;
    const handler = this.#handlers.request(method);
    if (handler) {
      return Promise.resolve(
        handler(params, { id: context.key, method, signal: context.signal, notify: () => Promise.resolve() }),
      );
    }
    return this.#inputs.canAnswer(method)
      ? this.#inputs.answer(method, params, { era: "modern", ...context })
      : undefined;
  };

  /**
   * Connects and negotiates the era. Rejects with a `TransportError` whose `code` is
   * `"negotiation_failed"` (with a message naming what the server answered), `"timeout"`
   * (`connectTimeout` ran out) or `"invalid_option"`.
   */
  static async connect<
    Requests extends MethodMap<Requests> = NoMethods,
    Notifications extends NotificationMap = NoMethods,
    ServerRequests extends MethodMap<ServerRequests> = NoMethods,
  >(
    transport: ClientTransport | ExchangeTransport | Duplex,
    options: ContextClientOptions = {},
  ): Promise<ContextClient<Requests, Notifications, ServerRequests>> {
    const era = options.era ?? "auto";
    if (era !== "auto" && era !== "modern" && era !== "legacy") {
      throw new InvalidOptionError(
        `Option era must be "auto", "modern" or "legacy", got ${JSON.stringify(era)}`,
      );
    }
    if (options.connection !== undefined && !isPlainObject(options.connection)) {
      throw new InvalidOptionError("Option connection must be an object");
    }
    for (const key of CONNECTION_KEYS) {
      if (key in options) {
        throw new InvalidOptionError(
          `Option ${key} belongs under connection: { ${key} } (options nest by layer)`,
        );
      }
    }
    const probeTimeout = numberOption("probeTimeout", options.probeTimeout, 5_000);
    const processStartupAllowance = numberOption(
      "processStartupAllowance",
      options.processStartupAllowance,
      10_000,
    );
    const connectTimeout = numberOption("connectTimeout", options.connectTimeout, 30_000);
    const cache = options.eraCache === null ? undefined : options.eraCache ?? defaultEraCache;
    const time = options.timeProvider ?? systemTimeProvider;
    if (isExchangeTransport(transport)) {
      const cacheKey = options.cacheKey ?? transport.cacheKey;
      const client = new ContextClient<Requests, Notifications, ServerRequests>(options, cache, cacheKey);
      const session = await transport.connectExchange({
        era,
        clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
        capabilities: client.#capabilities(),
        time,
        connectTimeout,
        cache,
        cacheKey,
        report: (error) => client.#report(error),
        onRequest: (request, context) => client.#dispatchRequest(request, context),
        onNotification: (method, params) => {
          client.#features.dispatchNotification(method, params);
          return client.#handlers.notification(method)?.(params);
        },
        onResync: (info) => client.#features.resync(info),
      });
      client.#session = { ...session, live: { exchange: session.exchange } };
      client.#era = session.era;
      client.#separateRequests = true;
      client.#watchRoots();
      return client;
    }
    const source = isClientTransport(transport)
      ? transport
      : singleConnection(transport as TransportConnection);
    const cacheKey = options.cacheKey ?? source.cacheKey;
    const client = new ContextClient<Requests, Notifications, ServerRequests>(options, cache, cacheKey);
    const negotiator = new EraNegotiator({
      era,
      transport: source,
      open: () => client.#open(source),
      discard: (live) => client.#track(client.#release(live)),
      time,
      probeTimeout,
      processStartupAllowance,
      connectTimeout,
      cache,
      cacheKey,
      clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
      capabilities: client.#capabilities(),
      report: (error) => client.#report(error),
    });
    try {
      client.#session = await negotiator.run();
    } catch (error) {
      const live = negotiator.current;
      if (live) client.#track(client.#release(live));
      await client.#settleBackground();
      throw error;
    }
    client.#era = client.#session.era;
    client.#watchRoots();
    const { live } = client.#session as NegotiatedSession;
    live.rpc.closed.then(() => client.#closeTransport(live.transport));
    return client;
  }

  /** The negotiated era. */
  get era(): Era {
    return this.#session.era;
  }

  /** The negotiated protocol version (modern: sent on every request; legacy: from `initialize`). */
  get protocolVersion(): string {
    return this.#session.protocolVersion;
  }

  /** Who the server says it is (from `initialize`, or the DiscoverResult), when it said. */
  get serverInfo(): Implementation | undefined {
    return this.#session.serverInfo;
  }

  /** What the server says it can do. */
  get serverCapabilities(): Capabilities {
    return this.#session.serverCapabilities;
  }

  /** The server's usage instructions, when it gave any. */
  get instructions(): string | undefined {
    return this.#session.instructions;
  }

  /** How the era was decided: outcome, elapsed ms, probes, respawn, cache use. */
  get negotiation(): NegotiationInfo {
    return { ...this.#session.info };
  }

  /** The JSON-RPC connection underneath (for diagnostics and advanced use); an HTTP client has none and throws `ProtocolError`. */
  get connection(): JsonRpcConnection {
    const { rpc } = this.#session.live;
    if (rpc === undefined) {
      throw new ProtocolError(
        "This client has no JsonRpcConnection: it talks through an exchange transport (HTTP)",
      );
    }
    return rpc;
  }

  /** Resolves with how the connection ended, once it has. */
  get closed(): Promise<ConnectionCloseInfo> {
    const session = this.#session;
    return "closed" in session ? session.closed : session.live.rpc.closed;
  }

  /**
   * Sends a request and resolves with its result. In the modern era `params._meta` gets the
   * envelope (protocol version, client capabilities, client info); other `_meta` keys such as
   * `progressToken` are kept. A -32022 reply in the modern era forgets the cached era.
   */
  request<M extends KnownMethod<Requests>>(
    method: M,
    params?: ParamsOf<Requests, M>,
    options?: ClientRequestOptions,
  ): Promise<ResultOf<Requests, M>>;
  /** Sends a request `Requests` does not name: its result is `unknown`. */
  request<M extends string>(
    method: M & OtherMethod<Requests, M>,
    params?: Record<string, unknown>,
    options?: ClientRequestOptions,
  ): Promise<unknown>;
  /** Sends a request whose result type `T` the caller asserts (only while `Requests` names no method). */
  request<T>(
    method: UntypedMethod<Requests>,
    params?: Record<string, unknown>,
    options?: ClientRequestOptions,
  ): Promise<T>;
  request(method: string, params?: unknown, options: ClientRequestOptions = {}): Promise<unknown> {
    const globals = this.#telemetry.globals();
    return globals === undefined
      ? this.#request(method, params, options)
      : this.#traced(globals, method, params, options);
  }

  /**
   * {@linkcode ContextClient.request} in a CLIENT span (a child of the active context), whose trace
   * context goes in `params._meta`; related notifications are span events.
   */
  #traced(
    globals: OtelGlobals,
    method: string,
    params: unknown,
    options: ClientRequestOptions,
  ): Promise<unknown> {
    const telemetry = this.#telemetry;
    const exchange = this.#session?.live.exchange;
    const trace = telemetry.start(globals, {
      method,
      params,
      networkTransport: exchange === undefined
        ? undefined
        : exchange instanceof StreamClientExchange
        ? "pipe"
        : "tcp",
      protocolVersion: this.#session?.protocolVersion,
    }, parentOf(globals, params));
    const traced = injectTraceContext(globals, trace.context, params);
    const onNotification = options.onNotification;
    const sent: ClientRequestOptions = onNotification === undefined ? options : {
      ...options,
      onNotification: (m, p) => {
        trace.event(m, p);
        onNotification(m, p);
      },
    };
    return telemetry.run(globals, trace, () => this.#request(method, traced, sent)).then((result) => {
      trace.succeed(result);
      return result;
    }, (error: unknown) => {
      trace.fail(error);
      throw error;
    });
  }

  #request(method: string, params: unknown, options: ClientRequestOptions): Promise<unknown> {
    // Not an async function: this runs once per request (an async layer is a promise and a hop).
    try {
      const { exchange } = this.#session.live;
      const sent = {
        signal: options.signal,
        onNotification: options.onNotification,
        id: options.id,
        idempotent: options.idempotent,
      };
      if (this.#era !== "modern") return exchange.request(method, params, sent);
      if (params !== undefined && !isPlainObject(params)) {
        throw new ProtocolError(
          `Request params must be an object in the modern era, got ${
            Array.isArray(params) ? "an array" : typeof params
          }`,
        );
      }
      const envelope = {
        protocolVersion: this.#session.protocolVersion,
        clientCapabilities: options.clientCapabilities ?? this.#capabilities(),
        clientInfo: this.#options.clientInfo ?? DEFAULT_CLIENT_INFO,
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
          answer: this.#answerInput,
        };
        reply = this.#inputs.request(send, method, (params ?? {}) as Record<string, unknown>, rounds);
      }
      return reply.then(undefined, this.#modernRequestFailed);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A modern request failed: a -32022 reply forgets the cached era; the error goes on to the caller. */
  readonly #modernRequestFailed = async (error: unknown): Promise<never> => {
    if (
      error instanceof JsonRpcError && error.code === ErrorCodes.UnsupportedProtocolVersion && this.#cache &&
      this.#cacheKey !== undefined
    ) {
      await forgetEra(this.#cache, this.#cacheKey, (e) => this.#report(e));
    }
    throw error;
  };

  /** The handlers for what servers ask (elicitation, sampling, roots); `options.inputs` when given. */
  get inputs(): ClientInputs {
    return this.#inputs;
  }

  /**
   * Answers `elicitation/create` (legacy requests and modern input requests). Modern requests
   * declare it from now on; a legacy session declared its capabilities in `initialize` (pass
   * `inputs` to `connect` for those).
   */
  onElicit(handler: ElicitHandler, options?: ElicitHandlerOptions): this {
    this.#inputs.onElicit(handler, options);
    return this;
  }

  /** Answers `sampling/createMessage`; declared as {@linkcode ContextClient.onElicit} says. */
  onSample(handler: SampleHandler, options?: SampleHandlerOptions): this {
    this.#inputs.onSample(handler, options);
    return this;
  }

  /** Answers `roots/list` from `handler`; a legacy server is told the roots changed. */
  onListRoots(handler: ListRootsHandler): this {
    this.#inputs.onListRoots(handler);
    return this;
  }

  /** Answers `roots/list` with `roots`; a legacy server is told the roots changed (`notifications/roots/list_changed`). */
  setRoots(roots: readonly Root[]): this {
    this.#inputs.setRoots(roots);
    return this;
  }

  /** Sends a notification (modern: only `notifications/cancelled` is defined). */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.#session.live.exchange.notify(method, params);
  }

  /** Handles server notifications of `method` (progress, list changes, logging…), replacing an earlier handler. */
  onNotification<M extends KnownMethod<Notifications>>(
    method: M,
    handler: ClientNotificationHandler<NotificationParamsOf<Notifications, M>>,
  ): this;
  /** Handles a server notification `Notifications` does not name: its params are `unknown`. */
  onNotification<M extends string>(
    method: M & OtherMethod<Notifications, M>,
    handler: ClientNotificationHandler,
  ): this;
  /** Handles a server notification with params of type `P` asserted by the caller (only while `Notifications` names no method). */
  onNotification<P>(method: UntypedMethod<Notifications>, handler: ClientNotificationHandler<P>): this;
  onNotification(method: string, handler: ClientNotificationHandler<never>): this {
    this.#handlers.setNotification(method, handler as ClientNotificationHandler);
    return this;
  }

  /**
   * Answers server→client requests of `method` (legacy era: `roots/list`, `sampling/createMessage`,
   * `elicitation/create`…), replacing an earlier handler. Legacy `ping` is answered with `{}` unless a handler is registered.
   */
  handle<M extends KnownMethod<ServerRequests>>(
    method: M,
    handler: ClientRequestHandler<ParamsOf<ServerRequests, M>, ResultOf<ServerRequests, M>>,
  ): this;
  /** Answers a server request `ServerRequests` does not name: its params and result are `unknown`. */
  handle<M extends string>(method: M & OtherMethod<ServerRequests, M>, handler: ClientRequestHandler): this;
  /** Answers a server request with params of type `P` asserted by the caller (only while `ServerRequests` names no method). */
  handle<P>(method: UntypedMethod<ServerRequests>, handler: ClientRequestHandler<P>): this;
  handle(method: string, handler: ClientRequestHandler<never>): this {
    this.#handlers.setRequest(method, handler as ClientRequestHandler);
    return this;
  }

  // ---- the feature API (src/client/features/client_features.ts documents each method) ----

  /** Every tool, following every cursor (bounded), cached for the server's `ttlMs`. */
  listTools(options?: ListOptions): Promise<F.ListedTool[]> {
    return this.#features.listTools(options);
  }
  /** Every resource, following every cursor (bounded). */
  listResources(options?: ListOptions): Promise<F.ListedResource[]> {
    return this.#features.listResources(options);
  }
  /** Every resource template, following every cursor (bounded). */
  listResourceTemplates(options?: ListOptions): Promise<F.ListedResourceTemplate[]> {
    return this.#features.listResourceTemplates(options);
  }
  /** Every prompt, following every cursor (bounded). */
  listPrompts(options?: ListOptions): Promise<F.ListedPrompt[]> {
    return this.#features.listPrompts(options);
  }
  /** The tools one at a time, one page in memory. */
  iterateTools(options?: IterateOptions): AsyncGenerator<F.ListedTool, void, undefined> {
    return this.#features.iterateTools(options);
  }
  /** The resources one at a time, one page in memory. */
  iterateResources(options?: IterateOptions): AsyncGenerator<F.ListedResource, void, undefined> {
    return this.#features.iterateResources(options);
  }
  /** The resource templates one at a time, one page in memory. */
  iterateResourceTemplates(
    options?: IterateOptions,
  ): AsyncGenerator<F.ListedResourceTemplate, void, undefined> {
    return this.#features.iterateResourceTemplates(options);
  }
  /** The prompts one at a time, one page in memory. */
  iteratePrompts(options?: IterateOptions): AsyncGenerator<F.ListedPrompt, void, undefined> {
    return this.#features.iteratePrompts(options);
  }
  /** Calls a tool; progress, a progress-reset timeout, and `structuredContent` checked against its output schema. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions,
  ): Promise<F.CallToolResult> {
    return this.#features.callTool(name, args, options);
  }
  /** `tasks/get` (tasks extension): the task as the server shows it now. */
  getTask(taskId: string, options?: { signal?: AbortSignal }): Promise<ClientTask> {
    return this.#features.getTask(taskId, options);
  }
  /** `tasks/update`: answers some of a task's input requests by key. */
  updateTask(
    taskId: string,
    inputResponses: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<void> {
    return this.#features.updateTask(taskId, inputResponses, options);
  }
  /** `tasks/cancel`: asks the server to cancel a task. */
  cancelTask(taskId: string, options?: { signal?: AbortSignal }): Promise<void> {
    return this.#features.cancelTask(taskId, options);
  }
  /** Follows a task known by id (saved before a restart) to its result, as `callTool` does. */
  resumeTask(taskId: string, options?: FollowTaskOptions): Promise<Record<string, unknown>> {
    return this.#features.resumeTask(taskId, options);
  }
  /** Reads a resource. */
  readResource(uri: string, options?: FeatureRequestOptions): Promise<F.ReadResourceResult> {
    return this.#features.readResource(uri, options);
  }
  /** Gets a prompt filled with `args`. */
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: FeatureRequestOptions,
  ): Promise<F.GetPromptResult> {
    return this.#features.getPrompt(name, args, options);
  }
  /** Completion values for a prompt or resource-template argument. */
  complete(
    ref: F.CompletionReference,
    argument: F.CompletionArgument,
    options?: CompleteOptions,
  ): Promise<F.CompleteResult> {
    return this.#features.complete(ref, argument, options);
  }
  /** Legacy era: `resources/subscribe` (counted per URI). */
  subscribe(uri: string): Promise<void> {
    return this.#features.subscribe(uri);
  }
  /** Legacy era: `resources/unsubscribe` once the last holder lets go. */
  unsubscribe(uri: string): Promise<void> {
    return this.#features.unsubscribe(uri);
  }
  /** Change events of both eras as an async iterable (modern `subscriptions/listen`; legacy notifications). */
  listen(options: ListenOptions): ChangeStream {
    return this.#features.listen(options);
  }
  /** Legacy: `logging/setLevel`; modern: the `_meta` log level of every later feature request. */
  setLogLevel(level: LoggingLevel, options?: FeatureRequestOptions): Promise<void> {
    return this.#features.setLogLevel(level, options);
  }
  /** The level given to `setLogLevel`, if any. */
  get logLevel(): LoggingLevel | undefined {
    return this.#features.logLevel;
  }
  /** Calls `handler` with every server log message; returns the function that stops it. */
  onLog(handler: (entry: F.LogEntry) => void): () => void {
    return this.#features.onLog(handler);
  }

  /**
   * Closes the connection, then the transport's own graceful close (for a process: stdin EOF, then
   * the adapter's bounded close sequence). Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#telemetry.recordSession(this.#sessionStart, {
        "mcp.protocol.version": this.#session.protocolVersion,
        "network.transport": this.#session.live.exchange instanceof StreamClientExchange ? "pipe" : "tcp",
      });
      const { live } = this.#session;
      if (live.rpc === undefined) {
        await live.exchange.close();
        return;
      }
      await live.rpc.close();
      await this.#closeTransport(live.transport);
      await this.#settleBackground();
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // ---- internals ----

  /** The declared capabilities: what `inputs` implies, then `options.capabilities` on top. */
  #capabilities(): Capabilities {
    const own = this.#options.capabilities;
    const implied = this.#inputs.capabilities();
    if (own === undefined || Object.keys(own).length === 0) return implied;
    if (Object.keys(implied).length === 0) return own;
    const merged = this.#mergedCapabilities;
    if (merged?.own === own && merged.implied === implied) return merged.capabilities;
    const capabilities = { ...implied, ...own };
    this.#mergedCapabilities = { own, implied, capabilities };
    return capabilities;
  }

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

  async #open(source: ClientTransport): Promise<LiveConnection> {
    const transport = await source.open();
    const exchange = new StreamClientExchange(transport, {
      connection: {
        // A server's stray stdout lines are reported, never answered (unless the caller asks).
        answerInvalidInput: false,
        ...this.#options.connection,
        timeProvider: this.#options.timeProvider ?? systemTimeProvider,
        onReport: (error) => this.#report(error),
      },
      onRequest: (request, context) => this.#dispatchRequest(request, context),
      onNotification: (method, params) => {
        this.#features.dispatchNotification(method, params);
        if (method === "notifications/elicitation/complete") this.#inputs.elicitationComplete(params);
        return this.#handlers.notification(method)?.(params);
      },
    });
    exchange.connection.start();
    return { transport, exchange, rpc: exchange.connection, used: false };
  }

  #dispatchRequest(request: IncomingRequest, context: RequestContext): unknown {
    const handler = this.#handlers.request(request.method);
    if (handler) return handler(request.params, context);
    // Legacy elicitation, sampling and roots requests: the `inputs` handlers (-32601 / -32602 as the spec says when absent).
    if (INPUT_REQUEST_METHODS.has(request.method)) {
      return this.#inputs.answer(request.method, request.params, {
        era: "legacy",
        key: String(context.id),
        signal: context.signal,
      });
    }
    if (request.method === "ping" && this.#era !== "modern") return {};
    throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${quotePeerText(request.method)}`);
  }

  /** Roots changed: a legacy server is told (the modern era has no such notification). */
  #watchRoots(): void {
    this.#inputs.onRootsChanged(() => {
      if (this.#era === "legacy") {
        this.notify("notifications/roots/list_changed").catch((error: unknown) =>
          this.#report(asError(error))
        );
      }
    });
  }

  #report(error: Error): void {
    try {
      this.#options.onReport?.(error);
    } catch {
      // A failing reporter must not break the client.
    }
  }

  /** Ends a connection given up on: tear the JSON-RPC peer down, then close the transport. */
  async #release(live: LiveConnection): Promise<void> {
    await live.rpc.abort();
    await live.transport.close?.();
  }

  #closeTransport(transport: TransportConnection): Promise<void> {
    this.#transportClosing ??= (async () => {
      try {
        await transport.close?.();
      } catch (error) {
        this.#report(asError(error));
      }
    })();
    return this.#transportClosing;
  }

  #track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error) => this.#report(asError(error)));
    this.#background.add(tracked);
    void tracked.finally(() => this.#background.delete(tracked));
  }

  async #settleBackground(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }
}

/**
 * The parent of a request's CLIENT span: the active span, else the trace context the params already
 * carry in `_meta` (a proxy forwarding a request continues its caller's trace), else none.
 */
function parentOf(globals: OtelGlobals, params: unknown): OtelContext {
  const active = activeContext(globals);
  return active.getValue(OTEL_SPAN_KEY) === undefined ? extractTraceContext(globals, active, params) : active;
}
