/**
 * `ListenReconnectOptions`: how a broken modern listen stream over HTTP reopens, with bounded
 * exponential backoff and jitter, and which failures reopen it at all.
 * @module
 */
import { InvalidOptionError, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import { integerOption, numberOption } from "../../stream/options.ts";

/**
 * How a `subscriptions/listen` stream over HTTP reopens after it broke off (the replica holding it
 * died, a proxy answered 502/503/504) or after the server ended it gracefully (a replica shutting
 * down). Attempt `n` in a row waits a random point between half and all of
 * `min(initialDelay × factor^(n-1), maxDelay)`; a reopened stream that stays acknowledged for
 * `maxDelay` starts the count again (one acknowledged and ended at once does not).
 */
export interface ListenReconnectOptions {
  /**
   * The wait before the first attempt, in ms (before jitter). Default 500.
   * @default 500
   */
  initialDelay?: number;
  /**
   * The longest wait, in ms (before jitter). Default 15 000.
   * @default 15000
   */
  maxDelay?: number;
  /**
   * Each attempt in a row multiplies the wait by this. Default 2.
   * @default 2
   */
  factor?: number;
  /**
   * Attempts in a row (no stream in between stayed open `maxDelay`) before the stream ends with `listen_ended`. Default 8.
   * @default 8
   */
  maxAttempts?: number;
}

/** {@linkcode ListenReconnectOptions} with every default filled in. */
export type ListenReconnectPolicy = Required<ListenReconnectOptions>;

/** Checks `options` (`false`: no reconnection) and fills in the defaults. */
export function listenReconnectPolicy(
  options: ListenReconnectOptions | false | undefined,
): ListenReconnectPolicy | undefined {
  if (options === false) return undefined;
  if (options !== undefined && !isPlainObject(options)) {
    throw new InvalidOptionError(
      `Option listenReconnect must be an object or false, got ${JSON.stringify(options)}`,
    );
  }
  const o = options ?? {};
  const policy = {
    initialDelay: numberOption("listenReconnect.initialDelay", o.initialDelay, 500),
    maxDelay: numberOption("listenReconnect.maxDelay", o.maxDelay, 15_000),
    factor: numberOption("listenReconnect.factor", o.factor, 2, 1),
    maxAttempts: integerOption("listenReconnect.maxAttempts", o.maxAttempts, 8, 1),
  };
  if (!Number.isFinite(policy.maxAttempts)) {
    throw new InvalidOptionError(
      "Option listenReconnect.maxAttempts must be finite (the bound), got Infinity",
    );
  }
  return policy;
}

/** The wait before attempt `attempt` (1-based) in a row: equal jitter over the capped exponential delay. */
export function listenReconnectDelay(
  policy: ListenReconnectPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const capped = Math.min(policy.initialDelay * policy.factor ** (attempt - 1), policy.maxDelay);
  return capped / 2 + (capped / 2) * random();
}

/**
 * True for a failure that a listen stream outlives by reopening: its response stream broke (`code`
 * `read_failed`: a connection reset, a stream cut before its result) or a proxy or overloaded server
 * answered 5xx, 408 or 429. A JSON-RPC error (the server refused the listen) and a closed client do not.
 */
export function isReopenable(error: unknown): boolean {
  if (error instanceof JsonRpcError || typeof error !== "object" || error === null) return false;
  const { code, status } = error as { code?: unknown; status?: unknown };
  if (code === "read_failed") return true;
  return typeof status === "number" && (status >= 500 || status === 408 || status === 429);
}
