/**
 * The record transitions of `TaskEngine`: pure functions from the stored task to the next
 * one, applied inside `TaskStore.update`. `undefined` means "leave the task as it is".
 * @module
 */
import { ErrorCodes } from "../wire/errors.ts";
import { isTerminal, type TaskOutcome, type TaskRecord, type TaskRerun } from "./task_record.ts";

/** What the transitions read of their engine (`TaskEngine` fits). Declared here so this module need not import it. */
export interface TransitionSettings {
  /** The replica that owns the leases it takes. */
  readonly replicaId: string;
  /** How long a lease lasts, in milliseconds. */
  readonly leaseMs: number;
  /** The `ttlMs` of new tasks; `null` for unlimited. */
  readonly ttlMs: number | null;
  /** The `pollIntervalMs` suggested to clients. */
  readonly pollIntervalMs: number;
}

/** The error of a task whose replica stopped renewing its lease. */
export const WORKER_LOST_CODE = ErrorCodes.InternalError;

/** A new task, `working` on `engine`'s replica (its first attempt), with `rerun` when safe to repeat. */
export function createdTask(
  engine: TransitionSettings,
  rerun: TaskRerun | undefined,
  now: number,
): TaskRecord {
  const record: TaskRecord = {
    taskId: crypto.randomUUID(),
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: engine.ttlMs,
    pollIntervalMs: engine.pollIntervalMs,
    owner: engine.replicaId,
    leaseExpiresAt: now + engine.leaseMs,
    attempt: 1,
  };
  if (rerun !== undefined) record.rerun = rerun;
  return record;
}

/** Whether `record` is still running on replica `replicaId` (not finished, not taken over). */
export function runBy(record: TaskRecord, replicaId: string): boolean {
  return !isTerminal(record.status) && record.owner === replicaId;
}

/** Whether `current` still runs on `lostOwner` with a lease that ran out before `now`. */
export function leaseRanOut(current: TaskRecord, lostOwner: string | undefined, now: number): boolean {
  return !isTerminal(current.status) && current.owner === lostOwner &&
    current.leaseExpiresAt !== undefined && now > current.leaseExpiresAt;
}

/** The outcome of work that threw `error`. */
export function failureOf(error: unknown): TaskOutcome {
  return {
    status: "failed",
    error: {
      code: ErrorCodes.InternalError,
      message: error instanceof Error ? error.message : String(error),
    },
  };
}

/** `current` with progress `message`, or `undefined` when finished or unchanged. */
export function withStatusMessage(current: TaskRecord, message: string, now: number): TaskRecord | undefined {
  if (isTerminal(current.status) || current.statusMessage === message) return undefined;
  return { ...current, statusMessage: message, lastUpdatedAt: now };
}

/** The terminal record of `current` with `outcome`. */
export function finished(
  current: TaskRecord,
  outcome: TaskOutcome | { status: "cancelled"; statusMessage: string },
  now: number,
): TaskRecord {
  const next: TaskRecord = { ...current, status: outcome.status, lastUpdatedAt: now };
  delete next.owner;
  delete next.leaseExpiresAt;
  delete next.inputRequests;
  delete next.inputResponses;
  if (outcome.status === "completed") next.result = outcome.result;
  else if (outcome.status === "failed") next.error = outcome.error;
  else next.statusMessage = outcome.statusMessage;
  return next;
}

/**
 * `current` with the outstanding input requests among `responses` answered, or `undefined` when
 * none of them is outstanding. The task goes back to `working` once no request is left.
 */
export function answered(
  current: TaskRecord,
  responses: Record<string, unknown>,
  now: number,
): TaskRecord | undefined {
  if (isTerminal(current.status) || current.inputRequests === undefined) return undefined;
  const requests = { ...current.inputRequests };
  const answers = { ...current.inputResponses };
  const settled = new Set(current.settledKeys);
  let changed = false;
  for (const [key, value] of Object.entries(responses)) {
    if (!Object.hasOwn(requests, key)) continue;
    delete requests[key];
    answers[key] = value;
    settled.add(key);
    changed = true;
  }
  if (!changed) return undefined;
  const next: TaskRecord = {
    ...current,
    inputResponses: answers,
    settledKeys: [...settled],
    lastUpdatedAt: now,
  };
  if (Object.keys(requests).length === 0) {
    delete next.inputRequests;
    if (next.status === "input_required") next.status = "working";
  } else next.inputRequests = requests;
  return next;
}

/** `current` waiting for the answer to `request` under `key` (status `input_required`). */
export function awaitingInput(
  current: TaskRecord,
  key: string,
  request: Record<string, unknown>,
  now: number,
): TaskRecord {
  return {
    ...current,
    status: "input_required",
    inputRequests: { ...current.inputRequests, [key]: request },
    lastUpdatedAt: now,
  };
}

/** `current` without the answers under `taken` (delivered to the waiting work). */
export function withoutResponses(current: TaskRecord, taken: readonly string[]): TaskRecord | undefined {
  if (current.inputResponses === undefined) return undefined;
  const rest = { ...current.inputResponses };
  for (const key of taken) delete rest[key];
  const next: TaskRecord = { ...current, inputResponses: rest };
  if (Object.keys(rest).length === 0) delete next.inputResponses;
  return next;
}

/** `current` claimed by `engine`'s replica for its next attempt after its worker was lost. */
export function restartedAfterLoss(
  current: TaskRecord,
  engine: Pick<TransitionSettings, "replicaId" | "leaseMs">,
  now: number,
): TaskRecord {
  const restarted: TaskRecord = {
    ...current,
    status: "working",
    statusMessage: `Restarted on another replica after its worker was lost (attempt ${current.attempt + 1})`,
    owner: engine.replicaId,
    leaseExpiresAt: now + engine.leaseMs,
    attempt: current.attempt + 1,
    lastUpdatedAt: now,
  };
  delete restarted.inputRequests;
  delete restarted.inputResponses;
  return restarted;
}

/** `current` failed because its replica stopped renewing a lease of `leaseMs`. */
export function failedAfterLoss(current: TaskRecord, leaseMs: number, now: number): TaskRecord {
  return finished(current, {
    status: "failed",
    error: {
      code: WORKER_LOST_CODE,
      message: `Task worker lost: replica ${
        current.owner ?? "(unknown)"
      } stopped renewing its lease (${leaseMs} ms) before the task finished`,
      data: { reason: "worker_lost", replica: current.owner, attempts: current.attempt },
    },
  }, now);
}
