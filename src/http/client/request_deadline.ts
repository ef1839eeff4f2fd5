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

/** Aborts `controller` with a {@linkcode TimeoutError} when the request runs out of time. */
export class RequestDeadline {
  readonly #time: TimeProvider;
  readonly #options: RequestDeadlineOptions;
  readonly #expire: (error: TimeoutError) => void;
  readonly #what: string;
  #quiet: TimerHandle | undefined;
  #total: TimerHandle | undefined;

  /** `what` names the request in the error; `onExpire` gets the {@linkcode TimeoutError} once. */
  constructor(
    time: TimeProvider,
    options: RequestDeadlineOptions & { what: string; onExpire: (error: TimeoutError) => void },
  ) {
    this.#time = time;
    this.#options = options;
    this.#expire = options.onExpire;
    const what = options.what;
    this.#what = what;
    this.#arm();
    if (Number.isFinite(options.maxTotalTimeout)) {
      const ms = options.maxTotalTimeout;
      this.#total = time.setTimer(
        () => this.#fire(new TimeoutError(`${what} timed out after ${ms} ms in all (maxTotalTimeout)`, ms)),
        ms,
      );
    }
  }

  /** Progress arrived: the quiet timeout starts again. */
  restart(): void {
    if (this.#quiet === undefined) return;
    this.#quiet.cancel();
    this.#arm();
  }

  /** The request settled: no timer stays pending. */
  cancel(): void {
    this.#quiet?.cancel();
    this.#total?.cancel();
    this.#quiet = undefined;
    this.#total = undefined;
  }

  #arm(): void {
    const ms = this.#options.timeout;
    if (!Number.isFinite(ms)) return;
    this.#quiet = this.#time.setTimer(
      () =>
        this.#fire(
          new TimeoutError(
            `${this.#what} timed out after ${ms} ms without a reply or progress (requestTimeout)`,
            ms,
          ),
        ),
      ms,
    );
  }

  #fire(error: TimeoutError): void {
    this.cancel();
    this.#expire(error);
  }
}
