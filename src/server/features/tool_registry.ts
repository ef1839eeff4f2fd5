/**
 * `ToolRegistry`: the tools of a server, `tools/list` and `tools/call`. Schemas are compiled once, at
 * registration; a tool without an input schema costs nothing extra per call.
 * @module
 */
import { ErrorCodes, InvalidOptionError, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { ContentBlock, Icon, ToolAnnotations } from "../../wire/protocol/v2026_07_28.ts";
import type { JsonSchema, JsonSchemaObject, SchemaValidator } from "../../schema/schema_validator.ts";
import type { StandardOutput, StandardSchemaV1 } from "../../schema/standard_schema.ts";
import { type SchemaLike, type ToolSchema, toolSchema } from "../../schema/tool_schema.ts";
import type { FeatureRequestContext } from "./feature_host.ts";
import { describeIssues, FeatureRegistry, type FeatureRegistryOptions } from "./feature_registry.ts";
import type { TaskEngine, TaskWork } from "../../tasks/task_engine.ts";
import type { TaskRecord } from "../../tasks/task_record.ts";
import { TaskHandlerContext } from "./task_handler_context.ts";
import {
  callAsTask,
  detachedRequestContext,
  outcomeOfError,
  taskModeOf,
  taskSettingsOf,
  type TaskSupport,
  type TaskToolSettings,
} from "./task_tool_call.ts";
import type { ToolHandler, ToolResult } from "./tool_handler.ts";

export type { TaskSupport } from "./task_tool_call.ts";
export type { ToolHandler, ToolResult } from "./tool_handler.ts";

/** A tool's input or output schema: JSON Schema, a Standard Schema value (zod 4, valibot, arktype), or a ready {@linkcode ToolSchema}. */
export type ToolSchemaInput = SchemaLike | ToolSchema<unknown>;

/** The arguments a handler gets: the schema library's output for a Standard Schema, else a plain object. */
export type ToolArguments<S> = S extends StandardSchemaV1 ? StandardOutput<S>
  : S extends ToolSchema<infer T> ? T
  : Record<string, unknown>;

/** Describes a tool. */
export interface ToolConfig<S extends ToolSchemaInput | undefined = undefined> {
  /** Display name. */
  title?: string;
  description?: string;
  /**
   * Arguments schema; validated before the handler runs. Default: any object, not validated.
   * @default any object, not validated
   */
  inputSchema?: S;
  /** `structuredContent` schema; every successful result must carry conforming `structuredContent`. */
  outputSchema?: ToolSchemaInput;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /**
   * OAuth scopes a call of this tool needs (not sent to clients). Enforced by a bearer check that
   * reads them, e.g. `requireBearer(handler, { verify, scopesFor: scopesFromServer(server) })`.
   */
  requiredScopes?: readonly string[];
  /**
   * Whether a call may become a task (the `io.modelcontextprotocol/tasks` extension, 2026-07-28):
   * `"forbidden"` (default) always answers synchronously; `"optional"` answers with a task when the
   * request's client capabilities declare the extension, synchronously otherwise; `"required"` answers
   * -32021 to a modern request without the extension. In the legacy era every tool stays synchronous.
   */
  taskSupport?: TaskSupport;
  /**
   * When a call that may become a task does: `"immediate"` (default) creates the task before the
   * handler runs; `"manual"` runs the handler in the request (its asks are input rounds) until it
   * calls `ctx.runAsTask()`, and a handler that returns before that answers synchronously.
   */
  taskStart?: "immediate" | "manual";
  /**
   * The tool may run again from the start without harm: a task whose replica died is re-run on a
   * surviving replica (up to the tasks option `maxAttempts`) instead of failing. Default `false`.
   * @default false
   */
  safeToRepeat?: boolean;
}

/** A registered tool; `remove()` takes it off the server (clients are told the list changed). */
export interface RegisteredTool {
  readonly name: string;
  remove(): void;
}

/** Options of {@linkcode ToolRegistry}. */
export interface ToolRegistryOptions extends FeatureRegistryOptions {
  /**
   * Validates plain JSON Schemas. Default: the shared `JsonSchemaValidator`.
   * @default the shared `JsonSchemaValidator`
   */
  validator?: SchemaValidator;
  /** The task engine, made on first use (tools with task support only). */
  tasks?: () => TaskEngine;
  /** Called when a tool with task support is registered. */
  onTaskTool?(): void;
}

interface Entry {
  readonly wire: Record<string, unknown>;
  readonly input: ToolSchema<unknown> | undefined;
  readonly output: ToolSchema<unknown> | undefined;
  readonly handler: ToolHandler<unknown>;
  readonly requiredScopes: readonly string[] | undefined;
  readonly task: TaskToolSettings;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const EMPTY_INPUT: JsonSchemaObject = Object.freeze({ type: "object" });

/** The tools of one server. */
export class ToolRegistry extends FeatureRegistry<ToolRegistryOptions> {
  readonly #tools = new Map<string, Entry>();
  #listed: Record<string, unknown>[] | undefined;

  /** Tools registered now. */
  get size(): number {
    return this.#tools.size;
  }

  /**
   * Registers a tool. Throws {@linkcode InvalidOptionError} for a name outside `[A-Za-z0-9_.-]{1,128}`
   * (the spec's rule) or already taken, and `SchemaError` for a schema that cannot be used.
   */
  add<S extends ToolSchemaInput | undefined>(
    name: string,
    config: ToolConfig<S>,
    handler: ToolHandler<ToolArguments<S>>,
  ): RegisteredTool {
    if (typeof name !== "string" || !TOOL_NAME.test(name)) {
      throw new InvalidOptionError(
        `Tool name ${JSON.stringify(name)} must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and "."`,
      );
    }
    this.assertFree(this.#tools, name, `Tool ${name}`);
    if (typeof handler !== "function") {
      throw new InvalidOptionError(`Tool ${name} needs a handler function, got ${typeof handler}`);
    }
    const { title, description, inputSchema, outputSchema, annotations, icons, _meta, requiredScopes } =
      config ?? {};
    const task = taskSettingsOf(name, config ?? {});
    if (
      requiredScopes !== undefined &&
      (!Array.isArray(requiredScopes) ||
        !requiredScopes.every((scope) =>
          typeof scope === "string" && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope)
        ))
    ) {
      throw new InvalidOptionError(
        `Tool ${name} option requiredScopes must be an array of scope tokens, got ${
          JSON.stringify(requiredScopes)
        }`,
      );
    }
    const input = inputSchema === undefined
      ? undefined
      : compile(inputSchema, "input", this.options.validator);
    const output = outputSchema === undefined
      ? undefined
      : compile(outputSchema, "output", this.options.validator);
    const wire: Record<string, unknown> = { name };
    if (title !== undefined) wire.title = title;
    if (description !== undefined) wire.description = description;
    wire.inputSchema = input?.jsonSchema ?? EMPTY_INPUT;
    if (output) wire.outputSchema = output.jsonSchema;
    if (annotations !== undefined) wire.annotations = annotations;
    if (icons !== undefined) wire.icons = icons;
    if (_meta !== undefined) wire._meta = _meta;
    const entry: Entry = {
      wire,
      input,
      output,
      handler: handler as ToolHandler<unknown>,
      requiredScopes: requiredScopes === undefined ? undefined : Object.freeze([...requiredScopes]),
      task,
    };
    if (task.support !== "forbidden") this.options.onTaskTool?.();
    return { name, remove: this.register(this.#tools, name, entry) };
  }

  /** `tools/list`. */
  list(params: unknown, context: FeatureRequestContext): Record<string, unknown> {
    this.#listed ??= [...this.#tools.values()].map((entry) => entry.wire);
    return this.listPage("tools", "tools", this.#listed, params, context);
  }

  /** The `inputSchema` tool `name` lists, or `undefined` when no such tool is registered. */
  inputSchemaOf(name: string): unknown {
    return this.#tools.get(name)?.wire.inputSchema;
  }

  /** The `requiredScopes` of tool `name`; `undefined` when it has none or no such tool is registered. */
  requiredScopesOf(name: string): readonly string[] | undefined {
    return this.#tools.get(name)?.requiredScopes;
  }

  /** `tools/call`. */
  async call(params: unknown, context: FeatureRequestContext): Promise<unknown> {
    const name = isPlainObject(params) ? params.name : undefined;
    if (typeof name !== "string") {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        "Invalid params: name must be a string (the tool to call)",
      );
    }
    const tool = this.#tools.get(name);
    if (!tool) throw new JsonRpcError(ErrorCodes.InvalidParams, `Unknown tool: ${name}`, { name });
    const given = (params as Record<string, unknown>).arguments;
    if (given !== undefined && !isPlainObject(given)) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        `Invalid params: arguments of tool ${name} must be an object`,
      );
    }
    let args: unknown = given ?? {};
    if (tool.input) {
      const check = await tool.input.validate(args);
      if (!check.valid) return failure(`Invalid arguments for tool ${name}: ${describeIssues(check.errors)}`);
      args = check.value;
    }
    const asTask = taskModeOf(name, tool.task, context);
    if (asTask) {
      return callAsTask(this.options.tasks!(), {
        name,
        args,
        params: params as Record<string, unknown>,
        context,
        settings: tool.task,
        ctx: new TaskHandlerContext(context, params, this.levels),
        handler: tool.handler,
        finish: (value) => this.#finishResult(name, tool, value),
      });
    }
    let result: ToolResult | string;
    try {
      result = await tool.handler(args, this.handlerContext(context, params));
    } catch (error) {
      if (error instanceof JsonRpcError) throw error;
      return failure(error instanceof Error ? error.message : String(error));
    }
    return this.#finishResult(name, tool, result);
  }

  /** A handler's value as the call's result: normalized, its structured content checked. */
  async #finishResult(name: string, tool: Entry, result: ToolResult | string): Promise<ToolResult> {
    const normalized = normalize(result);
    if (
      tool.output && normalized.isError !== true &&
      (normalized.resultType === undefined || normalized.resultType === "complete")
    ) {
      await checkOutput(name, tool.output, normalized);
    }
    return normalized;
  }

  /**
   * The work that runs a safe-to-repeat task again on this replica after its worker was lost: the
   * tool's handler from the start, with the call's arguments, as the task. `undefined` when the tool
   * is not registered here or not safe to repeat.
   */
  resume(record: TaskRecord, _engine: TaskEngine): TaskWork | undefined {
    const rerun = record.rerun;
    const tool = rerun === undefined ? undefined : this.#tools.get(rerun.tool);
    if (rerun === undefined || tool === undefined || !tool.task.safeToRepeat) return undefined;
    const params = rerun.params;
    const context = detachedRequestContext(rerun.clientCapabilities, `task:${record.taskId}`);
    const ctx = new TaskHandlerContext(context, params, this.levels);
    return async (run) => {
      ctx.detach(run);
      let args: unknown = isPlainObject(params.arguments) ? params.arguments : {};
      if (tool.input) {
        const check = await tool.input.validate(args);
        if (!check.valid) {
          return {
            status: "completed",
            result: failure(`Invalid arguments for tool ${rerun.tool}: ${describeIssues(check.errors)}`),
          };
        }
        args = check.value;
      }
      try {
        const value = await tool.handler(args, ctx);
        return { status: "completed", result: await this.#finishResult(rerun.tool, tool, value) };
      } catch (error) {
        return outcomeOfError(error);
      }
    };
  }

  protected override changed(): void {
    this.#listed = undefined;
    super.changed();
  }
}

function compile(
  schema: ToolSchemaInput,
  role: "input" | "output",
  validator: SchemaValidator | undefined,
): ToolSchema<unknown> {
  if (isReadySchema(schema)) return schema;
  return toolSchema(schema as JsonSchema, { role, validator }) as ToolSchema<unknown>;
}

function isReadySchema(schema: ToolSchemaInput): schema is ToolSchema<unknown> {
  return typeof schema === "object" && schema !== null && !("~standard" in schema) &&
    typeof (schema as { validate?: unknown }).validate === "function" &&
    isPlainObject((schema as { jsonSchema?: unknown }).jsonSchema);
}

/** An `isError` tool result with one text block. */
export function failure(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function normalize(result: ToolResult | string): ToolResult {
  if (typeof result === "string") return { content: [{ type: "text", text: result }] };
  if (!isPlainObject(result)) return { content: [] };
  if (result.content !== undefined || (result.resultType !== undefined && result.resultType !== "complete")) {
    return result;
  }
  // Structured content also goes out as text, for clients that read only `content` (the spec's SHOULD).
  const content: ContentBlock[] = result.structuredContent === undefined
    ? []
    : [{ type: "text", text: JSON.stringify(result.structuredContent) }];
  return { ...result, content };
}

async function checkOutput(name: string, output: ToolSchema<unknown>, result: ToolResult): Promise<void> {
  if (result.structuredContent === undefined) {
    throw new JsonRpcError(
      ErrorCodes.InternalError,
      `Tool ${name} declares an output schema but returned no structuredContent`,
    );
  }
  const check = await output.validate(result.structuredContent);
  if (!check.valid) {
    throw new JsonRpcError(
      ErrorCodes.InternalError,
      `Tool ${name} returned structuredContent that does not match its output schema: ${
        describeIssues(check.errors)
      }`,
    );
  }
}
