/**
 * `KeepAliveClock`: one timer for the keep-alive ticks of every SSE stream that shares a clock
 * ({@linkcode TimeProvider}) and an interval, instead of one host timer (with its callback and
 * handle) per stream. Each stream still ticks `interval` after it started and after each of its
 * ticks: an idle listen stream costs one map entry here.
 * @module
 */
import type { TimeProvider, TimerHandle } from "../../../stream/time_provider.ts";

/** The method a {@linkcode KeepAliveClock} calls on a stream at each of its ticks. */
export const KEEP_ALIVE_TICK: unique symbol = Symbol("onemodelcontext.sse.keepAliveTick");

/** What a {@linkcode KeepAliveClock} ticks. */
export interface KeepAliveTicking {
  [KEEP_ALIVE_TICK](): void;
}

/** The clocks of each time provider, by interval. */
const CLOCKS = new WeakMap<TimeProvider, Map<number, KeepAliveClock>>();

/**
 * Ticks each added stream every `interval` milliseconds from when it was added, with at most one
 * timer of `time` armed: the streams wait in the order they are due (each re-enters at the end
 * after its tick, and `now()` never goes backwards, so the order holds), and the timer is set for
 * the first of them.
 *
 * @example
 * ```ts
 * const stream = { [KEEP_ALIVE_TICK]: () => console.log("tick") };
 * const clock = KeepAliveClock.of(systemTimeProvider, 15_000);
 * clock.add(stream); // stream[KEEP_ALIVE_TICK]() every 15 s
 * clock.delete(stream);
 * ```
 */
export class KeepAliveClock {
  readonly #time: TimeProvider;
  readonly #interval: number;
  /** Each stream with the instant its next tick is due, in due order. */
  readonly #due = new Map<KeepAliveTicking, number>();
  #timer: TimerHandle | undefined;
  /** When the armed timer fires. */
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(time: TimeProvider, interval: number) {
    this.#time = time;
    this.#interval = interval;
  }

  /** The shared clock of `time` and `interval` (a positive, finite number of milliseconds). */
  static of(time: TimeProvider, interval: number): KeepAliveClock {
    let clocks = CLOCKS.get(time);
    if (clocks === undefined) CLOCKS.set(time, clocks = new Map());
    let clock = clocks.get(interval);
    if (clock === undefined) clocks.set(interval, clock = new KeepAliveClock(time, interval));
    return clock;
  }

  /** Streams ticking now. */
  get size(): number {
    return this.#due.size;
  }

  /** Ticks `stream` every interval from now on, until deleted. */
  add(stream: KeepAliveTicking): void {
    this.#due.delete(stream);
    const due = this.#time.now() + this.#interval;
    this.#due.set(stream, due);
    if (this.#timer === undefined) this.#arm(due);
  }

  /** Stops ticking `stream`; the timer goes with the last stream. */
  delete(stream: KeepAliveTicking): void {
    if (!this.#due.delete(stream) || this.#due.size > 0) return;
    this.#disarm();
  }

  #disarm(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  #arm(at: number): void {
    this.#timerAt = at;
    this.#timer = this.#time.setTimer(() => this.#fire(), Math.max(0, at - this.#time.now()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.#time.now();
    const next = now + this.#interval;
    for (const [stream, due] of this.#due) {
      if (due > now) break; // in due order: the rest is later (re-entered streams come last, due at `next`)
      this.#due.delete(stream);
      this.#due.set(stream, next);
      stream[KEEP_ALIVE_TICK]();
    }
    // The first stream due now; a stream added by a tick may have armed a timer for a later instant.
    const first = this.#due.values().next();
    if (first.done || first.value >= this.#timerAt) return;
    this.#disarm();
    this.#arm(first.value);
  }
}
