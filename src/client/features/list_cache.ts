/**
 * `ListCache`: complete list results kept for the `ttlMs` the server put on them (modern era), until a
 * list-changed notification or the expiry.
 * @module
 */
import type { TimeProvider } from "../../stream/time_provider.ts";

interface Entry {
  readonly items: readonly unknown[];
  readonly expires: number;
}

/**
 * One entry per list method. A listing is kept only when every page carried a positive `ttlMs`, for
 * the smallest of them, counted from when the first page was asked for.
 *
 * @example
 * ```ts
 * declare const time: TimeProvider, tools: readonly unknown[];
 * const cache = new ListCache(time);
 * const generation = cache.begin("tools/list"); // before the first page is asked for
 * const startedAt = time.now();
 * cache.store("tools/list", tools, 30_000, startedAt, generation);
 * cache.get("tools/list"); // the tools, until 30 s after startedAt or until invalidate("tools/list")
 * ```
 */
export class ListCache {
  readonly #time: TimeProvider;
  readonly #entries = new Map<string, Entry>();
  readonly #generation = new Map<string, number>();

  constructor(time: TimeProvider) {
    this.#time = time;
  }

  /** The cached items of `method` while fresh (a copy of the array), else `undefined`. */
  get<T>(method: string): T[] | undefined {
    const entry = this.#entries.get(method);
    if (!entry) return undefined;
    if (this.#time.now() >= entry.expires) {
      this.#entries.delete(method);
      return undefined;
    }
    return entry.items.slice() as T[];
  }

  /** A token to pass to {@linkcode store}: a listing that began before an invalidation is not stored. */
  begin(method: string): number {
    return this.#generation.get(method) ?? 0;
  }

  /**
   * Keeps `items` for `ttlMs` from `startedAt`, unless `ttlMs` is not positive or `method` was
   * invalidated since `generation` (the listing may predate the change).
   */
  store(
    method: string,
    items: readonly unknown[],
    ttlMs: number | undefined,
    startedAt: number,
    generation: number,
  ): void {
    if (ttlMs === undefined || !(ttlMs > 0) || generation !== this.begin(method)) return;
    this.#entries.set(method, { items: items.slice(), expires: startedAt + ttlMs });
  }

  /** Forgets `method`'s listing (a list-changed notification). */
  invalidate(method: string): void {
    this.#entries.delete(method);
    this.#generation.set(method, this.begin(method) + 1);
  }
}
