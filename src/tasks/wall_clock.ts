/**
 * The wall clock of tasks: their timestamps are ISO 8601 on the wire and their leases are compared
 * across replicas, so they need epoch milliseconds, read through the injected `TimeProvider`.
 * @module
 */
import type { TimeProvider } from "../stream/time_provider.ts";

/**
 * Epoch milliseconds on `time`: `performance.timeOrigin` plus `time.now()` (the system provider's
 * `now()` is `performance.now()`, so this is the host's wall clock; a fake provider moves it only on
 * `advance`).
 */
export function wallClockOf(time: TimeProvider): () => number {
  const origin = globalThis.performance?.timeOrigin ?? 0;
  return () => Math.round(origin + time.now());
}
