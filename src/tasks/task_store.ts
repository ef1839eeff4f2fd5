/**
 * `TaskStore`: where tasks live, the only place their truth is kept. `MemoryTaskStore` is the default
 * (one process); `RedisTaskStore` from `onemodelcontext/redis` is shared by replicas.
 * @module
 */
import type { TaskRecord } from "./task_record.ts";

/**
 * Keeps task records. Every operation is atomic per task. `create` is strongly consistent: once it
 * resolves, `get` on any replica finds the task. A record is forgotten `ttlMs` after `createdAt`
 * (never earlier).
 *
 * @example
 * ```ts
 * const store: TaskStore = new MemoryTaskStore({ maxTasks: 1000 });
 * const found = await store.get("some-task-id"); // undefined when unknown or expired
 * ```
 */
export interface TaskStore {
  /** Adds a new task. Rejects with `TaskStoreFullError` when the store is at its bound. */
  create(record: TaskRecord): Promise<void>;
  /** The task, or `undefined` when unknown or expired. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Applies `change` to the current record atomically and resolves with the stored result;
   * `change` returns `undefined` to leave the record as it is (then the current one is resolved).
   * Resolves `undefined` when the task is unknown or expired. `change` may run more than once (a
   * shared store retries on a concurrent write), so it must be pure.
   */
  update(
    taskId: string,
    change: (current: TaskRecord) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined>;
}
