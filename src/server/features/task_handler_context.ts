/**
 * `TaskHandlerContext`: the `ctx` of a tool handler whose call became a task. Until the task exists it
 * is the request's context; from then on the same object routes asks to the task's `inputRequests`,
 * progress to its `statusMessage`, and `signal` to its cancellation.
 * @module
 */
import { ProtocolError } from "../../wire/errors.ts";
import type { LoggingLevel } from "../../wire/meta_envelope.ts";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitResult,
  ListRootsResult,
} from "../../wire/protocol/v2026_07_28.ts";
import type { ElicitParams } from "../input/elicit_params.ts";
import type { TaskRun } from "../../tasks/task_engine.ts";
import {
  type InputMethod,
  invalidAnswer,
  missingCapabilities,
  missingCapabilityError,
} from "../input/input_capabilities.ts";
import type { InputCallOptions } from "../input/input_rounds.ts";
import { RequestHandlerContext } from "./handler_context.ts";
import { type SendProgressOptions, sendProgressOptionsOf } from "../send_progress_options.ts";

const NEVER_ABORTED = new AbortController().signal;

/** A handler context that becomes a task's context when {@linkcode TaskHandlerContext.detach} is called. */
export class TaskHandlerContext extends RequestHandlerContext {
  #run: TaskRun | undefined;
  #asks = 0;
  /** Set by the tool registry for `taskStart: "manual"` calls that may become tasks. */
  startTask: (() => Promise<void>) | undefined;

  /** From now on, this context is the task's. */
  detach(run: TaskRun): void {
    this.#run = run;
  }

  override runAsTask(): Promise<void> {
    if (this.#run !== undefined || this.startTask === undefined) return Promise.resolve();
    return this.startTask();
  }

  override get taskId(): string | undefined {
    return this.#run?.taskId;
  }

  override get signal(): AbortSignal {
    return this.#run?.signal ?? super.signal;
  }

  override get roundSignal(): AbortSignal {
    return this.#run === undefined ? super.roundSignal : NEVER_ABORTED;
  }

  override elicit(params: ElicitParams, options?: InputCallOptions): Promise<ElicitResult> {
    if (this.#run === undefined) return super.elicit(params, options);
    return this.#ask("elicitation/create", "elicit", params, options) as Promise<ElicitResult>;
  }

  override sample(
    params: CreateMessageRequestParams,
    options?: InputCallOptions,
  ): Promise<CreateMessageResult> {
    if (this.#run === undefined) return super.sample(params, options);
    return this.#ask("sampling/createMessage", "sample", params, options) as Promise<CreateMessageResult>;
  }

  override listRoots(options?: InputCallOptions): Promise<ListRootsResult> {
    if (this.#run === undefined) return super.listRoots(options);
    return this.#ask("roots/list", "roots", undefined, options) as Promise<ListRootsResult>;
  }

  /** In a task: sets the task's `statusMessage` to `message` (or `progress/total`). */
  override sendProgress(progress: number, options?: SendProgressOptions): Promise<void> {
    if (this.#run === undefined) return super.sendProgress(progress, options);
    let total: number | undefined, message: string | undefined;
    try {
      ({ total, message } = sendProgressOptionsOf(options));
    } catch (error) {
      return Promise.reject(error);
    }
    const text = message ?? (total === undefined ? `${progress}` : `${progress}/${total}`);
    return this.#run.setStatusMessage(text);
  }

  /** In a task: nothing is sent (SEP-2663: no `notifications/message` for tasks). */
  override log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (this.#run === undefined) return super.log(level, data, logger);
    return Promise.resolve();
  }

  async #ask(
    method: InputMethod,
    kind: string,
    params: unknown,
    options: InputCallOptions | undefined,
  ): Promise<unknown> {
    const run = this.#run!;
    const index = this.#asks++;
    const required = missingCapabilities(method, params, this.clientCapabilities);
    if (required !== undefined) throw missingCapabilityError(method, required);
    const key = options?.key ?? `${kind}-${run.attempt}-${index}`;
    const request: Record<string, unknown> = { method };
    if (params !== undefined) request.params = params;
    const answer = await run.requestInput(key, request);
    const wrong = invalidAnswer(method, answer);
    if (wrong !== undefined) {
      throw new ProtocolError(`The client answered ${method} with an invalid result: ${wrong}`);
    }
    return answer;
  }
}
