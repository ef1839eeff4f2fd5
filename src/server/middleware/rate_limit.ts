/**
 * `rateLimit()`: a token-bucket rate limiter middleware, per principal or per client by default.
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import { integerOption, numberOption } from "../../stream/options.ts";
import type { Middleware, MiddlewareContext } from "../middleware.ts";
import { MemoryRateLimitStore, type RateLimitStore, type TokenBucket } from "./rate_limit_store.ts";
import { RateLimitedError } from "./rate_limited_error.ts";

/** Options of {@linkcode rateLimit}. */
export interface RateLimitOptions {
  /** Requests allowed per `intervalMs` (the refill rate), and the burst unless `burst` is set. Required. */
  limit: number;
  /**
   * The interval of `limit`, in milliseconds. Default 60 000.
   * @default 60000
   */
  intervalMs?: number;
  /**
   * Tokens a full bucket holds. Default `limit`.
   * @default limit
   */
  burst?: number;
  /**
   * `"smooth"` (default): tokens trickle back at `limit / intervalMs`; `"interval"`: `limit` tokens
   * come back at once every `intervalMs` after a bucket's first use (at most `limit` per interval).
   */
  refill?: "smooth" | "interval";
  /**
   * The bucket of a request. Default `ctx.clientKey` (the principal, else the session or stream, else one shared bucket).
   * @default ctx.clientKey
   */
  key?: (context: MiddlewareContext) => string;
  /**
   * Methods never limited. Default `["ping", "initialize", "server/discover"]`.
   * @default `["ping"
   */
  exempt?: readonly string[];
  /**
   * Where buckets live. Default a {@linkcode MemoryRateLimitStore} (this process only).
   * @default a {@linkcode MemoryRateLimitStore}
   */
  store?: RateLimitStore;
}

/**
 * Refuses requests beyond `limit` per `intervalMs` per key with a {@linkcode RateLimitedError}
 * (HTTP: 429 with `Retry-After`; a stream: the JSON-RPC error, code -32029).
 *
 * @example
 * ```ts ignore
 * server.use(rateLimit({ limit: 100 })); // 100 requests a minute per client
 * ```
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  if (typeof options !== "object" || options === null) {
    throw new InvalidOptionError("Option limit: rateLimit() needs { limit }");
  }
  const limit = numberOption("limit", options.limit, Number.NaN, 1);
  if (Number.isNaN(limit)) throw new InvalidOptionError("Option limit is required (requests per intervalMs)");
  const intervalMs = numberOption("intervalMs", options.intervalMs, 60_000, 1);
  const refill = options.refill ?? "smooth";
  if (refill !== "smooth" && refill !== "interval") {
    throw new InvalidOptionError(
      `Option refill must be "smooth" or "interval", got ${JSON.stringify(refill)}`,
    );
  }
  const bucket: TokenBucket = {
    capacity: integerOption("burst", options.burst, Math.max(1, Math.floor(limit)), 1),
    refillTokens: limit,
    refillMs: intervalMs,
    refill,
  };
  const keyOf = options.key ?? ((context: MiddlewareContext) => context.clientKey);
  const exempt = new Set(options.exempt ?? ["ping", "initialize", "server/discover"]);
  const store = options.store ?? new MemoryRateLimitStore();
  return async (context, next) => {
    if (exempt.has(context.method)) return await next();
    const taken = await store.take(keyOf(context), bucket);
    if (!taken.allowed) throw new RateLimitedError(taken.retryAfterMs);
    return await next();
  };
}
