/**
 * The listen bus: how a change made on one server replica reaches the `subscriptions/listen` streams
 * (and legacy sessions) held by every replica. A replica publishes "the tools list changed" or
 * "resource X was updated"; every replica's subscribers receive it, its own included.
 *
 * Two implementations: {@linkcode InProcessListenBus} (one process, the default) and
 * `RedisListenBus` from `onemodelcontext/redis` (Redis pub/sub across processes).
 *
 * **Delivery rule (why memory stays bounded).** A bus never queues events per subscriber: each
 * handler is called synchronously, once per event, in publish order per publisher, and must return
 * at once. A handler that has slow work to do coalesces it itself; {@linkcode listenBusEvents} does
 * that for an async consumer, with a fixed bound. Events are level signals ("something changed: re-read
 * it"), so two identical pending events are one. Delivery is at most once: an event published while a
 * replica cannot hear the bus is lost to it, and the bus then delivers `{ type: "resync" }` so the
 * subscriber treats everything as changed.
 * @module
 */

/** A list whose changes are announced: `notifications/<list>/list_changed`. */
export type ListenList = "tools" | "prompts" | "resources";

/** What a replica publishes. */
export type ListenEvent =
  /** `notifications/tools|prompts|resources/list_changed`. */
  | { readonly type: "list_changed"; readonly list: ListenList }
  /** `notifications/resources/updated` for one URI. */
  | { readonly type: "resource_updated"; readonly uri: string }
  /** A task changed (the tasks extension): re-read it from the shared task store. */
  | { readonly type: "task_changed"; readonly taskId: string };

/**
 * What a subscriber receives: a published event with the id of the replica that published it, or
 * `resync` (the bus may have missed events, e.g. after a reconnect: treat every list and every
 * subscribed resource as changed). `resync` is delivered by a bus, never published.
 */
export type ListenBusEvent =
  | (ListenEvent & { readonly origin: string })
  | { readonly type: "resync"; readonly origin: string };

/** Called synchronously for every event; must not block (see the delivery rule in the module doc). */
export type ListenEventHandler = (event: ListenBusEvent) => void;

/**
 * Carries list-changed and resource-updated events between the replicas of a server.
 *
 * @example
 * ```ts
 * declare const bus: ListenBus; // e.g. RedisListenBus.open(…) of onemodelcontext/redis
 * const stop = bus.subscribe((event) => console.log(event.type, event.origin));
 * await bus.publish({ type: "list_changed", list: "tools" });
 * stop();
 * ```
 */
export interface ListenBus {
  /** This replica's id: the `origin` of the events it publishes. */
  readonly replicaId: string;
  /**
   * Delivers `event` to this replica's subscribers (synchronously, before the promise settles) and
   * to every other replica. Rejects when the event cannot be sent (too large, bus closed, or the
   * transport failed); the local delivery has happened by then unless the event was refused.
   */
  publish(event: ListenEvent): Promise<void>;
  /** Adds a handler; returns the function that removes it (calling it twice does nothing). */
  subscribe(handler: ListenEventHandler): () => void;
  /** Stops delivering and releases what the bus opened (never the clients the user passed in). */
  close(): Promise<void>;
}
