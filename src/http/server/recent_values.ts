/**
 * `RecentValues`: a pure function of a string, remembered for the inputs seen lately. HTTP requests
 * repeat the same few header values and URLs, and parsing one costs more than a map lookup.
 * @module
 */

/** The default {@linkcode RecentValues} bound. */
const DEFAULT_MAX_ENTRIES = 256;

/**
 * Remembers `compute(input)` for at most `maxEntries` inputs (then forgets them all at once, so a
 * peer sending ever new values costs one map of that size at most). `compute` must be pure; what it
 * throws is not remembered.
 *
 * @example
 * ```ts
 * const pathnames = new RecentValues((url) => new URL(url).pathname);
 * pathnames.of("http://127.0.0.1:8080/mcp"); // "/mcp", parsed once
 * ```
 */
export class RecentValues<T> {
  readonly #compute: (input: string) => T;
  readonly #maxEntries: number;
  readonly #values = new Map<string, T>();

  constructor(compute: (input: string) => T, maxEntries = DEFAULT_MAX_ENTRIES) {
    this.#compute = compute;
    this.#maxEntries = maxEntries;
  }

  /** `compute(input)`, remembered. */
  of(input: string): T {
    const known = this.#values.get(input);
    if (known !== undefined || this.#values.has(input)) return known as T;
    const value = this.#compute(input);
    if (this.#values.size >= this.#maxEntries) this.#values.clear();
    this.#values.set(input, value);
    return value;
  }
}
