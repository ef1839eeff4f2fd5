/**
 * The errors of the tasks extension, as JSON-RPC errors (they reach the client as error replies).
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../wire/errors.ts";
import { TASKS_EXTENSION } from "./task_record.ts";

/** A task store at its bound of tasks that are still running: the request cannot become a task (-32603). */
export class TaskStoreFullError extends JsonRpcError {
  constructor(maxTasks: number) {
    super(
      ErrorCodes.InternalError,
      `Task store full: ${maxTasks} tasks are running (option maxTasks); try again later`,
      { reason: "task_store_full", maxTasks },
    );
  }
}

/** -32602 for a `taskId` the server does not know (never issued, expired, or another store's). */
export function unknownTaskError(taskId: unknown): JsonRpcError {
  return new JsonRpcError(
    ErrorCodes.InvalidParams,
    `Unknown task: ${JSON.stringify(typeof taskId === "string" ? taskId.slice(0, 200) : taskId)}`,
    { taskId },
  );
}

/** -32021: the request needs the tasks extension in its client capabilities. */
export function missingTasksCapabilityError(what: string): JsonRpcError {
  return new JsonRpcError(
    ErrorCodes.MissingRequiredClientCapability,
    `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension in this request's client capabilities`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}
