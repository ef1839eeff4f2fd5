/**
 * `LongStreams`: the long SSE responses of an endpoint (modern `subscriptions/listen`, legacy GET
 * streams), counted against their bound, and whether the endpoint drains them.
 * @module
 */

/** A stream method: calls the callback once the stream ended (at once if it has), with no promise. */
export const WHEN_CLOSED: unique symbol = Symbol("onemodelcontext.http.whenClosed");

/** A long stream as counted: it ends (`closed`, or the cheaper {@linkcode WHEN_CLOSED} when it has it) or is ended (`abort`). */
export interface LongStream {
  readonly closed: Promise<void>;
  abort(reason?: unknown): void;
  [WHEN_CLOSED]?(callback: () => void): void;
}

/**
 * The long streams open at once, at most `max` (one more gets 429 from its caller).
 *
 * @example
 * ```ts
 * const streams = new LongStreams(1000);
 * if (!streams.full) streams.count(new SseStream());
 * ```
 */
export class LongStreams {
  /** Long streams open at once at most. */
  readonly max: number;
  /** True once the endpoint drains: a long stream opened from now on ends at once, gracefully. */
  draining = false;
  readonly #open = new Set<LongStream>();

  constructor(max: number) {
    this.max = max;
  }

  /** Long streams open now. */
  get size(): number {
    return this.#open.size;
  }

  /** True when one more long stream would pass `max`. */
  get full(): boolean {
    return this.#open.size >= this.max;
  }

  /** Counts `stream` until it ends. */
  count(stream: LongStream): void {
    this.#open.add(stream);
    const open = this.#open;
    const uncount = (): void => void open.delete(stream);
    if (stream[WHEN_CLOSED] !== undefined) stream[WHEN_CLOSED](uncount);
    else void stream.closed.then(uncount);
  }

  /** Ends every long stream still open (their clients do not read their last events). */
  abortAll(reason: unknown): void {
    for (const stream of this.#open) stream.abort(reason);
  }
}
