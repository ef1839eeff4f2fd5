/**
 * The clock every timeout in the core goes through.
 *
 * `src/` never calls `setTimeout`, `Date.now` or `AbortSignal.timeout` itself: it asks the injected
 * {@linkcode TimeProvider}, so tests drive time with `FakeTimeProvider` from `onemodelcontext/testing`.
 * @module
 */

/** A scheduled callback that can be cancelled. Cancelling twice, or after it fired, does nothing. */
export interface TimerHandle {
  cancel(): void;
}

/** `now()` and cancellable one-shot timers; nothing more. */
export interface TimeProvider {
  /** Milliseconds since an arbitrary fixed origin; never goes backwards. */
  now(): number;
  /** Runs `callback` once, `delayMs` milliseconds from now. */
  setTimer(callback: () => void, delayMs: number): TimerHandle;
}

/**
 * The host's wall clock, milliseconds since the Unix epoch: only for timestamps another party sets
 * and compares (a DPoP proof's `iat`); every delay and timeout goes through a {@linkcode TimeProvider}.
 */
export function systemEpochMs(): number {
  return Date.now();
}

/** The largest delay a host timer accepts (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

interface HostTimers {
  setTimeout(callback: () => void, delay: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Wraps the host's timers. Delays above 2^31 - 1 ms are clamped (hosts otherwise fire them at once);
 * negative or NaN delays count as zero. Every timer the library starts is cancelled when the resource
 * that started it closes, so none outlives its owner.
 */
export class SystemTimeProvider implements TimeProvider {
  now(): number {
    return globalThis.performance.now();
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const host = globalThis as unknown as HostTimers;
    const delay = Number.isFinite(delayMs)
      ? Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS)
      : delayMs > 0
      ? MAX_TIMER_DELAY_MS
      : 0;
    const handle = host.setTimeout(callback, delay);
    return { cancel: () => host.clearTimeout(handle) };
  }
}

/** The shared system clock, used wherever no {@linkcode TimeProvider} is injected. */
export const systemTimeProvider: TimeProvider = new SystemTimeProvider();
