/**
 * `ConcurrencyLimit`: at most `limit` tasks run at once; the rest wait in order. What bounds the
 * fan-out of a composed server's list calls to its mounts.
 * @module
 */
import { InvalidOptionError } from "../wire/errors.ts";

/** Runs tasks with at most `limit` of them pending at once. */
export class ConcurrencyLimit {
  readonly limit: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new InvalidOptionError(`The concurrency limit must be an integer of at least 1, got ${limit}`);
    }
    this.limit = limit;
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running;
  }

  /** Runs `task` once a slot is free; resolves or rejects with it. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next(); // the slot passes on as it is
      else this.#running--;
    }
  }
}
