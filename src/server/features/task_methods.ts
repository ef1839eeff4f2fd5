/**
 * `TaskMethods`: `tasks/get`, `tasks/update` and `tasks/cancel` of the `io.modelcontextprotocol/tasks`
 * extension (2026-07-28), over a {@linkcode TaskEngine}. Each needs the extension in the request's
 * client capabilities (-32021 otherwise); in the legacy era they do not exist (-32601), since this
 * library keeps legacy tools synchronous.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { TaskEngine } from "../../tasks/task_engine.ts";
import { detailedTaskOf } from "../../tasks/task_record.ts";
import { missingTasksCapabilityError, unknownTaskError } from "../../tasks/task_errors.ts";
import { type InputMethod, invalidAnswer } from "../input/input_capabilities.ts";
import type { FeatureRequestContext } from "./feature_host.ts";
import { declaresTasks } from "./task_tool_call.ts";

/** Most `inputResponses` one `tasks/update` may carry. */
const MAX_RESPONSES = 256;

/** The three task methods, for one engine. */
export class TaskMethods {
  readonly #engine: () => TaskEngine;

  constructor(engine: () => TaskEngine) {
    this.#engine = engine;
  }

  /** `tasks/get`: the `DetailedTask`, or -32602 for an unknown id. */
  async get(params: unknown, context: FeatureRequestContext): Promise<Record<string, unknown>> {
    const taskId = taskIdOf("tasks/get", params, context);
    const record = await this.#engine().get(taskId);
    if (record === undefined) throw unknownTaskError(taskId);
    return detailedTaskOf(record) as unknown as Record<string, unknown>;
  }

  /** `tasks/update`: answers outstanding input requests (unknown or settled keys are ignored); an empty ack. */
  async update(params: unknown, context: FeatureRequestContext): Promise<Record<string, unknown>> {
    const taskId = taskIdOf("tasks/update", params, context);
    const responses = (params as Record<string, unknown>).inputResponses;
    if (!isPlainObject(responses)) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        "Invalid params: inputResponses must be an object keyed by the task's inputRequests keys",
      );
    }
    if (Object.keys(responses).length > MAX_RESPONSES) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        `Invalid params: inputResponses holds more than ${MAX_RESPONSES} answers`,
      );
    }
    const engine = this.#engine();
    const record = await engine.get(taskId);
    if (record === undefined) throw unknownTaskError(taskId);
    for (const [key, answer] of Object.entries(responses)) {
      const request = record.inputRequests?.[key];
      if (request === undefined) continue;
      const wrong = invalidAnswer(request.method as InputMethod, answer);
      if (wrong !== undefined) {
        throw new JsonRpcError(
          ErrorCodes.InvalidParams,
          `Invalid inputResponses[${JSON.stringify(key)}] for ${String(request.method)}: ${wrong}`,
        );
      }
    }
    if (await engine.answer(taskId, responses) === undefined) throw unknownTaskError(taskId);
    return {};
  }

  /** `tasks/cancel`: cooperative; an empty ack, also for a task that already finished. */
  async cancel(params: unknown, context: FeatureRequestContext): Promise<Record<string, unknown>> {
    const taskId = taskIdOf("tasks/cancel", params, context);
    if (await this.#engine().cancel(taskId) === undefined) throw unknownTaskError(taskId);
    return {};
  }
}

function taskIdOf(method: string, params: unknown, context: FeatureRequestContext): string {
  if (context.era !== "modern") {
    throw new JsonRpcError(
      ErrorCodes.MethodNotFound,
      `Method not found: ${method} belongs to the 2026-07-28 tasks extension (legacy tools run synchronously here)`,
    );
  }
  if (!declaresTasks(context.clientCapabilities)) throw missingTasksCapabilityError(method);
  const taskId = isPlainObject(params) ? params.taskId : undefined;
  if (typeof taskId !== "string" || taskId.length === 0) {
    throw new JsonRpcError(ErrorCodes.InvalidParams, `Invalid params: taskId must be a non-empty string`);
  }
  return taskId;
}
