/**
 * {@linkcode RedisOAuthLock}: one refresh at a time among every replica and process sharing tokens
 * through Redis.
 * @module
 */
import { AuthError } from "../auth/errors.ts";
import type { OAuthLock } from "../auth/oauth_lock.ts";
import { integerOption } from "../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";
import type { IoredisCommands, NodeRedisCommands } from "./redis_commands.ts";

/** Options of {@linkcode RedisOAuthLock}. Times in milliseconds. */
export interface RedisOAuthLockOptions {
  /**
   * Prefix of the lock keys.
   * @default "onemodelcontext:oauth-lock:"
   */
  prefix?: string;
  /**
   * How long the lock lives when its holder dies without releasing it (Redis `PX`); keep it above
   * the slowest token request.
   * @default 30_000
   */
  leaseTime?: number;
  /**
   * How long to wait for the lock before rejecting with `AuthError` code `lock_timeout`.
   * @default 30_000
   */
  acquireTimeout?: number;
  /**
   * How often a waiter tries again.
   * @default 20
   */
  pollInterval?: number;
  /**
   * The clock of the waits.
   * @default the system clock
   */
  time?: TimeProvider;
}

/** Deletes the key only when it still holds this holder's value: a lease that expired is never released twice. */
const RELEASE =
  'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';

/**
 * `SET key holder NX PX leaseTime` to take the lock, a compare-and-delete script to release it; the
 * client is typed structurally (node-redis or ioredis), never imported.
 *
 * @example
 * ```ts
 * declare const sharedStorage: StorageLike; // shared by the replicas
 * declare const redis: RedisCommandClient; // a connected node-redis or ioredis client
 * const store = new WebStorageOAuthStore(sharedStorage, { lock: new RedisOAuthLock(redis) });
 * ```
 */
export class RedisOAuthLock implements OAuthLock {
  #command: (args: string[]) => Promise<unknown>;
  #prefix: string;
  #leaseTime: number;
  #acquireTimeout: number;
  #pollInterval: number;
  #time: TimeProvider;

  constructor(client: NodeRedisCommands | IoredisCommands, options: RedisOAuthLockOptions = {}) {
    if ("sendCommand" in client && typeof client.sendCommand === "function") {
      this.#command = (args) => client.sendCommand(args);
    } else if ("call" in client && typeof client.call === "function") {
      this.#command = ([command, ...args]) => client.call(command!, ...args);
    } else {
      throw new AuthError("invalid_option", "RedisOAuthLock needs a node-redis or ioredis client");
    }
    this.#prefix = options.prefix ?? "onemodelcontext:oauth-lock:";
    this.#leaseTime = integerOption("leaseTime", options.leaseTime, 30_000, 1);
    this.#acquireTimeout = integerOption("acquireTimeout", options.acquireTimeout, 30_000, 0);
    this.#pollInterval = integerOption("pollInterval", options.pollInterval, 20, 1);
    this.#time = options.time ?? systemTimeProvider;
  }

  async withLock<T>(key: string, critical: () => Promise<T>): Promise<T> {
    const redisKey = `${this.#prefix}${key}`;
    const holder = crypto.randomUUID();
    const deadline = this.#time.now() + this.#acquireTimeout;
    while ((await this.#command(["SET", redisKey, holder, "NX", "PX", String(this.#leaseTime)])) !== "OK") {
      if (this.#time.now() >= deadline) {
        throw new AuthError(
          "lock_timeout",
          `The OAuth lock ${JSON.stringify(redisKey)} was still held after ${this.#acquireTimeout} ms`,
        );
      }
      await new Promise<void>((resolve) => this.#time.setTimer(resolve, this.#pollInterval));
    }
    try {
      return await critical();
    } finally {
      await this.#command(["EVAL", RELEASE, "1", redisKey, holder]).catch(() => {});
    }
  }
}
