/**
 * `NotificationFanout`: hands every server notification to each listener registered for its method,
 * so the cache, progress routing, listen streams and `onLog` handlers all see the same message.
 * @module
 */

/** A listener of one notification method. */
export type NotificationListener = (params: unknown) => void;

/**
 * Many listeners per method; a listener that throws is reported and the others still run.
 *
 * @example
 * ```ts
 * declare const cache: ListCache;
 * const fanout = new NotificationFanout((error) => console.error(error));
 * const off = fanout.on("notifications/tools/list_changed", () => cache.invalidate("tools/list"));
 * fanout.dispatch("notifications/tools/list_changed", {});
 * off();
 * ```
 */
export class NotificationFanout {
  readonly #listeners = new Map<string, Set<NotificationListener>>();
  readonly #report: (error: Error) => void;

  constructor(report: (error: Error) => void) {
    this.#report = report;
  }

  /** Adds `listener` for `method`; returns the function that removes it again. */
  on(method: string, listener: NotificationListener): () => void {
    let set = this.#listeners.get(method);
    if (!set) this.#listeners.set(method, set = new Set());
    const entry: NotificationListener = (params) => listener(params);
    set.add(entry);
    return () => {
      set.delete(entry);
      if (set.size === 0 && this.#listeners.get(method) === set) this.#listeners.delete(method);
    };
  }

  /** Runs every listener of `method` with `params`; returns how many there were. */
  dispatch(method: string, params: unknown): number {
    const set = this.#listeners.get(method);
    if (!set) return 0;
    for (const listener of [...set]) {
      try {
        listener(params);
      } catch (error) {
        this.#report(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return set.size;
  }
}
