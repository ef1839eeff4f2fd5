/**
 * A deterministic {@linkcode TimeProvider} for tests: time moves only when the test says so.
 * @module
 */
import type { TimeProvider, TimerHandle } from "../src/stream/time_provider.ts";

interface PendingTimer {
  due: number;
  seq: number;
  callback: () => void;
}

/** Timers one `advance` (or `runAll`) fires before it decides a timer re-arms itself for ever. */
const MAX_TIMERS_PER_ADVANCE = 100_000;

/** Options of {@linkcode FakeTimeProvider}. */
export interface FakeTimeProviderOptions {
  /** The instant `now()` returns before any `advance`. Default 1_000_000. */
  start?: number;
}

/** Lets every queued microtask, and anything they queue in turn, run: one host macrotask turn. */
export function flushMicrotasks(): Promise<void> {
  const g = globalThis as { setImmediate?: (cb: () => void) => void };
  if (typeof g.setImmediate === "function") return new Promise((resolve) => g.setImmediate!(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(undefined);
  });
}

/**
 * Starts at a fixed instant and moves only on {@linkcode FakeTimeProvider.advance}, which fires due
 * timers in due order (ties in the order they were set) and lets microtasks settle between them.
 *
 * @example
 * ```ts
 * const time = new FakeTimeProvider();
 * let fired = false;
 * time.setTimer(() => (fired = true), 5_000);
 * await time.advance(4_999); // fired === false
 * await time.advance(1);     // fired === true
 * ```
 */
export class FakeTimeProvider implements TimeProvider {
  #now: number;
  #seq = 0;
  #timers = new Set<PendingTimer>();

  constructor(options: FakeTimeProviderOptions = {}) {
    this.#now = options.start ?? 1_000_000;
  }

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const delay = Number.isFinite(delayMs) ? Math.max(0, delayMs) : delayMs > 0 ? Number.MAX_SAFE_INTEGER : 0;
    const timer: PendingTimer = { due: this.#now + delay, seq: this.#seq++, callback };
    this.#timers.add(timer);
    return { cancel: () => void this.#timers.delete(timer) };
  }

  /** How many timers are set and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Milliseconds until the next pending timer is due, or `undefined` when none is pending. */
  get nextDueIn(): number | undefined {
    const next = this.#next(Number.POSITIVE_INFINITY);
    return next === undefined ? undefined : next.due - this.#now;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way, in order, with a
   * microtask flush before and after each. Timers set by a callback fire too when they are due
   * within the same advance. Throws a `RangeError` on a negative or non-finite move, and an `Error`
   * after 100 000 timers in one advance (a timer that re-arms itself with no delay never lets time move).
   */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0) || !Number.isFinite(ms)) {
      throw new RangeError(`Cannot advance time by ${ms} ms: time only moves forward`);
    }
    const target = this.#now + ms;
    await flushMicrotasks();
    for (let fired = 0;; fired++) {
      const next = this.#next(target);
      if (next === undefined) break;
      if (fired >= MAX_TIMERS_PER_ADVANCE) {
        throw new Error(
          `Fired ${fired} timers in one advance of ${ms} ms: a timer keeps re-arming itself without delay`,
        );
      }
      this.#timers.delete(next);
      this.#now = next.due;
      next.callback();
      await flushMicrotasks();
    }
    this.#now = target;
    await flushMicrotasks();
  }

  /** Advances in steps until no timer is pending or `limitMs` has passed; returns the time moved. */
  async runAll(limitMs = 3_600_000): Promise<number> {
    const start = this.#now;
    for (let steps = 0;; steps++) {
      const next = this.nextDueIn;
      if (next === undefined || this.#now - start + next > limitMs) break;
      if (steps >= MAX_TIMERS_PER_ADVANCE) {
        throw new Error(
          `Ran ${steps} steps without reaching ${limitMs} ms: a timer keeps re-arming itself without delay`,
        );
      }
      await this.advance(next);
    }
    return this.#now - start;
  }

  #next(target: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.#timers) {
      if (t.due > target) continue;
      if (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
