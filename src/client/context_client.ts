/**
 * `ContextClient`: one MCP client for servers of either era, over any {@linkcode ClientTransport}
 * or bare duplex. It negotiates the era at connect (see {@linkcode NegotiationOutcome}), then
 * `request` works the same in both eras.
 * Its parts live beside it (`client_parts.ts` wires them).
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import type { NegotiationInfo } from "./negotiation_record.ts";
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
import type { ConnectionCloseInfo, JsonRpcConnection } from "../rpc/json_rpc_connection.ts";
import type { Capabilities, Era, Implementation } from "../wire/protocol_versions.ts";
import {
  type ClientTransport,
  isClientTransport,
  singleConnection,
  type TransportConnection,
} from "../rpc/transport.ts";
import type { CallToolOptions, CompleteOptions } from "./features/client_features.ts";
import type { ChangeStream } from "./features/change_stream.ts";
import type * as F from "./features/feature_types.ts";
import type { FeatureRequestOptions } from "./features/feature_request.ts";
import type { IterateOptions, ListOptions } from "./features/list_reader.ts";
import type { ListenOptions } from "./features/open_listen.ts";
import type { ClientTask, FollowTaskOptions } from "./features/task_follower.ts";
import type { LoggingLevel } from "../wire/meta_envelope.ts";
import type {
  ClientInputs,
  ElicitHandler,
  ElicitHandlerOptions,
  ListRootsHandler,
  SampleHandler,
  SampleHandlerOptions,
} from "./client_inputs.ts";
import type { Root } from "../wire/protocol/v2026_07_28.ts";
import { type ExchangeTransport, isExchangeTransport } from "./exchange_transport.ts";
import {
  type ClientNotificationHandler,
  type ClientRequestHandler,
  type ClientRequestOptions,
  type ContextClientOptions,
  readConnectOptions,
} from "./context_client_options.ts";
import { type ClientSession, connectionOf } from "./client_session.ts";
import { assembleClientParts, type ClientEraCache, type ClientParts } from "./client_parts.ts";
import { networkTransportOf } from "./request_sender.ts";

export type {
  ClientConnectionOptions,
  ClientNotificationHandler,
  ClientRequestHandler,
  ClientRequestOptions,
  ContextClientOptions,
} from "./context_client_options.ts";

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
  readonly #parts: ClientParts;
  #session!: ClientSession;
  #closing: Promise<void> | undefined;

  private constructor(options: ContextClientOptions, era: ClientEraCache) {
    this.#parts = assembleClientParts(this as unknown as ContextClient, () => this.#session, options, era);
  }

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
    const settings = readConnectOptions(options);
    const source = isExchangeTransport(transport) || isClientTransport(transport)
      ? transport
      : singleConnection(transport as TransportConnection);
    const cacheKey = options.cacheKey ?? source.cacheKey;
    const client = new ContextClient<Requests, Notifications, ServerRequests>(options, {
      cache: settings.cache,
      cacheKey,
    });
    const parts = client.#parts;
    client.#session = await parts.lifecycle.open(source, {
      ...settings,
      cacheKey,
      capabilities: parts.capabilities.current(),
      connection: options.connection,
      router: parts.router,
      onResync: (info) => parts.features.resync(info),
    });
    parts.watchRoots();
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
    return connectionOf(this.#session);
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
    return this.#parts.sender.send(method, params, options);
  }

  /** The handlers for what servers ask (elicitation, sampling, roots); `options.inputs` when given. */
  get inputs(): ClientInputs {
    return this.#parts.inputs;
  }

  /**
   * Answers `elicitation/create` (legacy requests and modern input requests). Modern requests
   * declare it from now on; a legacy session declared its capabilities in `initialize` (pass
   * `inputs` to `connect` for those).
   */
  onElicit(handler: ElicitHandler, options?: ElicitHandlerOptions): this {
    this.#parts.inputs.onElicit(handler, options);
    return this;
  }

  /** Answers `sampling/createMessage`; declared as {@linkcode ContextClient.onElicit} says. */
  onSample(handler: SampleHandler, options?: SampleHandlerOptions): this {
    this.#parts.inputs.onSample(handler, options);
    return this;
  }

  /** Answers `roots/list` from `handler`; a legacy server is told the roots changed. */
  onListRoots(handler: ListRootsHandler): this {
    this.#parts.inputs.onListRoots(handler);
    return this;
  }

  /** Answers `roots/list` with `roots`; a legacy server is told the roots changed (`notifications/roots/list_changed`). */
  setRoots(roots: readonly Root[]): this {
    this.#parts.inputs.setRoots(roots);
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
    this.#parts.router.handlers.setNotification(method, handler as ClientNotificationHandler);
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
    this.#parts.router.handlers.setRequest(method, handler as ClientRequestHandler);
    return this;
  }

  // ---- the feature API (src/client/features/client_features.ts documents each method) ----

  /** Every tool, following every cursor (bounded), cached for the server's `ttlMs`. */
  listTools(options?: ListOptions): Promise<F.ListedTool[]> {
    return this.#parts.features.listTools(options);
  }
  /** Every resource, following every cursor (bounded). */
  listResources(options?: ListOptions): Promise<F.ListedResource[]> {
    return this.#parts.features.listResources(options);
  }
  /** Every resource template, following every cursor (bounded). */
  listResourceTemplates(options?: ListOptions): Promise<F.ListedResourceTemplate[]> {
    return this.#parts.features.listResourceTemplates(options);
  }
  /** Every prompt, following every cursor (bounded). */
  listPrompts(options?: ListOptions): Promise<F.ListedPrompt[]> {
    return this.#parts.features.listPrompts(options);
  }
  /** The tools one at a time, one page in memory. */
  iterateTools(options?: IterateOptions): AsyncGenerator<F.ListedTool, void, undefined> {
    return this.#parts.features.iterateTools(options);
  }
  /** The resources one at a time, one page in memory. */
  iterateResources(options?: IterateOptions): AsyncGenerator<F.ListedResource, void, undefined> {
    return this.#parts.features.iterateResources(options);
  }
  /** The resource templates one at a time, one page in memory. */
  iterateResourceTemplates(
    options?: IterateOptions,
  ): AsyncGenerator<F.ListedResourceTemplate, void, undefined> {
    return this.#parts.features.iterateResourceTemplates(options);
  }
  /** The prompts one at a time, one page in memory. */
  iteratePrompts(options?: IterateOptions): AsyncGenerator<F.ListedPrompt, void, undefined> {
    return this.#parts.features.iteratePrompts(options);
  }
  /** Calls a tool; progress, a progress-reset timeout, and `structuredContent` checked against its output schema. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions,
  ): Promise<F.CallToolResult> {
    return this.#parts.features.callTool(name, args, options);
  }
  /** `tasks/get` (tasks extension): the task as the server shows it now. */
  getTask(taskId: string, options?: { signal?: AbortSignal }): Promise<ClientTask> {
    return this.#parts.features.getTask(taskId, options);
  }
  /** `tasks/update`: answers some of a task's input requests by key. */
  updateTask(
    taskId: string,
    inputResponses: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<void> {
    return this.#parts.features.updateTask(taskId, inputResponses, options);
  }
  /** `tasks/cancel`: asks the server to cancel a task. */
  cancelTask(taskId: string, options?: { signal?: AbortSignal }): Promise<void> {
    return this.#parts.features.cancelTask(taskId, options);
  }
  /** Follows a task known by id (saved before a restart) to its result, as `callTool` does. */
  resumeTask(taskId: string, options?: FollowTaskOptions): Promise<Record<string, unknown>> {
    return this.#parts.features.resumeTask(taskId, options);
  }
  /** Reads a resource. */
  readResource(uri: string, options?: FeatureRequestOptions): Promise<F.ReadResourceResult> {
    return this.#parts.features.readResource(uri, options);
  }
  /** Gets a prompt filled with `args`. */
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: FeatureRequestOptions,
  ): Promise<F.GetPromptResult> {
    return this.#parts.features.getPrompt(name, args, options);
  }
  /** Completion values for a prompt or resource-template argument. */
  complete(
    ref: F.CompletionReference,
    argument: F.CompletionArgument,
    options?: CompleteOptions,
  ): Promise<F.CompleteResult> {
    return this.#parts.features.complete(ref, argument, options);
  }
  /** Legacy era: `resources/subscribe` (counted per URI). */
  subscribe(uri: string): Promise<void> {
    return this.#parts.features.subscribe(uri);
  }
  /** Legacy era: `resources/unsubscribe` once the last holder lets go. */
  unsubscribe(uri: string): Promise<void> {
    return this.#parts.features.unsubscribe(uri);
  }
  /** Change events of both eras as an async iterable (modern `subscriptions/listen`; legacy notifications). */
  listen(options: ListenOptions): ChangeStream {
    return this.#parts.features.listen(options);
  }
  /** Legacy: `logging/setLevel`; modern: the `_meta` log level of every later feature request. */
  setLogLevel(level: LoggingLevel, options?: FeatureRequestOptions): Promise<void> {
    return this.#parts.features.setLogLevel(level, options);
  }
  /** The level given to `setLogLevel`, if any. */
  get logLevel(): LoggingLevel | undefined {
    return this.#parts.features.logLevel;
  }
  /** Calls `handler` with every server log message; returns the function that stops it. */
  onLog(handler: (entry: F.LogEntry) => void): () => void {
    return this.#parts.features.onLog(handler);
  }

  /**
   * Closes the connection, then the transport's own graceful close (for a process: stdin EOF, then
   * the adapter's bounded close sequence). Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#parts.telemetry.recordSession(this.#parts.sessionStart, {
        "mcp.protocol.version": this.#session.protocolVersion,
        "network.transport": networkTransportOf(this.#session.live.exchange),
      });
      await this.#parts.lifecycle.close(this.#session);
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
