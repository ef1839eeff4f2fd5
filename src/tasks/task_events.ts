/**
 * `TaskEvents`: how the replicas sharing a task store tell each other a task changed.
 * @module
 */

/** "Task X changed: re-read it", carried between the replicas sharing a store. */
export interface TaskEvents {
  /** Tells every replica (this one included, synchronously) that task `taskId` changed. */
  publish(taskId: string): Promise<void>;
  /** Adds a handler; returns the function that removes it. */
  subscribe(handler: (taskId: string) => void): () => void;
}
