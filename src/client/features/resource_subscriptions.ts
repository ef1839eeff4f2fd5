/**
 * `ResourceSubscriptions`: legacy `resources/subscribe` / `resources/unsubscribe`, counted per URI so
 * that `subscribe()` and every legacy listen stream can hold the same URI without undoing each other.
 * @module
 */

/** Sends one `resources/subscribe` (`true`) or `resources/unsubscribe` (`false`) for `uri`. */
export type SubscriptionSender = (uri: string, subscribe: boolean) => Promise<unknown>;

/**
 * The wire sees one `resources/subscribe` when a URI's count goes from 0 to 1 and one
 * `resources/unsubscribe` when it drops back to 0. Wire calls run one at a time, in order, so an
 * unsubscribe never overtakes the subscribe after it.
 *
 * @example
 * ```ts
 * declare const client: ContextClient;
 * const subscriptions = new ResourceSubscriptions((uri, on) => client.request(on ? "resources/subscribe" : "resources/unsubscribe", { uri }));
 * await subscriptions.acquire("file:///a"); // sends resources/subscribe
 * await subscriptions.acquire("file:///a"); // count 2, nothing sent
 * await subscriptions.release("file:///a"); // count 1, nothing sent
 * ```
 */
export class ResourceSubscriptions {
  readonly #send: SubscriptionSender;
  readonly #counts = new Map<string, { count: number; ready: Promise<unknown> }>();
  #tail: Promise<unknown> = Promise.resolve();

  constructor(send: SubscriptionSender) {
    this.#send = send;
  }

  /** How many holders `uri` has. */
  count(uri: string): number {
    return this.#counts.get(uri)?.count ?? 0;
  }

  /** Holds `uri`; the first holder's call sends `resources/subscribe` and rejects with its error. */
  async acquire(uri: string): Promise<void> {
    let entry = this.#counts.get(uri);
    if (!entry) {
      entry = { count: 0, ready: this.#enqueue(() => this.#send(uri, true)) };
      this.#counts.set(uri, entry);
    }
    entry.count++;
    try {
      await entry.ready;
    } catch (error) {
      entry.count--;
      if (entry.count === 0 && this.#counts.get(uri) === entry) this.#counts.delete(uri);
      throw error;
    }
  }

  /** Lets go of `uri`; the last holder's call sends `resources/unsubscribe`. Releasing an unheld URI does nothing. */
  async release(uri: string): Promise<void> {
    const entry = this.#counts.get(uri);
    if (!entry) return;
    entry.count--;
    if (entry.count > 0) return;
    this.#counts.delete(uri);
    const subscribed = await entry.ready.then(() => true, () => false);
    if (subscribed) await this.#enqueue(() => this.#send(uri, false));
  }

  /**
   * Sends `resources/subscribe` again for every held URI whose subscribe succeeded (the server lost
   * them: a legacy session re-initialized). Rejects with the first failure, after trying them all.
   */
  async renew(): Promise<void> {
    const held = [...this.#counts].filter(([, entry]) => entry.count > 0);
    const subscribed = await Promise.all(held.map(([, entry]) => entry.ready.then(() => true, () => false)));
    const results = await Promise.allSettled(
      held.filter((_, i) => subscribed[i]).map(([uri]) => this.#enqueue(() => this.#send(uri, true))),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  }

  #enqueue(operation: () => Promise<unknown>): Promise<unknown> {
    const run = this.#tail.then(operation, operation);
    this.#tail = run.catch(() => {});
    return run;
  }
}
