/**
 * `RateLimitStore`: where token buckets live. {@linkcode MemoryRateLimitStore} keeps them in this
 * process (a limit per replica); `RedisRateLimitStore` (`onemodelcontext/redis`) shares them across
 * replicas, so the limit holds for the whole deployment.
 * @module
 */
import { integerOption } from "../../stream/options.ts";
import type { TimeProvider } from "../../stream/time_provider.ts";
import { systemTimeProvider } from "../../stream/time_provider.ts";

/** The shape of every bucket of one limiter. */
export interface TokenBucket {
  /** Tokens a full bucket holds (the burst). */
  capacity: number;
  /** Tokens added per `refillMs`, up to `capacity`. */
  refillTokens: number;
  /** The refill period, in milliseconds. */
  refillMs: number;
  /** `"smooth"`: tokens trickle back continuously; `"interval"`: `refillTokens` come back at once, every `refillMs`. */
  refill: "smooth" | "interval";
}

/**
 * `state` brought to `now` under `bucket`, then one token taken if there is one: the arithmetic both
 * stores share (the Redis script is its Lua transcription).
 */
export function takeToken(
  state: { tokens: number; at: number },
  bucket: TokenBucket,
  now: number,
): TakeResult {
  const elapsed = Math.max(0, now - state.at);
  if (bucket.refill === "smooth") {
    state.tokens = Math.min(bucket.capacity, state.tokens + elapsed * bucket.refillTokens / bucket.refillMs);
    state.at = now;
  } else {
    const periods = Math.floor(elapsed / bucket.refillMs);
    state.tokens = Math.min(bucket.capacity, state.tokens + periods * bucket.refillTokens);
    state.at += periods * bucket.refillMs;
  }
  if (state.tokens >= 1 - ROUNDING) {
    state.tokens = Math.max(0, state.tokens - 1);
    return { allowed: true, retryAfterMs: 0 };
  }
  const retryAfterMs = bucket.refill === "smooth"
    ? Math.ceil((1 - state.tokens) * bucket.refillMs / bucket.refillTokens)
    : Math.max(1, state.at + bucket.refillMs - now);
  return { allowed: false, retryAfterMs };
}

/** The outcome of taking one token. */
export interface TakeResult {
  allowed: boolean;
  /** When refused: milliseconds until one token is back. 0 when allowed. */
  retryAfterMs: number;
}

/** Takes one token from the bucket `key`, creating it full. */
export interface RateLimitStore {
  take(key: string, bucket: TokenBucket): TakeResult | Promise<TakeResult>;
}

/** Options of {@linkcode MemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /**
   * Buckets kept at once; the least recently used goes first (its key starts again full). Default 10 000.
   * @default 10000
   */
  maxKeys?: number;
  /**
   * The clock of the refill. Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
}

/** Float error tolerated when a refill lands exactly on a whole token. */
const ROUNDING = 1e-9;

interface State {
  tokens: number;
  at: number;
}

/** Token buckets in this process, bounded in count (see {@linkcode MemoryRateLimitStoreOptions}). */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #buckets = new Map<string, State>();
  readonly #maxKeys: number;
  readonly #time: TimeProvider;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.#maxKeys = integerOption("maxKeys", options.maxKeys, 10_000, 1);
    this.#time = options.timeProvider ?? systemTimeProvider;
  }

  /** Buckets held now. */
  get size(): number {
    return this.#buckets.size;
  }

  take(key: string, bucket: TokenBucket): TakeResult {
    const now = this.#time.now();
    let state = this.#buckets.get(key);
    if (state === undefined) {
      state = { tokens: bucket.capacity, at: now };
      if (this.#buckets.size >= this.#maxKeys) this.#buckets.delete(this.#buckets.keys().next().value!);
    } else {
      this.#buckets.delete(key); // re-inserted below: the map's order is the order of use
    }
    this.#buckets.set(key, state);
    return takeToken(state, bucket, now);
  }
}
