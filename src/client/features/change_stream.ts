/**
 * `ChangeStream`: the async iterable `listen()` returns. Its buffer is bounded by coalescing: an event
 * equal to one still waiting to be read is not queued twice.
 * @module
 */
import type { ChangeEvent, ChangeFilter } from "./feature_types.ts";

/** A promise with both its settlers; only the first settling counts. */
class Deferred<T> {
  readonly promise: Promise<T>;
  resolve!: (value: T) => void;
  reject!: (error: unknown) => void;
  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}

/** The key under which equal events coalesce: the type, and the URI of a resource update. */
function keyOf(event: ChangeEvent): string {
  return event.type === "resourceUpdated" ? `resourceUpdated\n${event.uri}` : event.type;
}

/**
 * Change events in arrival order. A slow consumer never makes it grow without bound: while an event is
 * queued, an equal one (same type; same URI for `resourceUpdated`) is dropped, since both tell the
 * consumer the same thing ("list again", "read again"). So at most 3 list events plus one event per
 * subscribed URI wait at any time.
 *
 * End it with `close()` (or `break` out of `for await`, or an `AbortSignal` given to `listen`): in the
 * modern era that cancels the `subscriptions/listen` request, in the legacy era it unsubscribes. Over
 * HTTP a broken stream reopens by itself and then yields `{ type: "resync" }` (see `listenReconnect`).
 *
 * @example
 * ```ts
 * declare const client: ContextClient;
 * let tools = await client.listTools();
 * const changes = client.listen({ tools: true, resourceUris: ["file:///notes.md"] });
 * console.log(await changes.ready); // what the server agreed to report
 * for await (const change of changes) {
 *   // resync: the stream reopened (over HTTP, e.g. on another replica); changes may have been missed
 *   if (change.type === "toolsListChanged" || change.type === "resync") tools = await client.listTools();
 * }
 * ```
 */
export class ChangeStream implements AsyncIterableIterator<ChangeEvent>, AsyncDisposable {
  readonly #queue: ChangeEvent[] = [];
  readonly #queued = new Set<string>();
  readonly #ready = new Deferred<ChangeFilter>();
  readonly #ended = new Deferred<void>();
  readonly #onClose: () => Promise<void> | void;
  #waiter: Deferred<void> | undefined;
  #done = false;
  #error: unknown;
  #closing: Promise<void> | undefined;
  #dropped = 0;
  #endReason: string | undefined;

  /** @param onClose Called once when the consumer ends the stream (not when the server does). */
  constructor(onClose: () => Promise<void> | void) {
    this.#onClose = onClose;
    this.#ready.promise.catch(() => {}); // the same error also reaches the iterator
  }

  /**
   * What the server agreed to report (modern: its acknowledgement; legacy: what its capabilities
   * declare and the `resources/subscribe` calls that succeeded). Rejects when the stream ends first.
   */
  get ready(): Promise<ChangeFilter> {
    return this.#ready.promise;
  }

  /** Resolves once the stream has ended, for whatever reason. */
  get ended(): Promise<void> {
    return this.#ended.promise;
  }

  /** Events dropped so far because an equal one was still queued. */
  get coalesced(): number {
    return this.#dropped;
  }

  /**
   * Why the server ended the stream, once it has: `"result"` (its graceful `subscriptions/listen`
   * result) or `"cancelled"` plus its reason (`notifications/cancelled`). `undefined` while the stream
   * runs, and when the client ended it or it broke off with an error.
   */
  get endReason(): string | undefined {
    return this.#endReason;
  }

  /** Events waiting to be read. */
  get pending(): number {
    return this.#queue.length;
  }

  // ---- the producer side (the listen implementation) ----

  /** @internal */
  acknowledge(filter: ChangeFilter): void {
    this.#ready.resolve(filter);
  }

  /** @internal Queues `event`, unless an equal one is still queued. */
  push(event: ChangeEvent): void {
    if (this.#done) return;
    const key = keyOf(event);
    if (this.#queued.has(key)) {
      this.#dropped++;
      return;
    }
    this.#queued.add(key);
    this.#queue.push(event);
    this.#wake();
  }

  /** @internal Ends the stream: the queued events are still read, then the iterator is done (or throws `error`). */
  end(error?: unknown, serverReason?: string): void {
    if (this.#done) return;
    this.#done = true;
    this.#endReason = serverReason;
    this.#error = error;
    this.#ready.reject(error ?? new Error("The listen stream ended before the server acknowledged it"));
    this.#ended.resolve();
    this.#wake();
  }

  // ---- the consumer side ----

  async next(): Promise<IteratorResult<ChangeEvent>> {
    for (;;) {
      const event = this.#queue.shift();
      if (event) {
        this.#queued.delete(keyOf(event));
        return { done: false, value: event };
      }
      if (this.#done) {
        if (this.#error !== undefined) {
          const error = this.#error;
          this.#error = undefined;
          throw error;
        }
        return { done: true, value: undefined };
      }
      this.#waiter ??= new Deferred<void>(); // shared: every concurrent next() wakes and takes its turn
      await this.#waiter.promise;
    }
  }

  async return(): Promise<IteratorResult<ChangeEvent>> {
    await this.close();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Ends the stream from the consumer's side; queued events are discarded. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const wasDone = this.#done;
      this.#queue.length = 0;
      this.#queued.clear();
      this.end();
      this.#error = undefined;
      if (!wasDone) await this.#onClose();
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve();
  }
}
