/**
 * `TaskListeners`: who a {@linkcode TaskEngine} tells after a task changed (`onChange`), each with
 * the filter of the tasks it wants.
 * @module
 */
import type { TaskRecord } from "./task_record.ts";

/** A listener of task changes. */
export type TaskListener = (record: TaskRecord) => void;

/** The listeners of one engine. */
export class TaskListeners {
  readonly #listeners = new Map<TaskListener, ((taskId: string) => boolean) | undefined>();

  /** Adds `listener` (for the tasks `wants` accepts, else every task); returns the remover. */
  add(listener: TaskListener, wants?: (taskId: string) => boolean): () => void {
    this.#listeners.set(listener, wants);
    return () => void this.#listeners.delete(listener);
  }

  /** The listeners that want task `taskId`, as they are now. */
  wanting(taskId: string): TaskListener[] {
    return [...this.#listeners].filter(([, wants]) => wants === undefined || wants(taskId)).map(([l]) => l);
  }
}

/** Calls each of `listeners` with `record`; a listener that throws is reported, the others still run. */
export function notifyAll(
  listeners: readonly TaskListener[],
  record: TaskRecord,
  report: (error: unknown) => void,
): void {
  for (const listener of listeners) {
    try {
      listener(record);
    } catch (error) {
      report(error);
    }
  }
}
