/**
 * `ServerFeatures`: tools, resources, resource templates, prompts, completions, logging, pagination,
 * change notifications and subscriptions, for both eras, on any {@linkcode FeatureHost}. A method's
 * handler is installed on the host the first time something needs it, so a server that only uses raw
 * handlers is unchanged.
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import type { CacheScope } from "../../wire/discover_result.ts";
import type { Capabilities } from "../../wire/protocol_versions.ts";
import type { SchemaValidator } from "../../schema/schema_validator.ts";
import type { SchemaLike } from "../../schema/tool_schema.ts";
import { integerOption, numberOption } from "../../stream/options.ts";
import { ChangeNotifier } from "./change_notifier.ts";
import { TaskEngine, type TaskEngineOptions } from "../../tasks/task_engine.ts";
import { TASKS_EXTENSION } from "../../tasks/task_record.ts";
import { TaskMethods } from "./task_methods.ts";
import { taskEventsOverBus } from "./task_events_over_bus.ts";
import { Completions } from "./completions.ts";
import type { FeatureHost } from "./feature_host.ts";
import type { ListenBus, ListenBusEvent } from "./listen/listen_bus.ts";
import { ListenStreams, type ListKind } from "./listen/listen_streams.ts";
import { LogLevels } from "./log_levels.ts";
import { DEFAULT_PAGE_SIZE } from "./pagination.ts";
import { DEFAULT_MAX_URI_LENGTH } from "./resource_registry.ts";
import {
  type PromptArguments,
  type PromptConfig,
  type PromptHandler,
  PromptRegistry,
  type RegisteredPrompt,
} from "./prompt_registry.ts";
import {
  type RegisteredResource,
  type ResourceConfig,
  type ResourceReader,
  ResourceRegistry,
  type ResourceTemplateConfig,
  type ResourceTemplateReader,
} from "./resource_registry.ts";
import {
  type RegisteredTool,
  type ToolArguments,
  type ToolConfig,
  type ToolHandler,
  ToolRegistry,
  type ToolSchemaInput,
} from "./tool_registry.ts";

/** Options of {@linkcode ServerFeatures} (the `features` option of `ContextServer`). */
export interface ServerFeaturesOptions {
  /**
   * Items per page of `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`. Default 100.
   * @default 100
   */
  pageSize?: number;
  /**
   * The longest URI `resources/read` matches against resource templates, in UTF-16 code units; a
   * longer one (that is not an exact static resource URI) is answered -32602. Default 16 384.
   * @default 16384
   */
  maxUriLength?: number;
  /**
   * The cache hint of modern (2026-07-28) list results: `ttlMs` (default 0, immediately stale) and
   * `cacheScope` (default `"private"`). Legacy results carry none.
   */
  listCache?: { ttlMs?: number; cacheScope?: CacheScope };
  /**
   * Validates plain JSON Schemas of tools and prompts. Default: the shared `JsonSchemaValidator` (2020-12).
   * @default the shared `JsonSchemaValidator`
   */
  validator?: SchemaValidator;
  /**
   * Shares list changes and resource updates with the other replicas of this server, so a listen
   * stream (or legacy session) held by any replica hears a change made on another: `RedisListenBus`
   * from `onemodelcontext/redis`. Changes go out through the bus and come back from it, this
   * replica's included; registrations made in one synchronous run are one event per list, and a
   * replica that starts announces its lists to the others (a rolling update may change them). After a
   * `resync` (the bus may have missed events), every list this server has is announced as changed.
   * Default: none, changes stay in this server.
   * @default none, changes stay in this server
   */
  listenBus?: ListenBus;
  /**
   * The `io.modelcontextprotocol/tasks` extension (tools with `taskSupport`): a ready `TaskEngine`, or
   * its options (`store`, `leaseMs`, `ttlMs`, `pollIntervalMs`, `maxAttempts`, …). Default: an engine
   * over a `MemoryTaskStore`, made when the first tool with task support is registered.
   * @default an engine over a `MemoryTaskStore`
   */
  tasks?: TaskEngine | TaskEngineOptions;
}

type Group = "base" | "tools" | "resources" | "prompts" | "completions" | "tasks";

/** The feature layer of one server. */
export class ServerFeatures {
  readonly #tools: ToolRegistry;
  readonly #resources: ResourceRegistry;
  readonly #prompts: PromptRegistry;
  readonly #host: FeatureHost;
  readonly #levels: LogLevels;
  readonly #streams: ListenStreams;
  readonly #notifier: ChangeNotifier;
  readonly #completions: Completions;
  readonly #installed = new Set<Group>();
  readonly #bus: ListenBus | undefined;
  readonly #unpublished = new Set<ListKind>();
  readonly #tasksOption: TaskEngine | TaskEngineOptions | undefined;
  #engine: TaskEngine | undefined;

  constructor(host: FeatureHost, options: ServerFeaturesOptions = {}) {
    this.#host = host;
    this.#levels = new LogLevels(host);
    const pageSize = integerOption("pageSize", options.pageSize, DEFAULT_PAGE_SIZE, 1);
    const maxUriLength = integerOption("maxUriLength", options.maxUriLength, DEFAULT_MAX_URI_LENGTH, 1);
    const cache = options.listCache ?? {};
    const cacheScope = cache.cacheScope ?? "private";
    if (cacheScope !== "public" && cacheScope !== "private") {
      throw new InvalidOptionError(
        `Option listCache.cacheScope must be "public" or "private", got ${JSON.stringify(cacheScope)}`,
      );
    }
    const listExtras = Object.freeze({
      ttlMs: Math.floor(numberOption("listCache.ttlMs", cache.ttlMs, 0)),
      cacheScope,
    });
    const validator = options.validator;
    this.#streams = new ListenStreams((kind) => this.#honours(kind), (error) => host.report(error));
    this.#notifier = new ChangeNotifier(host, this.#streams);
    this.#bus = options.listenBus;
    this.#bus?.subscribe((event) => this.#fromBus(event));
    this.#tasksOption = options.tasks;
    this.#tools = new ToolRegistry(this.#levels, {
      validator,
      pageSize,
      listExtras,
      onChange: () => this.#changed("tools"),
      tasks: () => this.taskEngine,
      onTaskTool: () => this.#install("tasks"),
    });
    this.#resources = new ResourceRegistry(this.#levels, {
      pageSize,
      maxUriLength,
      listExtras,
      onChange: () => this.#changed("resources"),
    });
    this.#prompts = new PromptRegistry(this.#levels, {
      validator,
      pageSize,
      listExtras,
      onChange: () => this.#changed("prompts"),
    });
    this.#completions = new Completions(this.#prompts, this.#resources, this.#levels);
    if (options.tasks !== undefined) this.#install("tasks");
  }

  /** The `inputSchema` registered tool `name` lists (`undefined` when there is none). */
  toolInputSchema(name: string): unknown {
    return this.#tools.inputSchemaOf(name);
  }

  /** The `requiredScopes` of registered tool `name` (`undefined` when it has none or there is no such tool). */
  toolRequiredScopes(name: string): readonly string[] | undefined {
    return this.#tools.requiredScopesOf(name);
  }

  /** Registers a tool; see {@linkcode ToolRegistry.add}. */
  tool<S extends ToolSchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<S>,
    handler: ToolHandler<ToolArguments<S>>,
  ): RegisteredTool {
    this.#install("tools");
    return this.#tools.add(name, config, handler);
  }

  /** Registers a static resource; see {@linkcode ResourceRegistry.addResource}. */
  resource(uri: string, config: ResourceConfig, read?: ResourceReader): RegisteredResource {
    this.#install("resources");
    return this.#resources.addResource(uri, config, read);
  }

  /** Registers a resource template; see {@linkcode ResourceRegistry.addTemplate}. */
  resourceTemplate(
    uriTemplate: string,
    config: ResourceTemplateConfig,
    read: ResourceTemplateReader,
  ): RegisteredResource {
    this.#install("resources");
    return this.#resources.addTemplate(uriTemplate, config, read);
  }

  /** Registers a prompt; see {@linkcode PromptRegistry.add}. */
  prompt<S extends SchemaLike | undefined = undefined>(
    name: string,
    config: PromptConfig<S>,
    handler: PromptHandler<PromptArguments<S>>,
  ): RegisteredPrompt {
    this.#install("prompts");
    return this.#prompts.add(name, config, handler);
  }

  /** Tells subscribers (legacy `resources/subscribe`, modern listen streams) that resource `uri` changed. */
  resourceUpdated(uri: string): void {
    if (this.#bus) this.#publish({ type: "resource_updated", uri });
    else this.#notifier.resourceUpdated(uri);
  }

  /** The engine of the tasks extension (made on first use; see the `tasks` option). */
  get taskEngine(): TaskEngine {
    if (this.#engine === undefined) {
      const option = this.#tasksOption;
      const bus = this.#bus;
      const engine = option instanceof TaskEngine ? option : new TaskEngine({
        timeProvider: this.#host.timeProvider,
        onReport: (error) => this.#host.report(error),
        events: bus === undefined ? undefined : taskEventsOverBus(bus),
        ...option,
      });
      engine.setResumer((record) => this.#tools.resume(record, engine));
      this.#engine = engine;
      engine.onChange(
        (record) => this.#streams.taskChanged(record),
        (taskId) => this.#streams.wantsTask(taskId),
      );
    }
    return this.#engine;
  }

  /**
   * Stops the task engine this layer made (its lease renewals; work still running is abandoned, so
   * other replicas find it lost after the lease). A `TaskEngine` passed in is the caller's to close.
   */
  closeTasks(): void {
    if (this.#engine !== undefined && !(this.#tasksOption instanceof TaskEngine)) this.#engine.close();
  }

  /** Open `subscriptions/listen` streams. */
  get listenStreams(): number {
    return this.#streams.size;
  }

  /** The capabilities of what has been registered (a capability stays once its first item was registered). */
  capabilities(): Capabilities {
    const capabilities: Capabilities = {};
    if (this.#installed.has("tools")) capabilities.tools = { listChanged: true };
    if (this.#installed.has("resources")) capabilities.resources = { subscribe: true, listChanged: true };
    if (this.#installed.has("prompts")) capabilities.prompts = { listChanged: true };
    if (this.#installed.has("completions")) capabilities.completions = {};
    if (this.#installed.has("base")) capabilities.logging = {};
    if (this.#installed.has("tasks")) capabilities.extensions = { [TASKS_EXTENSION]: {} };
    return capabilities;
  }

  #honours(kind: "tools" | "prompts" | "resources" | "resourceSubscriptions" | "tasks"): boolean {
    return this.#installed.has(kind === "resourceSubscriptions" ? "resources" : kind);
  }

  #changed(kind: ListKind): void {
    if (!this.#bus) return this.#notifier.listChanged(kind);
    // Registrations made in one synchronous run go out as one event per list.
    if (this.#unpublished.size === 0) {
      queueMicrotask(() => {
        const kinds = [...this.#unpublished];
        this.#unpublished.clear();
        for (const list of kinds) this.#publish({ type: "list_changed", list });
      });
    }
    this.#unpublished.add(kind);
  }

  #publish(event: Parameters<ListenBus["publish"]>[0]): void {
    this.#bus!.publish(event).catch((error: unknown) =>
      this.#host.report(error instanceof Error ? error : new Error(String(error)))
    );
  }

  #fromBus(event: ListenBusEvent): void {
    if (event.type === "list_changed") this.#notifier.listChanged(event.list);
    else if (event.type === "resource_updated") this.#notifier.resourceUpdated(event.uri);
    else if (event.type === "task_changed") return; // the task engine listens for these itself
    else {for (const kind of ["tools", "prompts", "resources"] as const) {
        if (this.#installed.has(kind)) this.#notifier.listChanged(kind);
      }}
  }

  #install(group: Group): void {
    if (this.#installed.has(group)) return;
    const host = this.#host;
    if (!this.#installed.has("base")) {
      this.#installed.add("base");
      host.handle("logging/setLevel", (params, context) => this.#levels.setLevel(params, context));
      host.handle("subscriptions/listen", (params, context) => this.#streams.listen(params, context));
    }
    this.#installed.add(group);
    switch (group) {
      case "tools":
        host.handle("tools/list", (params, context) => this.#tools.list(params, context));
        host.handle("tools/call", (params, context) => this.#tools.call(params, context));
        break;
      case "resources":
        host.handle("resources/list", (params, context) => this.#resources.list(params, context));
        host.handle(
          "resources/templates/list",
          (params, context) => this.#resources.listTemplates(params, context),
        );
        host.handle("resources/read", (params, context) => this.#resources.read(params, context));
        host.handle("resources/subscribe", (params, context) => this.#notifier.subscribe(params, context));
        host.handle(
          "resources/unsubscribe",
          (params, context) => this.#notifier.unsubscribe(params, context),
        );
        this.#install("completions");
        break;
      case "prompts":
        host.handle("prompts/list", (params, context) => this.#prompts.list(params, context));
        host.handle("prompts/get", (params, context) => this.#prompts.get(params, context));
        this.#install("completions");
        break;
      case "completions":
        host.handle("completion/complete", (params, context) => this.#completions.complete(params, context));
        break;
      case "tasks": {
        // Made now, not on first use: a replica that has run no task yet still hears task changes
        // from the others (its listen streams want them).
        void this.taskEngine;
        const methods = new TaskMethods(() => this.taskEngine);
        host.handle("tasks/get", (params, context) => methods.get(params, context));
        host.handle("tasks/update", (params, context) => methods.update(params, context));
        host.handle("tasks/cancel", (params, context) => methods.cancel(params, context));
        break;
      }
    }
    host.capabilitiesChanged();
  }
}
