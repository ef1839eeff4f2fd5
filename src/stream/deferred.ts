/**
 * Two tiny promise helpers shared by the core and the adapters.
 * @module
 */

/** A promise together with its resolver. */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}

/** A promise with its resolver; only the first `resolve` counts. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * A reusable wake-up: `wait()` resolves at the next `fire()`. The promise is made only when someone
 * waits, so a `fire()` with no waiter costs nothing (it runs on every message).
 */
export function wakeUp(): { wait(): Promise<void>; fire(): void } {
  let current: Deferred | undefined;
  return {
    wait: () => (current ??= deferred()).promise,
    fire: () => {
      const fired = current;
      current = undefined;
      fired?.resolve();
    },
  };
}

/** Settles like `promise`, or rejects with the signal's reason if `signal` aborts first. */
export function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then((value) => {
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    }, (error: unknown) => {
      // After an abort this rejection is the abort's echo (already answered): never unhandled.
      signal.removeEventListener("abort", onAbort);
      reject(error);
    });
  });
}
