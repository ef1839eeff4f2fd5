/**
 * `taskEventsOverBus`: the task engine's change events carried by the listen bus (`task_changed`),
 * so a task that changes on one replica reaches the listen streams and the waiting work of every
 * replica sharing the task store.
 * @module
 */
import type { TaskEvents } from "../../tasks/task_engine.ts";
import type { ListenBus } from "./listen/listen_bus.ts";

/**
 * Task change events over `bus`. A `resync` (the bus may have missed events) is not replayed as a
 * task change: waiting work and clients poll the store anyway.
 *
 * @example
 * ```ts
 * declare const store: TaskStore; // shared by the replicas, e.g. RedisTaskStore
 * declare const bus: ListenBus;
 * const engine = new TaskEngine({ store, events: taskEventsOverBus(bus) });
 * ```
 */
export function taskEventsOverBus(bus: ListenBus): TaskEvents {
  return {
    publish: (taskId) => bus.publish({ type: "task_changed", taskId }),
    subscribe(handler) {
      return bus.subscribe((event) => {
        if (event.type === "task_changed") handler(event.taskId);
      });
    },
  };
}
