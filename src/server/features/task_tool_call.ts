/**
 * A `tools/call` that becomes a task: the tool's task settings, whether a request may become a task,
 * and the run of its handler as the task's work.
 * @module
 */
import { InvalidOptionError, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { Capabilities } from "../../wire/protocol_versions.ts";
import type { TaskEngine, TaskOutcome } from "../../tasks/task_engine.ts";
import { createTaskResultOf, type TaskRecord, TASKS_EXTENSION } from "../../tasks/task_record.ts";
import { missingTasksCapabilityError } from "../../tasks/task_errors.ts";
import type { FeatureRequestContext } from "./feature_host.ts";
import { supportsElicitation } from "../input/input_capabilities.ts";
import type { TaskHandlerContext } from "./task_handler_context.ts";
import type { ToolHandler, ToolResult } from "./tool_handler.ts";

/** A tool's `taskSupport`. */
export type TaskSupport = "forbidden" | "optional" | "required";

/**
 * The task fields of a tool's config, as {@linkcode taskSettingsOf} reads them (`ToolConfig` fits;
 * see it for their meaning). Declared here so this module need not import the registry that calls it.
 */
export interface ToolTaskConfig {
  taskSupport?: TaskSupport;
  taskStart?: "immediate" | "manual";
  safeToRepeat?: boolean;
}

/** A tool's task settings, checked. */
export interface TaskToolSettings {
  readonly support: TaskSupport;
  readonly start: "immediate" | "manual";
  readonly safeToRepeat: boolean;
}

const SUPPORT: readonly string[] = ["forbidden", "optional", "required"];

/** The task settings of tool `name` from its config; throws `InvalidOptionError` for a bad value. */
export function taskSettingsOf(
  name: string,
  config: ToolTaskConfig,
): TaskToolSettings {
  const { taskSupport = "forbidden", taskStart = "immediate", safeToRepeat = false } = config;
  if (!SUPPORT.includes(taskSupport)) {
    throw new InvalidOptionError(
      `Tool ${name} option taskSupport must be "forbidden", "optional" or "required", got ${
        JSON.stringify(taskSupport)
      }`,
    );
  }
  if (taskStart !== "immediate" && taskStart !== "manual") {
    throw new InvalidOptionError(
      `Tool ${name} option taskStart must be "immediate" or "manual", got ${JSON.stringify(taskStart)}`,
    );
  }
  if (typeof safeToRepeat !== "boolean") {
    throw new InvalidOptionError(
      `Tool ${name} option safeToRepeat must be a boolean, got ${typeof safeToRepeat}`,
    );
  }
  return { support: taskSupport, start: taskStart, safeToRepeat };
}

/** True when `capabilities` (a request's client capabilities) declare the tasks extension. */
export function declaresTasks(capabilities: Capabilities): boolean {
  const extensions = capabilities.extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
}

/**
 * Whether this call of tool `name` runs as a task: a modern request whose client declares the
 * extension, to a tool with task support. A `"required"` tool called without it is -32021; the legacy
 * era is always synchronous.
 */
export function taskModeOf(
  name: string,
  settings: TaskToolSettings,
  context: FeatureRequestContext,
): boolean {
  if (settings.support === "forbidden" || context.era !== "modern") return false;
  if (declaresTasks(context.clientCapabilities)) return true;
  if (settings.support === "required") throw missingTasksCapabilityError(`Tool ${name}`);
  return false;
}

/** One call that runs as a task. */
export interface TaskToolCall {
  name: string;
  args: unknown;
  params: Record<string, unknown>;
  context: FeatureRequestContext;
  ctx: TaskHandlerContext;
  settings: TaskToolSettings;
  handler: ToolHandler<unknown>;
  /** Normalizes the handler's value and checks it (output schema); throws a `JsonRpcError` when it fails. */
  finish(value: ToolResult | string): Promise<ToolResult>;
}

/**
 * Runs `call` as a task on `engine` and resolves with the `CreateTaskResult` once the task is in the
 * store; with `taskStart: "manual"`, a handler that returns before `ctx.runAsTask()` answers
 * synchronously instead.
 */
export async function callAsTask(engine: TaskEngine, call: TaskToolCall): Promise<unknown> {
  const { ctx } = call;
  const init = {
    rerun: call.settings.safeToRepeat
      ? {
        tool: call.name,
        params: call.params,
        clientCapabilities: call.context.clientCapabilities as Record<string, unknown>,
        maxAttempts: engine.maxAttempts,
      }
      : undefined,
  };
  const settle = (value: ToolResult | string): Promise<TaskOutcome> =>
    call.finish(value).then((result) => ({ status: "completed", result }), outcomeOfError);
  if (call.settings.start === "immediate") {
    const record = await engine.start(init, (run) => {
      ctx.detach(run);
      return Promise.resolve().then(() => call.handler(call.args, ctx)).then(settle, outcomeOfError);
    });
    return createTaskResultOf(record);
  }
  let deliver!: (outcome: Promise<TaskOutcome>) => void;
  const outcome = new Promise<TaskOutcome>((resolve) => (deliver = resolve));
  let created: Promise<TaskRecord> | undefined;
  let announce!: (record: Promise<TaskRecord>) => void;
  const started = new Promise<TaskRecord>((resolve) => (announce = resolve));
  ctx.startTask = () => {
    if (created === undefined) {
      created = engine.start(init, (run) => {
        ctx.detach(run);
        return outcome;
      });
      announce(created);
    }
    return created.then(() => undefined);
  };
  type Settled = { kind: "value"; value: ToolResult | string } | { kind: "error"; error: unknown };
  const handled: Promise<Settled> = Promise.resolve().then(() => call.handler(call.args, ctx)).then(
    (value) => ({ kind: "value", value }),
    (error: unknown) => ({ kind: "error", error }),
  );
  const first = await Promise.race([
    handled,
    // A task that could not be created is the handler's to deal with (runAsTask rejected into it).
    started.then((record) => ({ kind: "task" as const, record }), () => new Promise<never>(() => {})),
  ]);
  const asOutcome = (settled: Settled): Promise<TaskOutcome> =>
    settled.kind === "value" ? settle(settled.value) : outcomeOfError(settled.error);
  const record = first.kind === "task" ? first.record : await created?.catch(() => undefined);
  if (record !== undefined) {
    deliver(handled.then(asOutcome));
    return createTaskResultOf(record);
  }
  if (first.kind === "error") {
    if (first.error instanceof JsonRpcError) throw first.error;
    return failureResult(first.error);
  }
  return first.kind === "value" ? call.finish(first.value) : failureResult(undefined);
}

/** A handler's exception as a task outcome: a `JsonRpcError` fails the task; any other is an `isError` result. */
export function outcomeOfError(error: unknown): Promise<TaskOutcome> {
  if (error instanceof JsonRpcError) {
    const failed: TaskOutcome = {
      status: "failed",
      error: error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data },
    };
    return Promise.resolve(failed);
  }
  return Promise.resolve({ status: "completed", result: failureResult(error) as Record<string, unknown> });
}

function failureResult(error: unknown): ToolResult {
  return {
    content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }],
    isError: true,
  };
}

/**
 * The request context of a task run again on another replica: no request is in flight, so asks,
 * progress and the signal are the task's (the handler context is detached before the handler runs).
 */
export function detachedRequestContext(
  clientCapabilities: Capabilities,
  requestId: string,
): FeatureRequestContext {
  const notRouted = (): Promise<never> =>
    Promise.reject(new TypeError("A resumed task asks through its task context"));
  const once = new Map<string, unknown>();
  return {
    era: "modern",
    protocolVersion: "2026-07-28",
    clientInfo: undefined,
    clientCapabilities,
    logLevel: undefined,
    requestId,
    signal: new AbortController().signal,
    sendProgress: () => Promise.resolve(),
    notify: () => Promise.resolve(),
    elicit: notRouted,
    sample: notRouted,
    listRoots: notRouted,
    canElicit: (mode = "form") => supportsElicitation(clientCapabilities, mode),
    canSample: () => isPlainObject(clientCapabilities.sampling),
    canListRoots: () => isPlainObject(clientCapabilities.roots),
    round: 0,
    state: undefined,
    async once<T>(name: string, compute: () => T | Promise<T>): Promise<T> {
      if (!once.has(name)) once.set(name, await compute());
      return once.get(name) as T;
    },
    roundSignal: new AbortController().signal,
  };
}
