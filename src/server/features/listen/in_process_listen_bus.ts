/**
 * `InProcessListenBus`: the listen bus of a single process (the default). Also the local fan-out of
 * buses that span processes, which hand it what they receive through {@linkcode InProcessListenBus.deliver}.
 * @module
 */
import { ClosedError } from "../../../wire/errors.ts";
import type { ListenBus, ListenBusEvent, ListenEvent, ListenEventHandler } from "./listen_bus.ts";
import { checkListenEvent } from "./listen_event_codec.ts";

/** Options of {@linkcode InProcessListenBus}. */
export interface InProcessListenBusOptions {
  /**
   * The `origin` of the events this bus publishes. Default: a random UUID.
   * @default a random UUID
   */
  replicaId?: string;
  /** Receives the error a handler threw (the other handlers still run), like `ContextServer`'s `onReport`. */
  onReport?: (error: Error) => void;
}

/**
 * Delivers every published event to every handler, synchronously, in subscription order. Holds no
 * queue: memory is one `Set` of handlers. A handler that throws is reported and does not stop the others.
 *
 * @example
 * ```ts
 * const bus = new InProcessListenBus();
 * bus.subscribe((event) => { if (event.type === "list_changed") console.log(`${event.list} changed`); });
 * await bus.publish({ type: "list_changed", list: "tools" });
 * ```
 */
export class InProcessListenBus implements ListenBus {
  readonly replicaId: string;
  readonly #handlers = new Set<ListenEventHandler>();
  readonly #onReport: ((error: Error) => void) | undefined;
  #closed = false;

  constructor(options: InProcessListenBusOptions = {}) {
    this.replicaId = options.replicaId ?? globalThis.crypto.randomUUID();
    this.#onReport = options.onReport;
  }

  /** Handlers subscribed now. */
  get size(): number {
    return this.#handlers.size;
  }

  publish(event: ListenEvent): Promise<void> {
    if (this.#closed) return Promise.reject(new ClosedError("The listen bus is closed"));
    try {
      checkListenEvent(event);
    } catch (error) {
      return Promise.reject(error);
    }
    this.deliver({ ...event, origin: this.replicaId });
    return Promise.resolve();
  }

  /** Delivers an event received from elsewhere (another replica, or a `resync`) to this bus's handlers. */
  deliver(event: ListenBusEvent): void {
    if (this.#closed) return;
    for (const handler of [...this.#handlers]) {
      try {
        handler(event);
      } catch (error) {
        this.#report(
          error instanceof Error ? error : new Error(`A listen bus handler threw ${String(error)}`),
        );
      }
    }
  }

  subscribe(handler: ListenEventHandler): () => void {
    if (this.#closed) return () => {};
    const entry: ListenEventHandler = (event) => handler(event); // a handler subscribed twice runs twice
    this.#handlers.add(entry);
    return () => {
      this.#handlers.delete(entry);
    };
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#handlers.clear();
    return Promise.resolve();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #report(error: Error): void {
    try {
      this.#onReport?.(error);
    } catch {
      // A failing reporter must not stop delivery, and has nowhere else to report to.
    }
  }
}
