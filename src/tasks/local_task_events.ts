/**
 * The default {@linkcode TaskEvents} of a `TaskEngine`: change events within one engine.
 * @module
 */
import type { TaskEvents } from "./task_events.ts";

/** Change events within one engine: handlers are called synchronously. */
export function localEvents(): TaskEvents {
  const handlers = new Set<(taskId: string) => void>();
  return {
    publish(taskId) {
      for (const handler of handlers) handler(taskId);
      return Promise.resolve();
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
  };
}
