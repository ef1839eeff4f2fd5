/**
 * `MountedServer`: one upstream server of a {@linkcode ComposedServer}, reached through a
 * `ContextClient`. It lists the upstream's tools, prompts, resources and templates (bounded, through
 * the composer's concurrency limit) and registers each on the composing server under the mount's
 * name, with a handler that forwards the call: the request's progress, cancellation and log
 * messages cross, and what the upstream asks its client (elicitation, sampling, roots) is asked of
 * the downstream client of a request in flight. A list-changed event of the upstream re-lists that
 * kind and updates the registrations (the composing server then tells its own clients).
 * @module
 */
import type { ContextClient } from "../client/context_client.ts";
import type { ChangeStream } from "../client/features/change_stream.ts";
import type { ContextServer } from "../server/context_server.ts";
import type { HandlerContext } from "../server/features/handler_context.ts";
import type { RegisteredPrompt } from "../server/features/prompt_registry.ts";
import type { RegisteredResource } from "../server/features/resource_registry.ts";
import type { RegisteredTool } from "../server/features/tool_registry.ts";
import { JsonRpcError } from "../wire/errors.ts";
import { MetaKeys } from "../wire/protocol_versions.ts";
import type { ConcurrencyLimit } from "./concurrency_limit.ts";
import { ASKING_METHODS, forwardWithInputRounds } from "./upstream_input_rounds.ts";
import { type UpstreamCompleter, upstreamCompleters } from "./upstream_completers.ts";
import {
  allowed,
  listEveryPage,
  type MountFilter,
  pick,
  templateVariables,
  type Wire,
} from "./upstream_lists.ts";

export type { MountFilter } from "./upstream_lists.ts";

/** How a mount is shown. */
export interface MountOptions {
  /**
   * Tools shown (upstream names).
   * @default every tool
   */
  tools?: MountFilter;
  /**
   * Prompts shown (upstream names).
   * @default every prompt
   */
  prompts?: MountFilter;
  /**
   * `true`: resource URIs and templates shown as `{name}+{uri}`; `false`: unchanged.
   * @default false
   */
  prefixResources?: boolean;
  /**
   * Pages read per list call at most (a server that pages forever stops there, reported).
   * @default 100
   */
  maxListPages?: number;
}

type Kind = "tools" | "prompts" | "resources";

const PROGRESS_PREFIX = "compose-progress-";
let progressCounter = 0;

/** One mounted upstream and what it registered on the composing server. */
export class MountedServer {
  readonly name: string;
  readonly client: ContextClient;
  readonly #server: ContextServer;
  readonly #options: MountOptions;
  readonly #limit: ConcurrencyLimit;
  readonly #report: (error: Error) => void;
  readonly #owned: boolean;
  readonly #tools = new Map<string, { json: string; registered: RegisteredTool }>();
  readonly #prompts = new Map<string, { json: string; registered: RegisteredPrompt }>();
  readonly #resources = new Map<string, { json: string; registered: RegisteredResource }>();
  /** Downstream requests in flight on this mount: where its server-to-client requests and logs go. */
  readonly #inFlight = new Set<HandlerContext>();
  #changes: ChangeStream | undefined;
  #closed = false;

  constructor(
    name: string,
    client: ContextClient,
    host: { server: ContextServer; limit: ConcurrencyLimit; report: (error: Error) => void; owned: boolean },
    options: MountOptions = {},
  ) {
    this.name = name;
    this.client = client;
    this.#server = host.server;
    this.#limit = host.limit;
    this.#report = host.report;
    this.#owned = host.owned;
    this.#options = options;
  }

  /** The name shown downstream for an upstream tool or prompt name. */
  shownName(upstream: string): string {
    return this.name === "" ? upstream : `${this.name}_${upstream}`;
  }

  #shownUri(uri: string): string {
    return this.#options.prefixResources && this.name !== "" ? `${this.name}+${uri}` : uri;
  }

  #upstreamUri(uri: string): string {
    const prefix = `${this.name}+`;
    return this.#options.prefixResources && this.name !== "" && uri.startsWith(prefix)
      ? uri.slice(prefix.length)
      : uri;
  }

  /** Lists everything the upstream offers, registers it, and follows its changes. */
  async start(): Promise<void> {
    const caps = (this.client.serverCapabilities ?? {}) as Record<
      string,
      { listChanged?: boolean } | undefined
    >;
    await Promise.all([
      caps.tools ? this.sync("tools") : undefined,
      caps.prompts ? this.sync("prompts") : undefined,
      caps.resources ? this.sync("resources") : undefined,
    ]);
    const wanted = {
      tools: caps.tools?.listChanged === true,
      prompts: caps.prompts?.listChanged === true,
      resources: caps.resources?.listChanged === true,
    };
    if (wanted.tools || wanted.prompts || wanted.resources) this.#follow(wanted);
    this.client.onNotification("notifications/message" as never, (params: unknown) => this.#log(params));
  }

  #follow(wanted: { tools: boolean; prompts: boolean; resources: boolean }): void {
    const changes = this.client.listen(wanted);
    this.#changes = changes;
    void (async () => {
      try {
        for await (const event of changes) {
          if (this.#closed) break;
          if (event.type === "toolsListChanged") await this.sync("tools");
          else if (event.type === "promptsListChanged") await this.sync("prompts");
          else if (event.type === "resourcesListChanged") await this.sync("resources");
          else if (event.type === "resourceUpdated") this.#server.resourceUpdated(this.#shownUri(event.uri));
          else if (event.type === "resync") {
            for (const kind of ["tools", "prompts", "resources"] as const) {
              if (wanted[kind]) await this.sync(kind);
            }
          }
        }
      } catch (error) {
        if (!this.#closed) this.#report(error instanceof Error ? error : new Error(String(error)));
      }
    })();
  }

  /** Every item of one upstream list (all pages, at most `maxListPages`), through the concurrency limit. */
  async #list(method: string, key: string): Promise<Wire[]> {
    const maxPages = this.#options.maxListPages ?? 100;
    const { items, truncated } = await listEveryPage(
      { client: this.client, limit: this.#limit, maxPages },
      { method, key },
    );
    if (truncated) {
      this.#report(
        new Error(`Mount ${this.name}: ${method} still had pages after ${maxPages}; the rest is not shown`),
      );
    }
    return items;
  }

  /** Lists one kind again and brings the registrations in line with it. */
  async sync(kind: Kind): Promise<void> {
    if (this.#closed) return;
    try {
      if (kind === "tools") await this.#syncTools();
      else if (kind === "prompts") await this.#syncPrompts();
      else await this.#syncResources();
    } catch (error) {
      this.#report(
        new Error(
          `Mount ${this.name}: listing its ${kind} failed: ${error instanceof Error ? error.message : error}`,
        ),
      );
    }
  }

  #replace<R extends { remove(): void }>(
    table: Map<string, { json: string; registered: R }>,
    wanted: Map<string, Wire>,
    register: (shown: string, item: Wire) => R,
  ): void {
    for (const [shown, entry] of table) {
      const next = wanted.get(shown);
      if (next === undefined || JSON.stringify(next) !== entry.json) {
        entry.registered.remove();
        table.delete(shown);
      }
    }
    for (const [shown, item] of wanted) {
      if (table.has(shown)) continue;
      try {
        table.set(shown, { json: JSON.stringify(item), registered: register(shown, item) });
      } catch (error) {
        this.#report(
          new Error(
            `Mount ${this.name}: ${shown} is not shown: ${error instanceof Error ? error.message : error}`,
          ),
        );
      }
    }
  }

  async #syncTools(): Promise<void> {
    const tools = await this.#list("tools/list", "tools");
    const wanted = new Map<string, Wire>();
    for (const tool of tools) {
      if (typeof tool.name !== "string" || !allowed(this.#options.tools, tool.name)) continue;
      wanted.set(this.shownName(tool.name), tool);
    }
    if (this.#closed) return;
    this.#replace(this.#tools, wanted, (shown, tool) =>
      this.#server.tool(
        shown,
        pick(tool, [
          "title",
          "description",
          "inputSchema",
          "outputSchema",
          "annotations",
          "icons",
          "_meta",
        ]) as never,
        (args, context) =>
          this.forward(
            "tools/call",
            { name: tool.name, ...(args === undefined ? {} : { arguments: args }) },
            context,
          ) as never,
      ));
  }

  async #syncPrompts(): Promise<void> {
    const prompts = await this.#list("prompts/list", "prompts");
    const wanted = new Map<string, Wire>();
    for (const prompt of prompts) {
      if (typeof prompt.name !== "string" || !allowed(this.#options.prompts, prompt.name)) continue;
      wanted.set(this.shownName(prompt.name), prompt);
    }
    if (this.#closed) return;
    const completes = this.client.serverCapabilities?.completions !== undefined;
    this.#replace(this.#prompts, wanted, (shown, prompt) => {
      const args = Array.isArray(prompt.arguments) ? prompt.arguments as Array<{ name: string }> : [];
      const ref = { type: "ref/prompt", name: prompt.name };
      return this.#server.prompt(shown, {
        ...pick(prompt, ["title", "description", "icons", "arguments", "_meta"]),
        ...(completes && args.length > 0 ? { complete: this.#completers(ref, args.map((a) => a.name)) } : {}),
      } as never, (values, context) =>
        this.forward("prompts/get", {
          name: prompt.name,
          ...(values === undefined ? {} : { arguments: values }),
        }, context) as never);
    });
  }

  async #syncResources(): Promise<void> {
    const [resources, templates] = await Promise.all([
      this.#list("resources/list", "resources"),
      this.#list("resources/templates/list", "resourceTemplates"),
    ]);
    const wanted = new Map<string, Wire>();
    for (const resource of resources) {
      if (typeof resource.uri === "string") wanted.set(this.#shownUri(resource.uri), resource);
    }
    for (const template of templates) {
      if (typeof template.uriTemplate === "string") {
        wanted.set(`template:${this.#shownUri(template.uriTemplate)}`, template);
      }
    }
    if (this.#closed) return;
    const completes = this.client.serverCapabilities?.completions !== undefined;
    const info = ["name", "title", "description", "mimeType", "size", "annotations", "icons", "_meta"];
    this.#replace(this.#resources, wanted, (shown, item) => {
      const read = (uri: string, context: HandlerContext) =>
        this.forward("resources/read", { uri: this.#upstreamUri(uri) }, context) as never;
      if (typeof item.uriTemplate !== "string") {
        return this.#server.resource(shown, pick(item, info) as never, read);
      }
      const variables = templateVariables(item.uriTemplate);
      const ref = { type: "ref/resource", uri: item.uriTemplate };
      return this.#server.resourceTemplate(shown.slice("template:".length), {
        ...pick(item, info),
        ...(completes && variables.length > 0 ? { complete: this.#completers(ref, variables) } : {}),
      } as never, (uri, _variables, context) => read(uri, context));
    });
  }

  #completers(ref: Wire, names: readonly string[]): Record<string, UpstreamCompleter> {
    return upstreamCompleters(ref, names, (method, params, context) => this.forward(method, params, context));
  }

  /**
   * Sends one downstream request to the upstream: its cancellation (the signal), its progress (under
   * a token of the composer's own, passed back under the downstream token) and, while it runs, the
   * upstream's log messages and requests to its client.
   */
  async forward(method: string, params: Wire, context: HandlerContext): Promise<unknown> {
    if (this.#closed) throw new JsonRpcError(-32603, `Mount ${this.name} is closed`);
    const downstreamToken = context.meta.progressToken;
    const token = downstreamToken === undefined ? undefined : `${PROGRESS_PREFIX}${++progressCounter}`;
    // Every log message of the upstream comes (modern: asked per request); the downstream's level filters it.
    const meta: Wire = { [MetaKeys.logLevel]: "debug" };
    if (token !== undefined) meta.progressToken = token;
    const sent = { ...params, _meta: meta };
    this.#inFlight.add(context);
    try {
      const options = {
        signal: context.signal,
        ...(token === undefined ? {} : {
          onNotification: (m: string, p: unknown) => {
            if (m !== "notifications/progress") return;
            const { progress, total, message } = p as { progress: number; total?: number; message?: string };
            void context.sendProgress(progress, { total, message }).catch(() => {});
          },
        }),
      };
      if (context.era !== "modern" || this.client.era !== "modern" || !ASKING_METHODS.has(method)) {
        return await this.client.request(method as never, sent as never, options);
      }
      return await forwardWithInputRounds(this, { method, sent, options, context });
    } finally {
      this.#inFlight.delete(context);
    }
  }

  /** The context of a downstream request in flight on this mount, to carry what the upstream asks. */
  asker(): HandlerContext {
    for (const context of this.#inFlight) return context;
    throw new JsonRpcError(
      -32603,
      `Mount ${this.name}: its request to the client has no way there (no request of the client is in flight)`,
    );
  }

  #log(params: unknown): void {
    const { level, data, logger } = (params ?? {}) as { level?: string; data?: unknown; logger?: string };
    if (this.#inFlight.size === 1) {
      for (const context of this.#inFlight) void context.log(level as never, data, logger).catch(() => {});
    }
  }

  /** Takes every registration off the composing server and ends the upstream connection when owned. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const table of [this.#tools, this.#prompts, this.#resources] as const) {
      for (const entry of table.values()) entry.registered.remove();
      table.clear();
    }
    await this.#changes?.close();
    if (this.#owned) await this.client.close();
  }

  /** Counts of what this mount shows. */
  get shown(): { tools: number; prompts: number; resources: number } {
    return { tools: this.#tools.size, prompts: this.#prompts.size, resources: this.#resources.size };
  }
}
