/**
 * `RedisSessionStore`: legacy HTTP sessions in Redis, so every replica serves every session.
 * @module
 */
import type { SessionStore } from "../http/server/session_store.ts";
import type { LegacySession } from "../server/dispatch_context.ts";
import { checkCommandClient, redisCommand, type RedisCommandClient } from "./redis_commands.ts";

/** Options of {@linkcode RedisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** A connected node-redis or ioredis client. */
  client: RedisCommandClient;
  /**
   * Prefix of the keys (`<prefix>session:<id>`).
   * @default "onemodelcontext:"
   */
  keyPrefix?: string;
}

/**
 * Each session is one key holding its state as JSON, expiring after the TTL the handler gives
 * (the session table's `idleTimeout`; every save renews it). One `GET` per session a replica meets
 * for the first time, one `SET … PX` when the state changes or half the TTL went by, `DEL` on DELETE.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { RedisSessionStore } from "onemodelcontext/redis";
 *
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const sessionStore = new RedisSessionStore({ client });
 * ```
 */
export class RedisSessionStore implements SessionStore {
  readonly keyPrefix: string;
  readonly #client: RedisCommandClient;

  constructor(options: RedisSessionStoreOptions) {
    checkCommandClient("client", options?.client);
    this.#client = options.client;
    this.keyPrefix = options.keyPrefix ?? "onemodelcontext:";
  }

  async load(id: string): Promise<LegacySession | undefined> {
    const text = await redisCommand(this.#client, ["GET", this.#key(id)]);
    if (typeof text !== "string") return undefined;
    return JSON.parse(text) as LegacySession;
  }

  async save(id: string, state: LegacySession, ttl: number): Promise<void> {
    const ms = Math.max(1, Math.min(Math.round(ttl), 2 ** 47));
    await redisCommand(this.#client, ["SET", this.#key(id), JSON.stringify(state), "PX", String(ms)]);
  }

  async delete(id: string): Promise<void> {
    await redisCommand(this.#client, ["DEL", this.#key(id)]);
  }

  #key(id: string): string {
    return `${this.keyPrefix}session:${id}`;
  }
}
