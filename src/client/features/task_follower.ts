/**
 * `followTask`: the client side of the tasks extension (SEP-2663). Polls `tasks/get` at the server's
 * `pollIntervalMs` (on the client's `TimeProvider`), answers `inputRequests` with the same handlers as
 * input rounds (`onElicit`, `onSample`, roots) through `tasks/update`, resolves with the final result,
 * and cancels the task (`tasks/cancel`) when the caller aborts.
 * @module
 */
import { CancelledError, JsonRpcError, ProtocolError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import { delay } from "../../stream/time_kit.ts";
import { InputRequiredError } from "./feature_errors.ts";
import type { FeatureHost } from "./feature_host.ts";

/** A task as `tasks/get` and `notifications/tasks` show it (SEP-2663 `DetailedTask`). */
export interface ClientTask {
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, { method: string; params?: unknown }>;
}

/** Options of {@linkcode followTask}. */
export interface FollowTaskOptions {
  /** Aborting stops following and sends `tasks/cancel` (best effort); rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with the task after every `tasks/get` (status, `statusMessage` as progress). */
  onTaskStatus?: (task: ClientTask) => void;
  /**
   * The wait before the first poll and whenever the server gives none, in ms. Default 1000.
   * @default 1000
   */
  pollIntervalMs?: number;
  /**
   * The shortest wait between polls whatever the server says, in ms. Default 10.
   * @default 10
   */
  minPollIntervalMs?: number;
}

/** Reads a `tasks/get` result; throws `ProtocolError` for one that is not a task. */
export function readTask(value: unknown, method = "tasks/get"): ClientTask {
  if (
    !isPlainObject(value) || typeof value.taskId !== "string" || typeof value.status !== "string" ||
    !["working", "input_required", "completed", "failed", "cancelled"].includes(value.status)
  ) {
    throw new ProtocolError(`The server answered ${method} with something that is not a task`);
  }
  return value as unknown as ClientTask;
}

/**
 * Follows task `taskId` until it ends: resolves with its `result` (`completed`), rejects with its
 * `JsonRpcError` (`failed`), a `CancelledError` (`cancelled`), an `InputRequiredError` when an input
 * request has no handler here (the task is cancelled first), or the signal's reason.
 */
export async function followTask(
  host: FeatureHost,
  taskId: string,
  options: FollowTaskOptions = {},
): Promise<Record<string, unknown>> {
  const { signal } = options;
  const minimum = options.minPollIntervalMs ?? 10;
  let interval = Math.max(minimum, options.pollIntervalMs ?? 1000);
  const answered = new Set<string>();
  const cancel = (): void => {
    host.request("tasks/cancel", { taskId }, {}).catch(() => {});
  };
  try {
    for (;;) {
      await delay(host.time, interval, signal);
      const task = readTask(await host.request("tasks/get", { taskId }, { signal }));
      if (typeof task.pollIntervalMs === "number" && Number.isFinite(task.pollIntervalMs)) {
        interval = Math.max(minimum, task.pollIntervalMs);
      }
      options.onTaskStatus?.(task);
      switch (task.status) {
        case "completed":
          return task.result ?? {};
        case "failed":
          throw new JsonRpcError(
            task.error?.code ?? -32603,
            task.error?.message ?? `Task ${taskId} failed`,
            task.error?.data,
          );
        case "cancelled":
          throw new CancelledError(
            `Task ${taskId} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
          );
        case "input_required": {
          const responses = await answerInputs(host, task, answered, signal);
          if (Object.keys(responses).length > 0) {
            await host.request("tasks/update", { taskId, inputResponses: responses }, { signal });
            interval = minimum; // look again soon: the task moves on now
          }
          break;
        }
      }
    }
  } catch (error) {
    if (signal?.aborted || error instanceof InputRequiredError) cancel();
    throw error;
  }
}

async function answerInputs(
  host: FeatureHost,
  task: ClientTask,
  answered: Set<string>,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  const pending = Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key));
  const never = new AbortController().signal;
  const answers = await Promise.all(pending.map(([key, request]) => {
    const method = isPlainObject(request) && typeof request.method === "string" ? request.method : "";
    const answer = host.answerInputRequest?.(method, request?.params, { key, signal: signal ?? never });
    if (answer === undefined) {
      throw new InputRequiredError(
        "tools/call",
        task,
        `no handler for input request ${JSON.stringify(key)} (${
          JSON.stringify(method)
        }) of task ${task.taskId}`,
      );
    }
    return answer.then((value) => [key, value] as const);
  }));
  for (const [key] of answers) answered.add(key);
  return Object.fromEntries(answers);
}
