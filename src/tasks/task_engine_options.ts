/**
 * Reading the options of a {@linkcode TaskEngine} that `integerOption` does not cover.
 * @module
 */
import { InvalidOptionError } from "../wire/errors.ts";

/** `ttlMs`: a positive integer, `null` for unlimited, one hour when absent. */
export function ttlOption(ttl: number | null | undefined): number | null {
  if (ttl !== null && ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1)) {
    throw new InvalidOptionError(`Option ttlMs must be a positive integer or null, got ${String(ttl)}`);
  }
  return ttl === undefined ? 3_600_000 : ttl;
}

/** Reports anything thrown to `onReport` as an `Error`; a throwing `onReport` is ignored. */
export function reporterOf(onReport: ((error: Error) => void) | undefined): (error: unknown) => void {
  return (error) => {
    try {
      onReport?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // Nowhere further to report to.
    }
  };
}
