/**
 * `ContextServer`: an MCP server that speaks both protocol eras on one stream, over any duplex.
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import { ClosedError, InvalidOptionError } from "../wire/errors.ts";
import { buildDiscoverResult, type DiscoverResult } from "../wire/discover_result.ts";
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
import type { NewlineChannel } from "../stream/newline_channel.ts";
import type { Capabilities, Implementation } from "../wire/protocol_versions.ts";
import type { ServerVersions } from "../wire/server_versions.ts";
import { HandlerRegistry } from "../rpc/handler_registry.ts";
import type {
  ConnectionCloseInfo,
  JsonRpcConnection,
  JsonRpcConnectionOptions,
} from "../rpc/json_rpc_connection.ts";
import { checkContextServerOptions, type ContextServerOptions } from "./context_server_options.ts";
import { serverFeatureHost } from "./server_feature_host.ts";
import type { DispatchContext, ServerSession } from "./dispatch_context.ts";
import type { FeatureHost } from "./features/feature_host.ts";
import type {
  PromptArguments,
  PromptConfig,
  PromptHandler,
  RegisteredPrompt,
} from "./features/prompt_registry.ts";
import type {
  RegisteredResource,
  ResourceConfig,
  ResourceReader,
  ResourceTemplateConfig,
  ResourceTemplateReader,
} from "./features/resource_registry.ts";
import { ServerFeatures, type ServerFeaturesOptions } from "./features/server_features.ts";
import type {
  RegisteredTool,
  ToolArguments,
  ToolConfig,
  ToolHandler,
  ToolSchemaInput,
} from "./features/tool_registry.ts";
import type { SchemaLike } from "../schema/tool_schema.ts";
import {
  BUILT_IN_METHODS,
  type JsonRpcReply,
  ServerDispatch,
  type ServerHandlers,
  type ServerNotificationHandler,
  type ServerRequestHandler,
} from "./dispatch.ts";
import { StreamDispatchContext } from "./stream_dispatch_context.ts";
import { InputRounds } from "./input/input_rounds.ts";
import { RequestStateCodec } from "./input/request_state.ts";
import { McpTelemetry } from "../telemetry/mcp_telemetry.ts";
import type { Middleware } from "./middleware.ts";
import { systemTimeProvider } from "../stream/time_provider.ts";

export type { ContextServerOptions, ServerConnectionOptions } from "./context_server_options.ts";
export type {
  DispatchContext,
  LegacySession,
  ServerSession,
  ServerToClientRequestOptions,
} from "./dispatch_context.ts";
export type { JsonRpcReply, ServerNotificationHandler, ServerRequestHandler } from "./dispatch.ts";
export type { Middleware, MiddlewareContext } from "./middleware.ts";
export type { SendProgressOptions } from "./send_progress_options.ts";
export type { RequestEra, ServerRequestContext } from "./server_request_context.ts";

/** How one served connection ended (from its {@linkcode JsonRpcConnection}). */
export type ServeResult = ConnectionCloseInfo;

/**
 * Serves MCP to any number of connections, both eras on each. Legacy `initialize` is an admission
 * barrier (its reply is queued before the next message on that connection is dispatched); modern
 * requests are recognised by their `_meta` envelope, checked, and answered statelessly.
 *
 * `Requests` and `Notifications` are method maps (see {@linkcode MethodMap}) that type `handle()`
 * and `onNotification()`; methods they do not name stay allowed, with `unknown` params and results.
 *
 * @example
 * ```ts
 * const server = new ContextServer({ name: "demo", version: "1.0.0", capabilities: { tools: {} } });
 * server.handle("tools/list", () => ({ tools: [] }));
 * await server.serve(stdio()); // resolves when the client closes the stream
 * ```
 */
export class ContextServer<
  Requests extends MethodMap<Requests> = NoMethods,
  Notifications extends NotificationMap = NoMethods,
> implements AsyncDisposable {
  /** The `Implementation` this server reports. */
  readonly serverInfo: Implementation;
  readonly instructions: string | undefined;
  readonly versions: ServerVersions;
  readonly #connectionOptions: JsonRpcConnectionOptions;
  readonly #handlers: ServerHandlers = new HandlerRegistry();
  readonly #dispatch: ServerDispatch;
  readonly #telemetry: McpTelemetry;
  readonly #middleware: Middleware[] = [];
  readonly #connections = new Set<JsonRpcConnection>();
  readonly #sessions = new Set<ServerSession>();
  readonly #capabilities: Capabilities;
  readonly #featuresOptions: ServerFeaturesOptions | undefined;
  readonly #report: (error: Error) => void;
  #features: ServerFeatures | undefined;
  #discover: DiscoverResult | undefined;
  #closing: Promise<void> | undefined;
  #markClosed!: () => void;
  readonly #closed = new Promise<void>((resolve) => (this.#markClosed = resolve));

  constructor(options: ContextServerOptions) {
    const {
      name,
      version,
      title,
      capabilities = {},
      features,
      instructions,
      cacheScope,
      unenvelopedRequests,
      timeProvider,
      requestState,
      clientRequestTimeout,
      onReport,
      exposeInternalErrors,
      connection,
      telemetry,
    } = options ?? ({} as ContextServerOptions);
    const { ttlMs, versions } = checkContextServerOptions(options);
    this.serverInfo = title === undefined ? { name, version } : { name, version, title };
    this.#capabilities = capabilities;
    this.#featuresOptions = features;
    this.instructions = instructions;
    this.versions = versions;
    this.#connectionOptions = { ...connection, timeProvider, onReport };
    const report = (error: Error): void => {
      try {
        onReport?.(error);
      } catch {
        // A failing reporter must not break dispatch; there is nowhere further to report to.
      }
    };
    this.#report = report;
    // Capabilities (and so the discover result) follow what is registered: dispatch reads them per request.
    const discover = () =>
      buildDiscoverResult({
        serverInfo: this.serverInfo,
        supportedVersions: this.versions.modern,
        capabilities: this.capabilities,
        instructions,
        ttlMs,
        cacheScope: cacheScope ?? "private",
      });
    const getCapabilities = () => this.capabilities;
    const getDiscover = () => (this.#discover ??= discover());
    this.#dispatch = new ServerDispatch({
      serverInfo: this.serverInfo,
      get capabilities() {
        return getCapabilities();
      },
      instructions,
      versions: this.versions,
      get discover() {
        return getDiscover();
      },
      unenvelopedRequests: unenvelopedRequests ?? "reject",
      handlers: this.#handlers,
      inputRounds: new InputRounds({
        codec: requestState instanceof RequestStateCodec
          ? requestState
          : new RequestStateCodec({ timeProvider, ...requestState }),
        clientRequestTimeout,
        timeProvider,
      }),
      report,
      exposeInternalErrors: exposeInternalErrors ?? false,
      middleware: this.#middleware,
      telemetry: this.#telemetry = new McpTelemetry("server", timeProvider ?? systemTimeProvider, telemetry),
    });
    if (features !== undefined) this.#features = new ServerFeatures(this.#featureHost(), features);
  }

  /** Capabilities sent in `InitializeResult` and `DiscoverResult`: those of the registered features, then the `capabilities` option over them. */
  get capabilities(): Capabilities {
    return this.#features ? { ...this.#features.capabilities(), ...this.#capabilities } : this.#capabilities;
  }

  /** The feature layer (tools, resources, prompts, completions, logging, subscriptions), created on first use. */
  get features(): ServerFeatures {
    return (this.#features ??= new ServerFeatures(this.#featureHost(), this.#featuresOptions));
  }

  /**
   * Registers a tool: `inputSchema` (JSON Schema or a zod/valibot/arktype schema) is checked before
   * `handler` runs, `structuredContent` against `outputSchema`; a thrown error becomes an `isError`
   * result. See {@linkcode ServerFeatures.tool}.
   */
  tool<S extends ToolSchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<S>,
    handler: ToolHandler<ToolArguments<S>>,
  ): RegisteredTool {
    return this.features.tool(name, config, handler);
  }

  /** Registers a static resource (fixed `text`/`blob`, or a read callback). See {@linkcode ServerFeatures.resource}. */
  resource(uri: string, config: ResourceConfig, read?: ResourceReader): RegisteredResource {
    return this.features.resource(uri, config, read);
  }

  /** Registers a resource template (RFC 6570 levels 1–3) with optional `list` and `complete`. See {@linkcode ServerFeatures.resourceTemplate}. */
  resourceTemplate(
    uriTemplate: string,
    config: ResourceTemplateConfig,
    read: ResourceTemplateReader,
  ): RegisteredResource {
    return this.features.resourceTemplate(uriTemplate, config, read);
  }

  /** Registers a prompt (arguments as a list or a schema). See {@linkcode ServerFeatures.prompt}. */
  prompt<S extends SchemaLike | undefined = undefined>(
    name: string,
    config: PromptConfig<S>,
    handler: PromptHandler<PromptArguments<S>>,
  ): RegisteredPrompt {
    return this.features.prompt(name, config, handler);
  }

  /** Sends `notifications/resources/updated` to the subscribers of `uri`: see {@linkcode ServerFeatures.resourceUpdated}. */
  resourceUpdated(uri: string): void {
    this.features.resourceUpdated(uri);
  }

  /**
   * The `inputSchema` registered tool `name` lists (`undefined` when there is none): an HTTP
   * transport reads its `x-mcp-header` annotations to check `Mcp-Param-*` headers.
   */
  toolInputSchema(name: string): unknown {
    return this.#features?.toolInputSchema(name);
  }

  /**
   * Counts a legacy session held by another transport (an HTTP session table) among this server's
   * live sessions, so list changes and resource updates reach it through `session.notify`. Returns
   * the function that forgets it (call it when the session ends).
   */
  trackSession(session: ServerSession): () => void {
    this.#sessions.add(session);
    return () => void this.#sessions.delete(session);
  }

  /** The feature layer's view of this server: its handler registry, its live legacy sessions, its reporter. */
  #featureHost(): FeatureHost {
    return serverFeatureHost({
      handlers: this.#handlers,
      sessions: this.#sessions,
      report: this.#report,
      capabilitiesChanged: () => void (this.#discover = undefined),
      timeProvider: this.#connectionOptions.timeProvider,
    });
  }

  /** Registers the handler of request `method`, replacing an earlier one. `initialize`, `server/discover` and `ping` are built in. */
  handle<M extends KnownMethod<Requests>>(
    method: M,
    handler: ServerRequestHandler<ParamsOf<Requests, M>, ResultOf<Requests, M>>,
  ): this;
  /** Registers the handler of a request `Requests` does not name: its params and result are `unknown`. */
  handle<M extends string>(method: M & OtherMethod<Requests, M>, handler: ServerRequestHandler): this;
  /** Registers a handler with params of type `P` asserted by the caller (only while `Requests` names no method). */
  handle<P>(method: UntypedMethod<Requests>, handler: ServerRequestHandler<P>): this;
  handle(method: string, handler: ServerRequestHandler<never>): this {
    if (BUILT_IN_METHODS.has(method)) {
      throw new InvalidOptionError(
        `Method ${method} is answered by ContextServer itself and cannot be handled`,
      );
    }
    this.#handlers.setRequest(method, handler as ServerRequestHandler);
    return this;
  }

  /** Registers the handler of notification `method` (`notifications/initialized` and `notifications/cancelled` included). */
  onNotification<M extends KnownMethod<Notifications>>(
    method: M,
    handler: ServerNotificationHandler<NotificationParamsOf<Notifications, M>>,
  ): this;
  /** Registers the handler of a notification `Notifications` does not name: its params are `unknown`. */
  onNotification<M extends string>(
    method: M & OtherMethod<Notifications, M>,
    handler: ServerNotificationHandler,
  ): this;
  /** Registers a notification handler with params of type `P` asserted by the caller (only while `Notifications` names no method). */
  onNotification<P>(method: UntypedMethod<Notifications>, handler: ServerNotificationHandler<P>): this;
  onNotification(method: string, handler: ServerNotificationHandler<never>): this {
    this.#handlers.setNotification(method, handler as ServerNotificationHandler);
    return this;
  }

  /**
   * Adds a middleware around every request's dispatch, on every transport (see
   * {@linkcode Middleware}); they run in the order added, the first outermost. Built-ins (rate
   * limit, response cache, request log) are in `onemodelcontext/middleware`.
   *
   * @example
   * ```ts ignore
   * server.use(async (ctx, next) => {
   *   if (ctx.method === "tools/call" && ctx.principal === undefined) throw new JsonRpcError(-32001, "Sign in first");
   *   return await next();
   * });
   * ```
   */
  use(middleware: Middleware): this {
    if (typeof middleware !== "function") {
      throw new InvalidOptionError(
        `Option middleware: use() takes a function (ctx, next) => result, got ${typeof middleware}`,
      );
    }
    this.#middleware.push(middleware);
    return this;
  }

  /**
   * The message-level seam: dispatches one parsed JSON-RPC message with what its transport knows
   * and resolves with the reply (`undefined` for a notification). `serve()` drives the same
   * dispatch from a stream; an HTTP handler drives it once per POST.
   */
  dispatch(message: unknown, context: DispatchContext): Promise<JsonRpcReply | undefined> {
    return this.#dispatch.dispatch(message, context);
  }

  /** Connections being served now. */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /**
   * Serves one connection until it closes: input EOF (after handlers finish and replies drain, within
   * `endOfStreamTimeout` + `shutdownTimeout`), a transport fault, or {@linkcode ContextServer.close}.
   * Rejects with `ClosedError` once the server is closing.
   */
  async serve(transport: Duplex | NewlineChannel): Promise<ServeResult> {
    if (this.#closing) throw new ClosedError("The server is closed: it serves no new connections");
    const { connection, session } = StreamDispatchContext.drive(
      this.#dispatch,
      transport,
      this.#connectionOptions,
    );
    this.#connections.add(connection);
    this.#sessions.add(session);
    const started = this.#telemetry.now();
    try {
      connection.start();
      return await connection.closed;
    } finally {
      this.#connections.delete(connection);
      this.#sessions.delete(session);
      const version = session.legacy?.protocolVersion;
      this.#telemetry.recordSession(started, {
        "network.transport": "pipe",
        ...(version === undefined ? {} : { "mcp.protocol.version": version }),
      });
    }
  }

  /** Closes every live connection (no grace: handlers are cancelled, output drains bounded) and refuses new ones. */
  close(): Promise<void> {
    this.#closing ??= Promise.all([...this.#connections].map((c) => c.close())).then(() => {
      this.#features?.closeTasks();
      this.#markClosed();
    });
    return this.#closing;
  }

  /** Resolves once {@linkcode ContextServer.close} has closed every connection. */
  get closed(): Promise<void> {
    return this.#closed;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
