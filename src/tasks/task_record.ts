/**
 * The task of the `io.modelcontextprotocol/tasks` extension (SEP-2663) as a store keeps it, and its
 * wire shapes: the `CreateTaskResult` a `tools/call` answers and the `DetailedTask` of `tasks/get`
 * and `notifications/tasks`.
 * @module
 */

/** The extension's identifier, under `capabilities.extensions` on both sides. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** A task's status; `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The JSON-RPC error of a `failed` task. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** How a task's work ended. */
export type TaskOutcome =
  | { status: "completed"; result: Record<string, unknown> }
  | { status: "failed"; error: TaskError };

/** What a tool that is safe to repeat needs to run again on another replica when its worker is lost. */
export interface TaskRerun {
  /** The tool's name. */
  tool: string;
  /** The `tools/call` params (arguments and `_meta`), as the client sent them. */
  params: Record<string, unknown>;
  /** The client capabilities of the creating request. */
  clientCapabilities: Record<string, unknown>;
  /** Runs allowed in all, the first included. */
  maxAttempts: number;
}

/**
 * One task as a {@linkcode TaskStore} keeps it. Times are wall-clock milliseconds since the epoch
 * (replicas compare them). Plain JSON: a store may serialise it.
 */
export interface TaskRecord {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: number;
  lastUpdatedAt: number;
  /** Life from `createdAt`; `null` for unlimited. The store forgets the task after it. */
  ttlMs: number | null;
  pollIntervalMs: number;
  /** `completed`: what the request would have returned. */
  result?: Record<string, unknown>;
  /** `failed`: the JSON-RPC error. */
  error?: TaskError;
  /** Outstanding server-to-client requests, by key (status `input_required` while any). */
  inputRequests?: Record<string, Record<string, unknown>>;
  /** Answers given through `tasks/update` that the worker has not taken yet, by key. */
  inputResponses?: Record<string, unknown>;
  /** Input keys answered or withdrawn: never asked again, later answers ignored. */
  settledKeys?: string[];
  /** The replica running the task, while it runs. */
  owner?: string;
  /** Until when the owner's lease holds (wall clock). A running task past it has lost its worker. */
  leaseExpiresAt?: number;
  /** Runs so far (1 for the first). */
  attempt: number;
  /** Present when the tool is safe to repeat. */
  rerun?: TaskRerun;
}

/** The `Task` fields every wire shape carries. */
export interface WireTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/** `Task` plus, by status, `result`, `error` or `inputRequests` (SEP-2663 `DetailedTask`). */
export interface DetailedTask extends WireTask {
  result?: Record<string, unknown>;
  error?: TaskError;
  inputRequests?: Record<string, Record<string, unknown>>;
}

/** True for `completed`, `failed` and `cancelled`. */
export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

function baseOf(record: TaskRecord): WireTask {
  const task: WireTask = {
    taskId: record.taskId,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  return task;
}

/** The `CreateTaskResult` of a request answered with a task: `resultType: "task"` and the `Task` fields, nothing else. */
export function createTaskResultOf(record: TaskRecord): WireTask & { resultType: "task" } {
  return { resultType: "task", ...baseOf(record) };
}

/** The `DetailedTask` of `tasks/get` and `notifications/tasks`: the fields its status calls for, never the store's internals. */
export function detailedTaskOf(record: TaskRecord): DetailedTask {
  const task: DetailedTask = baseOf(record);
  if (record.status === "completed" && record.result !== undefined) task.result = record.result;
  if (record.status === "failed" && record.error !== undefined) task.error = record.error;
  if (record.status === "input_required") task.inputRequests = record.inputRequests ?? {};
  return task;
}
