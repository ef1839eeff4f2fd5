/**
 * `ContextClient`: one MCP client for servers of either era, over any {@linkcode ClientTransport}
 * or bare duplex. It negotiates the era at connect (see {@linkcode NegotiationOutcome}), then
 * `request` works the same in both eras.
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import type { NewlineChannelOptions } from "../stream/newline_channel.ts";
import { defaultEraCache, type EraCacheStore, forgetEra } from "./era_cache.ts";
import { EraNegotiator, type LiveConnection, type NegotiatedSession, type NegotiationInfo } from "./era_negotiation.ts";
import { asError, ErrorCodes, InvalidOptionError, JsonRpcError, ProtocolError } from "../wire/errors.ts";
import {
  type ConnectionCloseInfo,
  type IncomingRequest,
  JsonRpcConnection,
  nestChannelOptions,
  type JsonRpcConnectionOptions,
  type NotificationHandler,
  type RequestContext,
  type RequestHandler,
} from "../rpc/json_rpc_connection.ts";
import { isPlainObject, withRequestEnvelope } from "../wire/meta_envelope.ts";
import { numberOption } from "../stream/options.ts";
import type { Capabilities, Era, Implementation } from "../wire/protocol_versions.ts";
import { systemTimeProvider } from "../stream/time_provider.ts";
import { type ClientTransport, isClientTransport, singleConnection, type TransportConnection } from "../rpc/transport.ts";

export type { NegotiationInfo } from "./era_negotiation.ts";
export type { NegotiationOutcome } from "./probe_classifier.ts";

/** Options of {@linkcode ContextClient.connect}; the JSON-RPC and channel options pass through. */
// The channel bounds are still accepted flat here and nested for the connection (nestChannelOptions).
export interface ContextClientOptions extends JsonRpcConnectionOptions, NewlineChannelOptions {
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
  /** What this client can do. Default `{}`. */
  capabilities?: Capabilities;
}

/** Options of one {@linkcode ContextClient.request}. */
export interface ClientRequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects with the signal's reason. */
  signal?: AbortSignal;
}

const DEFAULT_CLIENT_INFO: Implementation = { name: "onemodelcontext", version: "0.1.0" };

/**
 * An MCP client connected to one server, in the era it negotiated.
 *
 * @example
 * ```ts
 * const client = await ContextClient.connect(spawnProcess("node", ["server.js"]), { era: "auto" });
 * console.log(client.era, client.protocolVersion, client.serverInfo, client.negotiation.outcome);
 * const { tools } = await client.request<{ tools: unknown[] }>("tools/list", {});
 * await client.close();
 * ```
 */
export class ContextClient implements AsyncDisposable {
  readonly #options: ContextClientOptions;
  readonly #cache: EraCacheStore | undefined;
  readonly #cacheKey: string | undefined;
  readonly #requestHandlers = new Map<string, RequestHandler>();
  readonly #notificationHandlers = new Map<string, NotificationHandler>();
  readonly #background = new Set<Promise<unknown>>();
  #session!: NegotiatedSession;
  #era: Era | undefined;
  #closing: Promise<void> | undefined;
  #transportClosing: Promise<void> | undefined;

  private constructor(options: ContextClientOptions, cache: EraCacheStore | undefined, cacheKey: string | undefined) {
    this.#options = options;
    this.#cache = cache;
    this.#cacheKey = cacheKey;
  }

  /**
   * Connects and negotiates the era. Rejects with a `TransportError` whose `code` is
   * `"negotiation_failed"` (with a message naming what the server answered), `"timeout"`
   * (`connectTimeout` ran out) or `"invalid_option"`.
   */
  static async connect(transport: ClientTransport | Duplex, options: ContextClientOptions = {}): Promise<ContextClient> {
    const era = options.era ?? "auto";
    if (era !== "auto" && era !== "modern" && era !== "legacy") {
      throw new InvalidOptionError(`Option era must be "auto", "modern" or "legacy", got ${JSON.stringify(era)}`);
    }
    const probeTimeout = numberOption("probeTimeout", options.probeTimeout, 5_000);
    const processStartupAllowance = numberOption("processStartupAllowance", options.processStartupAllowance, 10_000);
    const connectTimeout = numberOption("connectTimeout", options.connectTimeout, 30_000);
    const source = isClientTransport(transport) ? transport : singleConnection(transport as TransportConnection);
    const cache = options.eraCache === null ? undefined : options.eraCache ?? defaultEraCache;
    const cacheKey = options.cacheKey ?? source.cacheKey;
    const client = new ContextClient(options, cache, cacheKey);
    const time = options.timeProvider ?? systemTimeProvider;
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
      capabilities: options.capabilities ?? {},
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
    const { live } = client.#session;
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

  /** The JSON-RPC connection underneath (for diagnostics and advanced use). */
  get connection(): JsonRpcConnection {
    return this.#session.live.rpc;
  }

  /** Resolves with how the connection ended, once it has. */
  get closed(): Promise<ConnectionCloseInfo> {
    return this.#session.live.rpc.closed;
  }

  /**
   * Sends a request and resolves with its result. In the modern era `params._meta` gets the
   * envelope (protocol version, client capabilities, client info); other `_meta` keys such as
   * `progressToken` are kept. A -32022 reply in the modern era forgets the cached era.
   */
  async request<T = unknown>(method: string, params?: Record<string, unknown>, options: ClientRequestOptions = {}): Promise<T> {
    const rpc = this.#session.live.rpc;
    if (this.#era !== "modern") return rpc.request<T>(method, params, { signal: options.signal });
    if (params !== undefined && !isPlainObject(params)) {
      throw new ProtocolError(`Request params must be an object in the modern era, got ${Array.isArray(params) ? "an array" : typeof params}`);
    }
    const envelope = {
      protocolVersion: this.#session.protocolVersion,
      clientCapabilities: this.#options.capabilities ?? {},
      clientInfo: this.#options.clientInfo ?? DEFAULT_CLIENT_INFO,
    };
    try {
      return await rpc.request<T>(method, withRequestEnvelope(params, envelope), { signal: options.signal });
    } catch (error) {
      if (error instanceof JsonRpcError && error.code === ErrorCodes.UnsupportedProtocolVersion && this.#cache && this.#cacheKey !== undefined) {
        await forgetEra(this.#cache, this.#cacheKey, (e) => this.#report(e));
      }
      throw error;
    }
  }

  /** Sends a notification (modern: only `notifications/cancelled` is defined). */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.#session.live.rpc.notify(method, params);
  }

  /** Handles server notifications of `method` (progress, list changes, logging…). */
  onNotification(method: string, handler: NotificationHandler): this {
    this.#notificationHandlers.set(method, handler);
    return this;
  }

  /**
   * Answers server→client requests of `method` (legacy era: `roots/list`, `sampling/createMessage`,
   * `elicitation/create`…). Legacy `ping` is answered with `{}` unless a handler is registered.
   */
  handle(method: string, handler: RequestHandler): this {
    this.#requestHandlers.set(method, handler);
    return this;
  }

  /**
   * Closes the connection, then the transport's own graceful close (for a process: stdin EOF,
   * wait, SIGTERM, wait, SIGKILL, bounded). Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const { live } = this.#session;
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

  async #open(source: ClientTransport): Promise<LiveConnection> {
    const transport = await source.open();
    const rpc = new JsonRpcConnection(transport, {
      // A server's stray stdout lines are reported, never answered (unless the caller asks).
      answerInvalidInput: false,
      ...nestChannelOptions(this.#options),
      timeProvider: this.#options.timeProvider ?? systemTimeProvider,
      onRequest: (request, context) => this.#dispatchRequest(request, context),
      onNotification: (method, params) => this.#dispatchNotification(method, params),
      onReport: (error) => this.#report(error),
    });
    rpc.start();
    return { transport, rpc, used: false };
  }

  #dispatchRequest(request: IncomingRequest, context: RequestContext): unknown {
    const handler = this.#requestHandlers.get(request.method);
    if (handler) return handler(request.params, context);
    if (request.method === "ping" && this.#era !== "modern") return {};
    if (this.#options.onRequest) return this.#options.onRequest(request, context);
    throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${request.method}`);
  }

  #dispatchNotification(method: string, params: unknown): unknown {
    const handler = this.#notificationHandlers.get(method);
    if (handler) return handler(params);
    return this.#options.onNotification?.(method, params);
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
