/**
 * `RateLimitedError`: the JSON-RPC error of a request a rate limiter refused. Over HTTP it is
 * answered with status 429 and `Retry-After`; on a stream it is the JSON-RPC error itself.
 * @module
 */
import { JsonRpcError } from "../../wire/errors.ts";

/** The JSON-RPC error code of a refused request (implementation-defined server error range). */
export const RATE_LIMITED_CODE = -32029;

/** A request refused by a rate limiter; `data.retryAfterMs` says when one token is back. */
export class RateLimitedError extends JsonRpcError {
  declare readonly data: { retryAfterMs: number };

  constructor(retryAfterMs: number, message = `Rate limit exceeded: retry in ${Math.ceil(retryAfterMs)} ms`) {
    super(RATE_LIMITED_CODE, message, { retryAfterMs: Math.ceil(retryAfterMs) });
  }
}

/**
 * The `Retry-After` seconds of a JSON-RPC reply that is a rate-limit refusal (at least 1), else
 * `undefined`. The HTTP handler turns such a reply into status 429.
 */
export function retryAfterSecondsOf(reply: Record<string, unknown>): number | undefined {
  const error = reply.error as { code?: unknown; data?: { retryAfterMs?: unknown } } | undefined;
  if (typeof error !== "object" || error === null || error.code !== RATE_LIMITED_CODE) return undefined;
  const ms = error.data?.retryAfterMs;
  return typeof ms === "number" && ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 1;
}
