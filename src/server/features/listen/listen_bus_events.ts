/**
 * `listenBusEvents`: a listen bus's events as an async iterator, for a consumer that does slow work per
 * event (writing to a stream), with a fixed memory bound whatever the consumer's speed.
 * @module
 */
import { InvalidOptionError } from "../../../wire/errors.ts";
import type { ListenBus, ListenBusEvent } from "./listen_bus.ts";

/** Options of {@linkcode listenBusEvents}. */
export interface ListenBusEventsOptions {
  /** Ends the iteration (it returns `done`; pending events are dropped). */
  signal?: AbortSignal;
  /**
   * Most distinct events waiting for the consumer. Default 256. One more replaces them all with a
   * single `resync` (origin: the bus's `replicaId`), so a slow consumer costs at most this many
   * events of memory and still learns that something changed.
   * @default 256
   */
  maxPendingEvents?: number;
}

/**
 * Iterates the events of `bus` from now on. Events wait in a bounded, coalescing queue: an event
 * equal to one already waiting (same list, or same URI) is not queued twice, since events are level
 * signals; past `maxPendingEvents` the queue collapses into one `resync`, which also absorbs every
 * event that arrives while it waits. Ends when `signal` aborts or the iterator is returned.
 *
 * @example
 * ```ts
 * declare const bus: ListenBus, signal: AbortSignal, stream: { write(method: string): Promise<void> };
 * for await (const event of listenBusEvents(bus, { signal })) {
 *   if (event.type === "list_changed") await stream.write(`notifications/${event.list}/list_changed`);
 * }
 * ```
 */
export function listenBusEvents(
  bus: ListenBus,
  options: ListenBusEventsOptions = {},
): AsyncIterableIterator<ListenBusEvent> {
  const max = options.maxPendingEvents ?? 256;
  if (!Number.isInteger(max) || max < 1) {
    throw new InvalidOptionError(
      `Option maxPendingEvents must be an integer of at least 1, got ${String(max)}`,
    );
  }
  const pending = new Map<string, ListenBusEvent>();
  let wake: (() => void) | undefined;
  let done = false;

  const unsubscribe = bus.subscribe((event) => {
    if (done || pending.has("resync")) return;
    const key = eventKey(event);
    if (pending.has(key)) return;
    if (key === "resync" || pending.size >= max) {
      pending.clear();
      pending.set("resync", event.type === "resync" ? event : { type: "resync", origin: bus.replicaId });
    } else {
      pending.set(key, event);
    }
    wake?.();
  });
  const finish = (): void => {
    if (done) return;
    done = true;
    pending.clear();
    unsubscribe();
    options.signal?.removeEventListener("abort", finish);
    wake?.();
  };
  if (options.signal?.aborted) finish();
  else options.signal?.addEventListener("abort", finish, { once: true });

  const iterator: AsyncIterableIterator<ListenBusEvent> = {
    async next(): Promise<IteratorResult<ListenBusEvent>> {
      while (!done) {
        const first = pending.entries().next();
        if (!first.done) {
          pending.delete(first.value[0]);
          return { done: false, value: first.value[1] };
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      return { done: true, value: undefined };
    },
    return(): Promise<IteratorResult<ListenBusEvent>> {
      finish();
      return Promise.resolve({ done: true, value: undefined });
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

function eventKey(event: ListenBusEvent): string {
  switch (event.type) {
    case "list_changed":
      return `list:${event.list}`;
    case "resource_updated":
      return `uri:${event.uri}`;
    case "task_changed":
      return `task:${event.taskId}`;
    default:
      return "resync";
  }
}
