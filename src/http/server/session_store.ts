/**
 * Legacy sessions that outlive their replica: {@linkcode SessionStore}, where a session's state
 * (negotiated version, client capabilities and info, log level, subscriptions) lives so any replica
 * can serve its next request, and {@linkcode ReplyRelay}, which carries a client's answer to a
 * server-to-client request to the replica whose handler waits for it.
 * @module
 */
import type { LegacySession } from "../../server/dispatch_context.ts";
import { integerOption } from "../../stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../../stream/time_provider.ts";
import type { JsonRpcError } from "../../wire/errors.ts";
import type { RequestId } from "../../wire/json_rpc_message.ts";

/**
 * Where legacy sessions are kept between requests (`createHttpHandler`'s `sessionStore`). Without
 * one a session lives in its replica's memory only (pin sessions, or lose them with the replica).
 * `RedisSessionStore` (`onemodelcontext/redis`) shares them between replicas.
 */
export interface SessionStore {
  /** The state of session `id`, or `undefined` when it is unknown or expired. */
  load(id: string): Promise<LegacySession | undefined> | LegacySession | undefined;
  /** Keeps `state` for session `id` for `ttl` milliseconds (each save renews it). */
  save(id: string, state: LegacySession, ttl: number): Promise<void> | void;
  /** Forgets session `id` (the client ended it with DELETE). */
  delete(id: string): Promise<void> | void;
}

/** A client's answer to a server-to-client request, on its way to the waiting replica. */
export interface RelayedReply {
  readonly sessionId: string;
  readonly id: RequestId;
  readonly outcome: { result: unknown } | { error: JsonRpcError };
}

/**
 * Carries replies the receiving replica has no waiting request for to every replica
 * (`createHttpHandler`'s `replyRelay`); the one waiting settles it. `RedisReplyRelay`
 * (`onemodelcontext/redis`) does it over pub/sub.
 */
export interface ReplyRelay {
  /** Sends `reply` to every replica (this one included or not: a settled reply is ignored). */
  publish(reply: RelayedReply): Promise<void>;
  /** Calls `onReply` for each reply published by any replica; returns the unsubscribe function. */
  subscribe(onReply: (reply: RelayedReply) => void): () => void;
}

/** Options of {@linkcode MemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /**
   * Sessions kept at most; the least recently saved goes first. Default 10 000.
   * @default 10000
   */
  maxSessions?: number;
  /**
   * Clock of the TTLs. Default the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
}

/**
 * Sessions in this process's memory, each until its TTL runs out, at most `maxSessions`. Shares
 * sessions between handlers of one process (tests, several endpoints); across processes use
 * `RedisSessionStore`.
 *
 * @example
 * ```ts
 * declare const server: ContextServer;
 * const sessionStore = new MemorySessionStore();
 * const a = createHttpHandler(server, { sessions: true, sessionStore });
 * const b = createHttpHandler(server, { sessions: true, sessionStore }); // serves a's sessions too
 * ```
 */
export class MemorySessionStore implements SessionStore {
  readonly maxSessions: number;
  readonly #time: TimeProvider;
  readonly #entries = new Map<string, { state: string; expires: number }>();

  constructor(options: MemorySessionStoreOptions = {}) {
    this.maxSessions = integerOption("maxSessions", options.maxSessions, 10_000, 1);
    this.#time = options.timeProvider ?? systemTimeProvider;
  }

  /** Sessions held now (expired ones included until next touched). */
  get size(): number {
    return this.#entries.size;
  }

  load(id: string): LegacySession | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    if (entry.expires <= this.#time.now()) {
      this.#entries.delete(id);
      return undefined;
    }
    return JSON.parse(entry.state) as LegacySession;
  }

  save(id: string, state: LegacySession, ttl: number): void {
    this.#entries.delete(id); // re-inserted last: the map's order is the order of saves
    this.#entries.set(id, { state: JSON.stringify(state), expires: this.#time.now() + ttl });
    while (this.#entries.size > this.maxSessions) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  delete(id: string): void {
    this.#entries.delete(id);
  }
}
