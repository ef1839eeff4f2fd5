/**
 * `SendProgressOptions`: what `ctx.sendProgress(progress, { total, message })` takes besides the
 * progress, and its check.
 * @module
 */
import { InvalidOptionError } from "../wire/errors.ts";
import { isPlainObject } from "../wire/meta_envelope.ts";

/** Options of `sendProgress`: the other members of `notifications/progress`. */
export interface SendProgressOptions {
  /**
   * The total `progress` is heading for, when known. Default: none sent.
   * @default none sent
   */
  total?: number;
  /**
   * A human-readable line about the progress. Default: none sent.
   * @default none sent
   */
  message?: string;
}

/**
 * `options` as {@linkcode SendProgressOptions}; throws {@linkcode InvalidOptionError} for anything
 * else, such as the old positional form `sendProgress(progress, total, message)`.
 */
export function sendProgressOptionsOf(options: unknown): SendProgressOptions {
  if (options === undefined) return {};
  if (!isPlainObject(options)) {
    throw new InvalidOptionError(
      `The second argument of sendProgress(progress, { total, message }) must be an object, got ${
        options === null ? "null" : typeof options
      }`,
    );
  }
  const { total, message } = options;
  if (total !== undefined && typeof total !== "number") {
    throw new InvalidOptionError(`Option total of sendProgress must be a number, got ${typeof total}`);
  }
  if (message !== undefined && typeof message !== "string") {
    throw new InvalidOptionError(`Option message of sendProgress must be a string, got ${typeof message}`);
  }
  return { total, message };
}
