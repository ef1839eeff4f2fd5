/**
 * `ClientFeatures`: the typed MCP client API (tools, resources, prompts, completions, logging, change
 * streams) on top of any {@linkcode FeatureHost}. `ContextClient` exposes every method of it.
 * @module
 */
import { asError } from "../../wire/errors.ts";
import { isPlainObject, type LoggingLevel } from "../../wire/meta_envelope.ts";
import type { ClientRequestParams } from "../../wire/protocol/mod.ts";
import { integerOption, numberOption } from "../../stream/options.ts";
import { JsonSchemaValidator } from "../../schema/json_schema_validator.ts";
import type { SchemaValidator } from "../../schema/schema_validator.ts";
import type { ChangeStream } from "./change_stream.ts";
import { ClientFeatureError } from "./feature_errors.ts";
import type { FeatureHost } from "./feature_host.ts";
import {
  type FeatureRequestContext,
  type FeatureRequestOptions,
  sendFeatureRequest,
} from "./feature_request.ts";
import type {
  CallToolResult,
  CompleteResult,
  CompletionArgument,
  CompletionReference,
  GetPromptResult,
  ListedPrompt,
  ListedResource,
  ListedResourceTemplate,
  ListedTool,
  LogEntry,
  ReadResourceResult,
} from "./feature_types.ts";
import { ListCache } from "./list_cache.ts";
import { NotificationFanout } from "./notification_fanout.ts";
import { type ListenOptions, openListen } from "./open_listen.ts";
import { ListenSignals } from "./listen_signals.ts";
import {
  type ListenReconnectOptions,
  type ListenReconnectPolicy,
  listenReconnectPolicy,
} from "./listen_reconnect.ts";
import { OutputSchemas } from "./output_schemas.ts";
import { type IterateOptions, type ListOptions, ListReader } from "./list_reader.ts";
import { ProgressRouter } from "./progress_router.ts";
import { type ClientTask, followTask, type FollowTaskOptions, readTask } from "./task_follower.ts";
import { ResourceSubscriptions } from "./resource_subscriptions.ts";
import { ServerLog } from "./server_log.ts";

/** Client-wide options of the feature API (part of `ContextClientOptions`). */
export interface ClientFeatureOptions {
  /** Keep complete list results for the `ttlMs` the server gives (modern era). Default true. */
  listCache?: boolean;
  /** Pages one `listTools()` (and the other lists) follows at most. Default 1 000. */
  maxListPages?: number;
  /** Items one `listTools()` (and the other lists) collects at most. Default 100 000. */
  maxListItems?: number;
  /** Milliseconds a feature request waits for its reply, restarted by its progress. Default 60 000. */
  requestTimeout?: number;
  /** The ceiling progress cannot extend a feature request past. Default 600 000 ms. */
  maxRequestTimeout?: number;
  /** `input_required` rounds (modern) answered per request before giving up. Default 10. */
  maxInputRounds?: number;
  /** Checks `structuredContent` against tools' output schemas. Default: a `JsonSchemaValidator` with `riskyPatterns: "skip"` (a pattern that could backtrack catastrophically is not checked). */
  schemaValidator?: SchemaValidator;
  /**
   * Modern era over HTTP: how a listen stream that broke off (or that a replica shutting down ended)
   * reopens; each reopening is followed by a `resync` event. `false`: the stream ends instead.
   * Default `{ initialDelay: 500, maxDelay: 15 000, factor: 2, maxAttempts: 8 }`.
   */
  listenReconnect?: ListenReconnectOptions | false;
}

/** Options of `callTool()`. */
export interface CallToolOptions extends FeatureRequestOptions {
  /** Check `structuredContent` against the tool's output schema from the last `tools/list`. Default true. */
  validateOutput?: boolean;
}

/** Options of `complete()`. */
export interface CompleteOptions extends FeatureRequestOptions {
  /** Values of the other arguments already chosen (`context.arguments`). */
  context?: { arguments?: Record<string, string> };
}

/**
 * Every feature of an MCP server, as typed calls that work the same in both eras.
 *
 * @example
 * ```ts
 * declare const client: ContextClient;
 * const tools = await client.listTools();
 * const result = await client.callTool("weather", { city: "Oslo" }, { onProgress: (p) => console.log(p.progress) });
 * for await (const change of client.listen({ tools: true })) console.log(change.type);
 * ```
 */
export class ClientFeatures {
  readonly #host: FeatureHost;
  readonly #fanout: NotificationFanout;
  readonly #progress: ProgressRouter;
  readonly #cache: ListCache;
  readonly #schemas: OutputSchemas;
  readonly #subscriptions: ResourceSubscriptions;
  readonly #context: FeatureRequestContext;
  readonly #lists: ListReader;
  readonly #log: ServerLog;
  #listens = 0;
  readonly #listenReconnect: ListenReconnectPolicy | undefined;
  readonly #signals: ListenSignals;

  constructor(host: FeatureHost, options: ClientFeatureOptions = {}) {
    this.#host = host;
    const bounds = {
      maxPages: integerOption("maxListPages", options.maxListPages, 1_000, 1),
      maxItems: integerOption("maxListItems", options.maxListItems, 100_000, 0),
    };
    this.#listenReconnect = listenReconnectPolicy(options.listenReconnect);
    this.#signals = new ListenSignals(() => host.closed());
    const report = (error: Error): void => host.report(error);
    this.#fanout = new NotificationFanout(report);
    this.#progress = new ProgressRouter(report);
    this.#cache = new ListCache(host.time);
    // Output schemas come from the server: a pattern that could freeze this process is not checked.
    this.#schemas = new OutputSchemas(
      options.schemaValidator ?? new JsonSchemaValidator({ riskyPatterns: "skip" }),
      bounds.maxItems,
    );
    this.#context = {
      host,
      progress: this.#progress,
      requestTimeout: numberOption("requestTimeout", options.requestTimeout, 60_000),
      maxRequestTimeout: numberOption("maxRequestTimeout", options.maxRequestTimeout, 600_000),
      maxInputRounds: integerOption("maxInputRounds", options.maxInputRounds, 10, 0),
      related: host.relatedNotification
        ? (method, params) => host.relatedNotification!(method, params)
        : (method, params) => void this.#fanout.dispatch(method, params),
      meta: (level) => this.#log.meta(level),
    };
    this.#log = new ServerLog({
      host,
      fanout: this.#fanout,
      sendSetLevel: (level, options) =>
        sendFeatureRequest(this.#context, "logging/setLevel", { level }, options),
    });
    this.#lists = new ListReader(
      this.#context,
      options.listCache === false ? undefined : this.#cache,
      this.#schemas,
      bounds,
    );
    this.#subscriptions = new ResourceSubscriptions((uri, on) =>
      sendFeatureRequest(this.#context, on ? "resources/subscribe" : "resources/unsubscribe", { uri })
    );
    this.#fanout.on("notifications/progress", (params) => this.#progress.dispatch(params));
    this.#fanout.on("notifications/tools/list_changed", () => this.#cache.invalidate("tools/list"));
    this.#fanout.on("notifications/prompts/list_changed", () => this.#cache.invalidate("prompts/list"));
    this.#fanout.on("notifications/resources/list_changed", () => {
      this.#cache.invalidate("resources/list");
      this.#cache.invalidate("resources/templates/list");
    });
  }

  /**
   * The server may have missed messages for this client (a GET stream reopened without resuming) or
   * lost its session (`sessionLost`: re-initialized): drops the list cache, renews the held resource
   * subscriptions when the session was lost, then every legacy listen stream yields `{ type: "resync" }`.
   */
  resync(info: { sessionLost: boolean }): void {
    this.#invalidateLists();
    if (!info.sessionLost) return this.#signals.resync();
    void this.#subscriptions.renew().catch((error) => this.#host.report(asError(error))).then(() =>
      this.#signals.resync()
    );
  }

  /** Hands a server notification to the feature API (progress, list changes, listen streams, logs). */
  dispatchNotification(method: string, params: unknown): void {
    this.#fanout.dispatch(method, params);
  }

  // ---- lists ----

  /** Every tool, following every cursor. Cached for the server's `ttlMs`; remembers output schemas for `callTool`. */
  listTools(options: ListOptions = {}): Promise<ListedTool[]> {
    return this.#lists.list<ListedTool>("tools/list", options);
  }

  /** Every resource, following every cursor. */
  listResources(options: ListOptions = {}): Promise<ListedResource[]> {
    return this.#lists.list<ListedResource>("resources/list", options);
  }

  /** Every resource template, following every cursor. */
  listResourceTemplates(options: ListOptions = {}): Promise<ListedResourceTemplate[]> {
    return this.#lists.list<ListedResourceTemplate>("resources/templates/list", options);
  }

  /** Every prompt, following every cursor. */
  listPrompts(options: ListOptions = {}): Promise<ListedPrompt[]> {
    return this.#lists.list<ListedPrompt>("prompts/list", options);
  }

  /** The tools one at a time, fetching a page only when the previous one is used up. */
  iterateTools(options: IterateOptions = {}): AsyncGenerator<ListedTool, void, undefined> {
    return this.#lists.iterate<ListedTool>("tools/list", options);
  }

  /** The resources one at a time, a page at a time. */
  iterateResources(options: IterateOptions = {}): AsyncGenerator<ListedResource, void, undefined> {
    return this.#lists.iterate<ListedResource>("resources/list", options);
  }

  /** The resource templates one at a time, a page at a time. */
  iterateResourceTemplates(
    options: IterateOptions = {},
  ): AsyncGenerator<ListedResourceTemplate, void, undefined> {
    return this.#lists.iterate<ListedResourceTemplate>("resources/templates/list", options);
  }

  /** The prompts one at a time, a page at a time. */
  iteratePrompts(options: IterateOptions = {}): AsyncGenerator<ListedPrompt, void, undefined> {
    return this.#lists.iterate<ListedPrompt>("prompts/list", options);
  }

  // ---- calls ----

  /**
   * Calls tool `name`. A tool error is a result with `isError: true`, not a rejection. When the last
   * `tools/list` gave the tool an output schema, `structuredContent` must match it, or the call rejects
   * with a `StructuredContentError`.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<CallToolResult> {
    const result = await sendFeatureRequest(this.#context, "tools/call", { name, arguments: args }, options);
    if (!isPlainObject(result) || !Array.isArray(result.content)) {
      throw new ClientFeatureError(
        "invalid_result",
        `Tool ${JSON.stringify(name)} answered tools/call without a content array`,
      );
    }
    if (options.validateOutput !== false) this.#schemas.check(name, result);
    return result as CallToolResult;
  }

  /** `tasks/get`: the task as the server shows it now (tasks extension; needs it in the client capabilities). */
  async getTask(taskId: string, options: { signal?: AbortSignal } = {}): Promise<ClientTask> {
    return readTask(await this.#host.request("tasks/get", { taskId }, { signal: options.signal }));
  }

  /** `tasks/update`: answers some of a task's `inputRequests` by key. */
  async updateTask(
    taskId: string,
    inputResponses: Record<string, unknown>,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    await this.#host.request("tasks/update", { taskId, inputResponses }, { signal: options.signal });
  }

  /** `tasks/cancel`: asks the server to cancel a task (cooperative; the next `getTask` shows the outcome). */
  async cancelTask(taskId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.#host.request("tasks/cancel", { taskId }, { signal: options.signal });
  }

  /**
   * Follows a task known by id (e.g. saved before a restart) to its result, as `callTool` does:
   * polls, answers its input requests with this client's handlers, cancels it on abort.
   */
  resumeTask(taskId: string, options: FollowTaskOptions = {}): Promise<Record<string, unknown>> {
    return followTask(this.#host, taskId, options);
  }

  /** Reads resource `uri`: its `contents` (text or base64 `blob`). */
  async readResource(uri: string, options: FeatureRequestOptions = {}): Promise<ReadResourceResult> {
    return (await sendFeatureRequest(
      this.#context,
      "resources/read",
      { uri },
      options,
    )) as ReadResourceResult;
  }

  /** Gets prompt `name` filled with `args`. */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: FeatureRequestOptions = {},
  ): Promise<GetPromptResult> {
    return (await sendFeatureRequest(
      this.#context,
      "prompts/get",
      { name, arguments: args },
      options,
    )) as GetPromptResult;
  }

  /**
   * Completion values for `argument` of a prompt (`{ type: "ref/prompt", name }`) or resource template
   * (`{ type: "ref/resource", uri }`).
   */
  async complete(
    ref: CompletionReference,
    argument: CompletionArgument,
    options: CompleteOptions = {},
  ): Promise<CompleteResult> {
    const params: ClientRequestParams<"completion/complete"> = { ref, argument };
    if (options.context !== undefined) params.context = options.context;
    return (await sendFeatureRequest(
      this.#context,
      "completion/complete",
      params as Record<string, unknown>,
      options,
    )) as CompleteResult;
  }

  // ---- subscriptions and change streams ----

  /**
   * Legacy era: `resources/subscribe` for `uri` (counted: the wire call is sent by the first holder).
   * Updates arrive as `notifications/resources/updated` (see `listen` and `onNotification`). The
   * modern era has no such method: use `listen({ resourceUris })`.
   */
  subscribe(uri: string): Promise<void> {
    this.#legacyOnly("resources/subscribe");
    return this.#subscriptions.acquire(uri);
  }

  /** Legacy era: lets go of a `subscribe(uri)`; the last holder sends `resources/unsubscribe`. */
  unsubscribe(uri: string): Promise<void> {
    this.#legacyOnly("resources/unsubscribe");
    return this.#subscriptions.release(uri);
  }

  /**
   * Change events as an async iterable, the same in both eras: modern → one `subscriptions/listen`
   * (over HTTP reopened after it breaks, see `listenReconnect`, with a `resync` event);
   * legacy → the list-changed notifications and `resources/subscribe` for `resourceUris`. See
   * {@linkcode ChangeStream} for the buffering rule and how to end it.
   */
  listen(options: ListenOptions): ChangeStream {
    return openListen({
      host: this.#host,
      fanout: this.#fanout,
      related: this.#context.related,
      subscriptions: this.#subscriptions,
      nextListenId: () => `omc-listen-${++this.#listens}`,
      watchClose: (onClosed) => this.#signals.watchClose(onClosed),
      watchResync: (onResync) => this.#signals.watchResync(onResync),
      invalidateLists: () => this.#invalidateLists(),
      reconnect: this.#host.separateRequests?.() === true ? this.#listenReconnect : undefined,
    }, options);
  }

  // ---- logging ----

  /** The log level set with {@linkcode setLogLevel}, if any. */
  get logLevel(): LoggingLevel | undefined {
    return this.#log.level;
  }

  /**
   * Asks for server log messages at `level` and above. Legacy: `logging/setLevel`. Modern: every later
   * feature request carries `_meta["io.modelcontextprotocol/logLevel"]` (servers send messages only
   * to requests that ask).
   */
  setLogLevel(level: LoggingLevel, options: FeatureRequestOptions = {}): Promise<void> {
    return this.#log.setLevel(level, options);
  }

  /** Calls `handler` with every `notifications/message`; returns the function that stops it. */
  onLog(handler: (entry: LogEntry) => void): () => void {
    return this.#log.onLog(handler);
  }

  // ---- internals ----

  /** Drops every cached listing (changes may have been missed). */
  #invalidateLists(): void {
    for (const method of ["tools/list", "prompts/list", "resources/list", "resources/templates/list"]) {
      this.#cache.invalidate(method);
    }
  }

  #legacyOnly(method: string): void {
    if (this.#host.era() === "modern") {
      throw new ClientFeatureError(
        "unsupported_in_era",
        `Method ${method} does not exist in the modern era: use listen({ resourceUris })`,
      );
    }
  }
}
