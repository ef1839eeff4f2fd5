/**
 * `MemoryTaskStore`: the default task store, in this process's memory, bounded in count and by each
 * task's TTL.
 * @module
 */
import { integerOption } from "../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";
import { isTerminal, type TaskRecord } from "./task_record.ts";
import type { TaskStore } from "./task_store.ts";
import { TaskStoreFullError } from "./task_errors.ts";
import { wallClockOf } from "./wall_clock.ts";

/** Options of {@linkcode MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /**
   * Most tasks kept at once. A new task past it first evicts expired tasks, then the
   * oldest finished one; when every kept task is still running, `create` rejects with
   * `TaskStoreFullError`.
   * @default 10_000
   */
  maxTasks?: number;
  /**
   * The clock of TTL expiry.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
}

/**
 * Task records in a `Map`, for one process. Records are copied in and out (`structuredClone`), so
 * a caller never shares an object with the store.
 *
 * @example
 * ```ts
 * const store = new MemoryTaskStore({ maxTasks: 500 });
 * const server = new ContextServer({ name: "s", version: "1", features: { tasks: { store } } });
 * ```
 */
export class MemoryTaskStore implements TaskStore {
  /** The bound of kept tasks. */
  readonly maxTasks: number;
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #wall: () => number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.maxTasks = integerOption("maxTasks", options.maxTasks, 10_000, 1);
    this.#wall = wallClockOf(options.timeProvider ?? systemTimeProvider);
  }

  /** Tasks kept now (expired ones included until they are next looked at). */
  get size(): number {
    return this.#tasks.size;
  }

  create(record: TaskRecord): Promise<void> {
    if (this.#tasks.has(record.taskId)) {
      return Promise.reject(new TypeError(`Task ${record.taskId} exists already`));
    }
    if (this.#tasks.size >= this.maxTasks) this.#evict();
    if (this.#tasks.size >= this.maxTasks) return Promise.reject(new TaskStoreFullError(this.maxTasks));
    this.#tasks.set(record.taskId, structuredClone(record));
    return Promise.resolve();
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    const record = this.#live(taskId);
    return Promise.resolve(record === undefined ? undefined : structuredClone(record));
  }

  update(
    taskId: string,
    change: (current: TaskRecord) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined> {
    const record = this.#live(taskId);
    if (record === undefined) return Promise.resolve(undefined);
    let next: TaskRecord | undefined;
    try {
      next = change(structuredClone(record));
    } catch (error) {
      return Promise.reject(error);
    }
    if (next !== undefined) this.#tasks.set(taskId, structuredClone(next));
    return Promise.resolve(structuredClone(next ?? record));
  }

  #live(taskId: string): TaskRecord | undefined {
    const record = this.#tasks.get(taskId);
    if (record !== undefined && expired(record, this.#wall())) {
      this.#tasks.delete(taskId);
      return undefined;
    }
    return record;
  }

  #evict(): void {
    const now = this.#wall();
    let oldestFinished: string | undefined;
    for (const [id, record] of this.#tasks) {
      if (expired(record, now)) this.#tasks.delete(id);
      else if (oldestFinished === undefined && isTerminal(record.status)) oldestFinished = id;
    }
    if (this.#tasks.size >= this.maxTasks && oldestFinished !== undefined) this.#tasks.delete(oldestFinished);
  }
}

function expired(record: TaskRecord, now: number): boolean {
  return record.ttlMs !== null && now >= record.createdAt + record.ttlMs;
}
