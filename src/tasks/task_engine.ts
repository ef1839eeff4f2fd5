/**
 * `TaskEngine`: runs the work of tasks on one replica over a shared {@linkcode TaskStore}: creation
 * (strongly consistent), leases, input requests answered through `tasks/update`, cooperative
 * cancellation, lost workers, and change events for `notifications/tasks`.
 * @module
 */
import { CancelledError, ClosedError } from "../wire/errors.ts";
import { integerOption } from "../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";
import { isTerminal, type TaskOutcome, type TaskRecord, type TaskRerun } from "./task_record.ts";
import type { TaskStore } from "./task_store.ts";
import { MemoryTaskStore } from "./memory_task_store.ts";
import { wallClockOf } from "./wall_clock.ts";
import { LocalTaskRun } from "./local_task_run.ts";
import { localEvents } from "./local_task_events.ts";
import type { TaskEvents } from "./task_events.ts";
import { notifyAll, TaskListeners } from "./task_listeners.ts";
import { reporterOf, ttlOption } from "./task_engine_options.ts";
import {
  answered,
  awaitingInput,
  createdTask,
  failedAfterLoss,
  failureOf,
  finished,
  leaseRanOut,
  restartedAfterLoss,
  runBy,
  withoutResponses,
  withStatusMessage,
} from "./task_transitions.ts";

export { WORKER_LOST_CODE } from "./task_transitions.ts";
export type { TaskEvents } from "./task_events.ts";
export type { TaskOutcome } from "./task_record.ts";

/** What the work of one task gets. */
export interface TaskRun {
  readonly taskId: string;
  /** Runs so far, this one included (a safe-to-repeat task may run again after its worker was lost). */
  readonly attempt: number;
  /** Aborted on `tasks/cancel` and when the engine closes. */
  readonly signal: AbortSignal;
  /**
   * Asks the client: adds `request` (`{ method, params }`) under `key` to the task's `inputRequests`
   * (status `input_required`) and resolves with the answer a `tasks/update` brings. Rejects when the
   * task is cancelled or `key` was used before in this task.
   */
  requestInput(key: string, request: Record<string, unknown>): Promise<unknown>;
  /** Sets the task's `statusMessage` (progress). */
  setStatusMessage(message: string): Promise<void>;
}

/** The work of one task. */
export type TaskWork = (run: TaskRun) => Promise<TaskOutcome>;

/** Options of {@linkcode TaskEngine}. */
export interface TaskEngineOptions {
  /**
   * Where tasks live.
   * @default a new `MemoryTaskStore` (this process only)
   */
  store?: TaskStore;
  /**
   * Change events between replicas sharing `store`.
   * @default within this engine only
   */
  events?: TaskEvents;
  /**
   * How long a running task's lease lasts, in ms; its replica renews it every third of that. A
   * running task whose lease ran out has lost its worker: the next `tasks/get` on any replica reports
   * it `failed` (or runs it again when it is safe to repeat).
   * @default 30_000
   */
  leaseMs?: number;
  /**
   * Runs allowed in all for a task of a tool that is safe to repeat, the first included.
   * @default 3
   */
  maxAttempts?: number;
  /**
   * `pollIntervalMs` suggested to clients.
   * @default 1000
   */
  pollIntervalMs?: number;
  /**
   * `ttlMs` of new tasks (from creation); `null` for unlimited.
   * @default 3_600_000 (one hour)
   */
  ttlMs?: number | null;
  /**
   * This replica's id (the owner of the tasks it runs).
   * @default a random UUID
   */
  replicaId?: string;
  /**
   * The clock of leases, TTLs and timestamps.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /** Failures that are nobody's exception (a lease that could not be renewed, a failed event). */
  onReport?: (error: Error) => void;
}

/** Resumes a safe-to-repeat task on this replica after its worker was lost. */
export type TaskResumer = (record: TaskRecord) => TaskWork | undefined;

/**
 * Runs tasks on this replica and answers for every task in the store.
 *
 * @example
 * ```ts
 * const engine = new TaskEngine({ leaseMs: 10_000 });
 * const task = await engine.start({}, async (run) => {
 *   await run.setStatusMessage("half way");
 *   return { status: "completed", result: { content: [] } };
 * });
 * console.log((await engine.get(task.taskId))?.status);
 * ```
 */
export class TaskEngine {
  readonly store: TaskStore;
  readonly replicaId: string;
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  readonly maxAttempts: number;
  readonly ttlMs: number | null;
  readonly #events: TaskEvents;
  readonly #time: TimeProvider;
  readonly #wall: () => number;
  readonly #report: (error: unknown) => void;
  readonly #running = new Map<string, LocalTaskRun>();
  readonly #listeners = new TaskListeners();
  readonly #unsubscribe: () => void;
  #resumer: TaskResumer | undefined;
  #closed = false;

  constructor(options: TaskEngineOptions = {}) {
    this.#time = options.timeProvider ?? systemTimeProvider;
    this.#wall = wallClockOf(this.#time);
    this.store = options.store ?? new MemoryTaskStore({ timeProvider: this.#time });
    this.leaseMs = integerOption("leaseMs", options.leaseMs, 30_000, 1);
    this.maxAttempts = integerOption("maxAttempts", options.maxAttempts, 3, 1);
    this.pollIntervalMs = integerOption("pollIntervalMs", options.pollIntervalMs, 1000, 1);
    this.ttlMs = ttlOption(options.ttlMs);
    this.replicaId = options.replicaId ?? crypto.randomUUID();
    this.#report = reporterOf(options.onReport);
    this.#events = options.events ?? localEvents();
    this.#unsubscribe = this.#events.subscribe((taskId) => this.#changed(taskId));
  }

  /** Tasks running on this replica now. */
  get runningCount(): number {
    return this.#running.size;
  }

  /** Sets how this replica resumes a safe-to-repeat task whose worker was lost (the server's tool registry). */
  setResumer(resumer: TaskResumer): void {
    this.#resumer = resumer;
  }

  /**
   * Creates a task (status `working`, owned by this replica), then calls `work` with its run and
   * resolves once the store holds the task. The record resolved is the task as created.
   */
  async start(init: { rerun?: TaskRerun }, work: TaskWork): Promise<TaskRecord> {
    if (this.#closed) throw new ClosedError("The task engine is closed: it starts no new tasks");
    const now = this.#wall();
    const record = createdTask(this, init.rerun, now);
    await this.store.create(record);
    this.#launch(record, work);
    return record;
  }

  /**
   * The task, or `undefined` when unknown or expired. A running task whose lease ran out (its replica
   * died) is failed here, or started again on this replica when it is safe to repeat.
   */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const record = await this.store.get(taskId);
    if (record === undefined || isTerminal(record.status) || this.#running.has(taskId)) return record;
    if (record.leaseExpiresAt === undefined || this.#wall() <= record.leaseExpiresAt) return record;
    return this.#recoverLost(record);
  }

  /**
   * `tasks/update`: answers outstanding input requests. Keys not outstanding are ignored; a partial
   * answer leaves the task `input_required` with the rest. Resolves `undefined` for an unknown task.
   */
  async answer(taskId: string, responses: Record<string, unknown>): Promise<TaskRecord | undefined> {
    const now = this.#wall();
    let changed = false;
    const record = await this.store.update(taskId, (current) => {
      const next = answered(current, responses, now);
      changed = next !== undefined;
      return next;
    });
    if (record !== undefined && changed) this.#publish(taskId);
    return record;
  }

  /**
   * `tasks/cancel`: a running task becomes `cancelled` at once and its work's signal aborts (the
   * work's later outcome is dropped); a finished task stays as it is. Resolves `undefined` for an
   * unknown task.
   */
  async cancel(taskId: string): Promise<TaskRecord | undefined> {
    const now = this.#wall();
    let changed = false;
    const record = await this.store.update(taskId, (current) => {
      changed = !isTerminal(current.status);
      if (!changed) return undefined;
      return finished(current, { status: "cancelled", statusMessage: "Cancelled by the client" }, now);
    });
    if (record !== undefined && changed) {
      this.#publish(taskId);
      this.#stopLocal(taskId, new CancelledError(`Task ${taskId} was cancelled by the client`));
    }
    return record;
  }

  /**
   * Calls `listener` with the task after each change of any task (this replica's or another's), or
   * only of the tasks `wants` accepts (the store is read only for those). Returns the remover.
   */
  onChange(listener: (record: TaskRecord) => void, wants?: (taskId: string) => boolean): () => void {
    return this.#listeners.add(listener, wants);
  }

  /** Stops renewing leases and aborts the work running here (its tasks are then lost to other replicas). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    for (const taskId of [...this.#running.keys()]) {
      this.#stopLocal(taskId, new ClosedError("The task engine closed"));
    }
  }

  #launch(record: TaskRecord, work: TaskWork): void {
    const local = new LocalTaskRun();
    const taskId = record.taskId;
    this.#running.set(taskId, local);
    this.#scheduleRenewal(taskId, local);
    const run: TaskRun = {
      taskId,
      attempt: record.attempt,
      signal: local.controller.signal,
      requestInput: (key, request) => this.#requestInput(taskId, local, key, request),
      setStatusMessage: async (message) => {
        const now = this.#wall();
        const next = await this.store.update(taskId, (current) => withStatusMessage(current, message, now));
        if (next !== undefined) this.#publish(taskId);
      },
    };
    // Called at once, so the work sees its run before `start` resolves (a handler's context switches first).
    let outcome: Promise<TaskOutcome>;
    try {
      outcome = work(run);
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome.then(
      (value) => this.#finish(taskId, value),
      (error: unknown) => this.#finish(taskId, failureOf(error)),
    );
  }

  async #finish(taskId: string, outcome: TaskOutcome): Promise<void> {
    const local = this.#running.get(taskId);
    if (local === undefined) return; // cancelled or closed: the outcome is dropped
    this.#forget(taskId, local);
    const now = this.#wall();
    try {
      const changed = await this.store.update(
        taskId,
        (current) => runBy(current, this.replicaId) ? finished(current, outcome, now) : undefined,
      );
      if (changed !== undefined) this.#publish(taskId);
    } catch (error) {
      this.#report(error);
    }
  }

  async #requestInput(
    taskId: string,
    local: LocalTaskRun,
    key: string,
    request: Record<string, unknown>,
  ): Promise<unknown> {
    const answer = local.awaitAnswer(key);
    const now = this.#wall();
    let reused = false;
    const record = await this.store.update(taskId, (current) => {
      reused = current.settledKeys?.includes(key) ?? false;
      if (isTerminal(current.status) || reused) return undefined;
      return awaitingInput(current, key, request, now);
    });
    if (reused) {
      local.dropWait(key);
      throw new TypeError(`Input key ${JSON.stringify(key)} was answered before in this task`);
    }
    if (record !== undefined && !isTerminal(record.status)) this.#publish(taskId);
    return answer;
  }

  /** A change event: deliver answers to this replica's waiting work, then tell the listeners. */
  #changed(taskId: string): void {
    const local = this.#running.get(taskId);
    const listeners = this.#listeners.wanting(taskId);
    const wanted = (local !== undefined && local.waiting) || listeners.length > 0;
    if (!wanted) return;
    this.store.get(taskId).then((record) => {
      if (record === undefined) return;
      if (local !== undefined && this.#running.get(taskId) === local) this.#deliver(taskId, local, record);
      notifyAll(listeners, record, this.#report);
    }, (error: unknown) => this.#report(error));
  }

  #deliver(taskId: string, local: LocalTaskRun, record: TaskRecord): void {
    const taken = local.deliver(record.inputResponses ?? {});
    if (taken.length === 0) return;
    this.store.update(taskId, (current) => withoutResponses(current, taken)).catch((error: unknown) =>
      this.#report(error)
    );
  }

  #scheduleRenewal(taskId: string, local: LocalTaskRun): void {
    local.timer = this.#time.setTimer(() => {
      if (this.#running.get(taskId) !== local) return;
      const until = this.#wall() + this.leaseMs;
      this.store.update(
        taskId,
        (current) => runBy(current, this.replicaId) ? { ...current, leaseExpiresAt: until } : undefined,
      ).then(
        (record) => {
          // Another replica took the task over, or it ended elsewhere: stop working on it.
          if (record === undefined || !runBy(record, this.replicaId)) {
            this.#stopLocal(taskId, new CancelledError(`Task ${taskId} is no longer run by this replica`));
          }
        },
        (error: unknown) => this.#report(error),
      );
      if (this.#running.get(taskId) === local) this.#scheduleRenewal(taskId, local);
    }, Math.max(1, Math.floor(this.leaseMs / 3)));
  }

  #stopLocal(taskId: string, reason: Error): void {
    const local = this.#running.get(taskId);
    if (local === undefined) return;
    this.#forget(taskId, local);
    local.stop(reason);
  }

  #forget(taskId: string, local: LocalTaskRun): void {
    local.timer?.cancel();
    local.timer = undefined;
    if (this.#running.get(taskId) === local) this.#running.delete(taskId);
  }

  async #recoverLost(record: TaskRecord): Promise<TaskRecord | undefined> {
    const now = this.#wall();
    const lostOwner = record.owner;
    const rerun = record.rerun;
    const work = rerun !== undefined && record.attempt < rerun.maxAttempts && !this.#closed
      ? this.#resumer?.(record)
      : undefined;
    let claimed = false;
    const next = await this.store.update(record.taskId, (current) => {
      claimed = false;
      if (!leaseRanOut(current, lostOwner, now)) return undefined;
      claimed = work !== undefined;
      return claimed ? restartedAfterLoss(current, this, now) : failedAfterLoss(current, this.leaseMs, now);
    });
    if (next !== undefined && next.owner !== lostOwner) this.#publish(record.taskId);
    if (claimed && next !== undefined && work !== undefined) this.#launch(next, work);
    return next;
  }

  #publish(taskId: string): void {
    this.#events.publish(taskId).catch((error: unknown) => this.#report(error));
  }
}
