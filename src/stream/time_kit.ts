/**
 * The time kit: every wait with a deadline in `src/` goes through these, on an injected
 * {@linkcode TimeProvider}, so tests drive them with `FakeTimeProvider` and no timer outlives its wait.
 * @module
 */
import { TimeoutError } from "../wire/errors.ts";
import type { TimeProvider } from "./time_provider.ts";

/**
 * Resolves after `delayMs` on `time`; rejects with the signal's reason if `signal` aborts first (the
 * timer is cancelled then).
 *
 * @example
 * ```ts
 * declare const signal: AbortSignal;
 * await delay(systemTimeProvider, 50, signal);
 * ```
 */
export function delay(time: TimeProvider, delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      timer.cancel();
      reject(signal!.reason);
    };
    const timer = time.setTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Options of {@linkcode withTimeout}. */
export interface WithTimeoutOptions {
  /** The rejection when time runs out. Default: a {@linkcode TimeoutError} naming `timeoutMs`. */
  error?: () => unknown;
  /** Stops waiting when it aborts: rejects with its reason. */
  signal?: AbortSignal;
}

/**
 * Settles like `promise`, or rejects when `timeoutMs` passes first (an infinite timeout sets no
 * timer). The timer is cancelled as soon as `promise` settles. A `promise` that loses the race is
 * left to run; its later rejection is not reported as unhandled.
 *
 * @example
 * ```ts
 * declare const time: TimeProvider, connection: JsonRpcConnection;
 * const reply = await withTimeout(time, connection.request("ping"), 5_000);
 * ```
 */
export function withTimeout<T>(
  time: TimeProvider,
  promise: Promise<T>,
  timeoutMs: number,
  options: WithTimeoutOptions = {},
): Promise<T> {
  const { signal } = options;
  if (timeoutMs === Number.POSITIVE_INFINITY && !signal) return promise;
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) {
      promise.catch(ignoreLoser);
      return reject(signal.reason);
    }
    let done = false;
    const finish = (): boolean => {
      if (done) return false;
      done = true;
      timer?.cancel();
      signal?.removeEventListener("abort", onAbort);
      return true;
    };
    const onAbort = (): void => {
      if (finish()) reject(signal!.reason);
    };
    const timer = timeoutMs === Number.POSITIVE_INFINITY ? undefined : time.setTimer(() => {
      if (finish()) {
        reject(
          options.error ? options.error() : new TimeoutError(`Timed out after ${timeoutMs} ms`, timeoutMs),
        );
      }
    }, timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        if (finish()) resolve(value);
      },
      (error: unknown) => {
        if (finish()) reject(error);
      },
    );
  });
}

/** Resolves with true when `promise` settles within `timeoutMs`, false when time runs out first; never rejects. */
export function settlesWithin(
  time: TimeProvider,
  promise: Promise<unknown>,
  timeoutMs: number,
): Promise<boolean> {
  const timedOut = {};
  return withTimeout(time, promise, timeoutMs, { error: () => timedOut }).then(
    () => true,
    (error: unknown) => error !== timedOut,
  );
}

/** A signal that aborts after a time, and the way to stop that timer early. */
export interface TimeoutSignal extends Disposable {
  readonly signal: AbortSignal;
  /** Cancels the timer; the signal then aborts only with its parent. */
  clear(): void;
}

/** Options of {@linkcode timeoutSignal}. */
export interface TimeoutSignalOptions {
  /** The abort reason when time runs out. Default: a {@linkcode TimeoutError} naming `timeoutMs`. */
  reason?: () => unknown;
  /** A parent: the signal also aborts, with the same reason, when this one does. */
  signal?: AbortSignal;
}

/**
 * An `AbortSignal` that aborts `timeoutMs` from now on `time` (the kit's `AbortSignal.timeout`,
 * cancellable, and optionally tied to a parent signal). Call `clear()` (or dispose it) when the
 * guarded work ends, so no timer is left pending.
 *
 * @example
 * ```ts
 * declare const time: TimeProvider, connection: JsonRpcConnection, callerSignal: AbortSignal;
 * using deadline = timeoutSignal(time, 5_000, { signal: callerSignal });
 * await connection.request("tools/list", {}, { signal: deadline.signal });
 * ```
 */
export function timeoutSignal(
  time: TimeProvider,
  timeoutMs: number,
  options: TimeoutSignalOptions = {},
): TimeoutSignal {
  const controller = new AbortController();
  const parent = options.signal;
  const onParentAbort = (): void => {
    clear();
    controller.abort(parent!.reason);
  };
  const timer = timeoutMs === Number.POSITIVE_INFINITY || parent?.aborted ? undefined : time.setTimer(() => {
    parent?.removeEventListener("abort", onParentAbort);
    controller.abort(
      options.reason ? options.reason() : new TimeoutError(`Timed out after ${timeoutMs} ms`, timeoutMs),
    );
  }, timeoutMs);
  const clear = (): void => {
    timer?.cancel();
    parent?.removeEventListener("abort", onParentAbort);
  };
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  return { signal: controller.signal, clear, [Symbol.dispose]: clear };
}

/** A timer that can be pushed back: see {@linkcode deadline}. */
export interface Deadline {
  /** Starts the full time again from now. */
  restart(): void;
  /** Stops it for good; `onExpire` will not run. */
  cancel(): void;
}

/**
 * Runs `onExpire` once `timeoutMs` passes without a `restart()`: a no-progress deadline, such as a
 * drain's, that every bit of progress pushes back.
 *
 * @example
 * ```ts
 * declare const time: TimeProvider, writer: { onBlock: (() => void) | undefined };
 * declare function giveUp(): void;
 * const idle = deadline(time, 5_000, () => giveUp());
 * writer.onBlock = idle.restart;
 * ```
 */
export function deadline(time: TimeProvider, timeoutMs: number, onExpire: () => void): Deadline {
  let timer = time.setTimer(onExpire, timeoutMs);
  let cancelled = false;
  return {
    restart: () => {
      if (cancelled) return;
      timer.cancel();
      timer = time.setTimer(onExpire, timeoutMs);
    },
    cancel: () => {
      cancelled = true;
      timer.cancel();
    },
  };
}

function ignoreLoser(): void {
  // The race is decided; the loser's outcome has no one left to hear it.
}
