/**
 * `LocalTaskRun`: what a {@linkcode TaskEngine} keeps for a task whose work runs on this replica: its
 * abort controller, its lease-renewal timer, and the input requests the work waits on.
 * @module
 */
import type { TimerHandle } from "../stream/time_provider.ts";

/** The work of one task running on this replica. */
export class LocalTaskRun {
  /** Aborted on `tasks/cancel`, when another replica takes the task over, and when the engine closes. */
  readonly controller: AbortController = new AbortController();
  /** The next lease renewal. */
  timer: TimerHandle | undefined;
  readonly #waiters = new Map<string, { resolve(value: unknown): void; reject(error: unknown): void }>();
  readonly #usedKeys = new Set<string>();

  /** Whether the work waits for an answer. */
  get waiting(): boolean {
    return this.#waiters.size > 0;
  }

  /**
   * The answer to come under `key`. Throws when `key` was used before in this run or the run was
   * stopped.
   */
  awaitAnswer(key: string): Promise<unknown> {
    if (this.#usedKeys.has(key) || this.#waiters.has(key)) {
      throw new TypeError(`Input key ${JSON.stringify(key)} is used twice in one task`);
    }
    if (this.controller.signal.aborted) throw this.controller.signal.reason;
    this.#usedKeys.add(key);
    const answer = new Promise<unknown>((resolve, reject) => this.#waiters.set(key, { resolve, reject }));
    answer.catch(() => {});
    return answer;
  }

  /** Stops waiting under `key` (the request could not be recorded). */
  dropWait(key: string): void {
    this.#waiters.delete(key);
  }

  /** Resolves the waits `answers` has an answer for; returns their keys. */
  deliver(answers: Record<string, unknown>): string[] {
    const taken: string[] = [];
    for (const [key, waiter] of this.#waiters) {
      if (!Object.hasOwn(answers, key)) continue;
      this.#waiters.delete(key);
      taken.push(key);
      waiter.resolve(answers[key]);
    }
    return taken;
  }

  /** Aborts the work and rejects every wait with `reason`. */
  stop(reason: Error): void {
    this.controller.abort(reason);
    for (const waiter of this.#waiters.values()) waiter.reject(reason);
    this.#waiters.clear();
  }
}
