/**
 * `RequestDeadline`: the timeout of one HTTP client request, pushed back by progress, never past
 * a maximum. Both eras' requests use it.
 * @module
 */
import { TimeoutError } from "../../wire/errors.ts";
import type { TimeProvider, TimerHandle } from "../../stream/time_provider.ts";

/** The two bounds of {@linkcode RequestDeadline}. */
export interface RequestDeadlineOptions {
  /** Milliseconds of silence (no progress) allowed. `Infinity` turns it off. */
  timeout: number;
  /** Milliseconds allowed in all, however much progress arrives. `Infinity` turns it off. */
  maxTotalTimeout: number;
}

/**
 * Aborts `controller` with a {@linkcode TimeoutError} when the request runs out of time. One timer
 * covers both bounds: progress only moves the quiet end forward, and the timer, when it fires before
 * either end, is armed again for the nearer one (no timer is cancelled and made per progress).
 */
export class RequestDeadline {
  readonly #time: TimeProvider;
  readonly #options: RequestDeadlineOptions;
  readonly #expire: (error: TimeoutError) => void;
  readonly #what: string;
  /** When silence times out (`Infinity`: never). */
  #quietEnd: number;
  /** When the request times out in all (`Infinity`: never). */
  readonly #totalEnd: number;
  #timer: TimerHandle | undefined;
  #done = false;

  /** `what` names the request in the error; `onExpire` gets the {@linkcode TimeoutError} once. */
  constructor(
    time: TimeProvider,
    options: RequestDeadlineOptions & { what: string; onExpire: (error: TimeoutError) => void },
  ) {
    this.#time = time;
    this.#options = options;
    this.#expire = options.onExpire;
    this.#what = options.what;
    const quiet = Number.isFinite(options.timeout);
    const total = Number.isFinite(options.maxTotalTimeout);
    const now = quiet || total ? time.now() : 0;
    this.#quietEnd = quiet ? now + options.timeout : Number.POSITIVE_INFINITY;
    this.#totalEnd = total ? now + options.maxTotalTimeout : Number.POSITIVE_INFINITY;
    this.#arm(now);
  }

  /** Progress arrived: the quiet timeout starts again. */
  restart(): void {
    if (this.#done || !Number.isFinite(this.#quietEnd)) return;
    this.#quietEnd = this.#time.now() + this.#options.timeout;
  }

  /** The request settled: no timer stays pending. */
  cancel(): void {
    this.#done = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #arm(now: number): void {
    const end = Math.min(this.#quietEnd, this.#totalEnd);
    if (!Number.isFinite(end)) return;
    this.#timer = this.#time.setTimer(() => this.#check(), Math.max(0, end - now));
  }

  #check(): void {
    this.#timer = undefined;
    if (this.#done) return;
    const now = this.#time.now();
    // The end reached first wins; at a tie the quiet one (as two timers armed in that order would).
    const quietDue = now >= this.#quietEnd;
    const totalDue = now >= this.#totalEnd;
    if (quietDue && (!totalDue || this.#quietEnd <= this.#totalEnd)) {
      const ms = this.#options.timeout;
      this.#fire(
        new TimeoutError(
          `${this.#what} timed out after ${ms} ms without a reply or progress (requestTimeout)`,
          ms,
        ),
      );
    } else if (totalDue) {
      const ms = this.#options.maxTotalTimeout;
      this.#fire(new TimeoutError(`${this.#what} timed out after ${ms} ms in all (maxTotalTimeout)`, ms));
    } else {
      this.#arm(now);
    }
  }

  #fire(error: TimeoutError): void {
    this.cancel();
    this.#expire(error);
  }
}
