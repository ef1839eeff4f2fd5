/**
 * `RedisRateLimitStore`: token buckets in Redis, shared by every replica, so a `rateLimit()` limit
 * holds for the whole deployment. One Lua script per request takes a token atomically, on Redis's
 * own clock (`TIME`), so replicas' clocks do not matter. Typed structurally: bring a `redis` (v4 and
 * later) or `ioredis` client.
 * @module
 */
import { integerOption } from "../stream/options.ts";
import { InvalidOptionError, ProtocolError } from "../wire/errors.ts";
import type { RateLimitStore, TakeResult, TokenBucket } from "../server/middleware/rate_limit_store.ts";

/** A node-redis client (`redis` v4 and later): `eval(script, { keys, arguments })`; `isOpen` tells it apart. */
export interface NodeRedisScriptClient {
  readonly isOpen: boolean;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** An `ioredis` client: `eval(script, numKeys, ...keysAndArgs)`. */
export interface IoredisScriptClient {
  readonly status: string;
  eval(script: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
}

/** Options of {@linkcode RedisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /** Any connected client (not one in subscriber mode). */
  client: NodeRedisScriptClient | IoredisScriptClient;
  /**
   * Prefix of the bucket keys.
   * @default "onemodelcontext:ratelimit:"
   */
  prefix?: string;
  /**
   * Milliseconds an idle bucket key lives in Redis (it is full again by then).
   * @default the time to refill the bucket, at least 1000
   */
  idleTtl?: number;
}

/** Takes one token; returns { allowed (0/1), milliseconds until a token is back }. */
const TAKE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local refill_tokens = tonumber(ARGV[2])
local refill_ms = tonumber(ARGV[3])
local smooth = ARGV[4] == 'smooth'
local ttl = tonumber(ARGV[5])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = capacity
  at = now
end
local elapsed = math.max(0, now - at)
if smooth then
  tokens = math.min(capacity, tokens + elapsed * refill_tokens / refill_ms)
  at = now
else
  local periods = math.floor(elapsed / refill_ms)
  tokens = math.min(capacity, tokens + periods * refill_tokens)
  at = at + periods * refill_ms
end
local allowed = 0
local wait = 0
if tokens >= 1 - 1e-9 then
  tokens = math.max(0, tokens - 1)
  allowed = 1
elseif smooth then
  wait = math.ceil((1 - tokens) * refill_ms / refill_tokens)
else
  wait = math.max(1, at + refill_ms - now)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], ttl)
return { allowed, wait }
`;

/** Token buckets in Redis (see the module note). */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #client: NodeRedisScriptClient | IoredisScriptClient;
  readonly #prefix: string;
  readonly #idleTtl: number | undefined;

  constructor(options: RedisRateLimitStoreOptions) {
    const client = options?.client;
    if (typeof client !== "object" || client === null || typeof client.eval !== "function") {
      throw new InvalidOptionError("Option client must be a connected redis or ioredis client");
    }
    this.#client = client;
    this.#prefix = options.prefix ?? "onemodelcontext:ratelimit:";
    this.#idleTtl = options.idleTtl === undefined
      ? undefined
      : integerOption("idleTtl", options.idleTtl, 0, 1);
  }

  async take(key: string, bucket: TokenBucket): Promise<TakeResult> {
    const ttl = this.#idleTtl ??
      Math.max(1_000, Math.ceil(bucket.refillMs * Math.max(1, bucket.capacity / bucket.refillTokens)));
    const args = [
      String(bucket.capacity),
      String(bucket.refillTokens),
      String(bucket.refillMs),
      bucket.refill,
      String(ttl),
    ];
    const client = this.#client;
    const reply = "isOpen" in client
      ? await client.eval(TAKE_SCRIPT, { keys: [this.#prefix + key], arguments: args })
      : await client.eval(TAKE_SCRIPT, 1, this.#prefix + key, ...args);
    if (!Array.isArray(reply) || reply.length !== 2) {
      throw new ProtocolError(`Redis answered the rate limit script with ${JSON.stringify(reply)}`);
    }
    const [allowed, wait] = reply.map(Number);
    return { allowed: allowed === 1, retryAfterMs: wait ?? 0 };
  }
}
