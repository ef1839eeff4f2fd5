/**
 * `onemodelcontext/middleware`: the built-in middleware of `ContextServer.use()`: a token-bucket rate
 * limiter (in memory here; `RedisRateLimitStore` in `onemodelcontext/redis` shares it across
 * replicas), a response cache for list methods, and a request log with timings.
 *
 * @example
 * ```ts
 * import { ContextServer } from "onemodelcontext";
 * import { logRequests, rateLimit, responseCache } from "onemodelcontext/middleware";
 *
 * const server = new ContextServer({ name: "limited", version: "1.0.0" });
 * server
 *   .use(logRequests((entry) => console.error(entry.method, entry.outcome, entry.durationMs)))
 *   .use(rateLimit({ limit: 100, intervalMs: 60_000 }))
 *   .use(responseCache({ ttlMs: 5_000 }));
 * ```
 * @module
 */
export type { Middleware, MiddlewareContext } from "./server/middleware.ts";
export { rateLimit, type RateLimitOptions } from "./server/middleware/rate_limit.ts";
export {
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  type RateLimitStore,
  type TakeResult,
  type TokenBucket,
} from "./server/middleware/rate_limit_store.ts";
export { RATE_LIMITED_CODE, RateLimitedError } from "./server/middleware/rate_limited_error.ts";
export { responseCache, type ResponseCacheOptions } from "./server/middleware/response_cache.ts";
export {
  logRequests,
  type RequestLogEntry,
  type RequestLogOptions,
} from "./server/middleware/request_log.ts";
