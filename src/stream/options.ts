/**
 * Validation shared by every options object: a clear {@linkcode InvalidOptionError} naming the option.
 * @module
 */
import { InvalidOptionError } from "../wire/errors.ts";

/** Returns `value` when it is a finite number ≥ `min`, `fallback` when undefined; throws otherwise. */
export function numberOption(name: string, value: unknown, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value < min) {
    throw new InvalidOptionError(`Option ${name} must be a number >= ${min}, got ${String(value)}`);
  }
  return value;
}

/** Like {@linkcode numberOption}, and also requires an integer. */
export function integerOption(name: string, value: unknown, fallback: number, min = 0): number {
  const n = numberOption(name, value, fallback, min);
  if (!Number.isInteger(n) && Number.isFinite(n)) {
    throw new InvalidOptionError(`Option ${name} must be an integer, got ${n}`);
  }
  return n;
}
