/**
 * `ConnectDeadline`: the `connectTimeout` of one stream connect, and the shorter bound of each step
 * (a probe's `probeTimeout`) inside it.
 * @module
 */
import { TimeoutError } from "../wire/errors.ts";
import type { TimeProvider } from "../stream/time_provider.ts";
import { withTimeout } from "../stream/time_kit.ts";

/** How a bounded wait ended: a value, a failure, or the step's own bound (the connect goes on). */
export type Waited<T> = { ok: true; value: T } | { ok: false; error: unknown } | {
  ok: false;
  stepTimeout: true;
};

/** Markers of which deadline ended a wait. */
const STEP_TIMEOUT = Symbol("step timeout");
const DEADLINE = Symbol("connect deadline");

/** The deadline of one connect (see the module note). */
export class ConnectDeadline {
  readonly #time: TimeProvider;
  readonly #connectTimeout: number;
  readonly #deadline: number;
  readonly #progressNote: () => string;

  /** `progressNote` tells the timeout's message what was done so far. */
  constructor(
    time: TimeProvider,
    bounds: { started: number; connectTimeout: number; progressNote(): string },
  ) {
    this.#time = time;
    this.#connectTimeout = bounds.connectTimeout;
    this.#deadline = bounds.started + bounds.connectTimeout;
    this.#progressNote = bounds.progressNote;
  }

  /**
   * Waits for `promise`, at most `stepMs` (→ a step timeout) and never past the connect deadline
   * (→ throws a `TimeoutError` saying what it was `doing`).
   */
  async wait<T>(promise: Promise<T>, stepMs: number, doing: string): Promise<Waited<T>> {
    const remaining = Math.max(0, this.#deadline - this.#time.now());
    // The step timer is the earlier one when both are due at once.
    const stepFirst = stepMs <= remaining;
    try {
      return {
        ok: true,
        value: await withTimeout(this.#time, promise, stepFirst ? stepMs : remaining, {
          error: () => (stepFirst ? STEP_TIMEOUT : DEADLINE),
        }),
      };
    } catch (error) {
      if (error === STEP_TIMEOUT) return { ok: false, stepTimeout: true };
      if (error !== DEADLINE) return { ok: false, error };
      throw new TimeoutError(
        `Connect did not finish within connectTimeout (${this.#connectTimeout} ms) while ${doing}${this.#progressNote()}`,
        this.#connectTimeout,
      );
    }
  }
}
