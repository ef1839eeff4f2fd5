/**
 * `RedisReplyRelay`: a client's answer to a server-to-client request (elicitation, sampling, roots),
 * POSTed to whichever replica, reaches the replica whose handler waits for it, over Redis pub/sub.
 * @module
 */
import type { RelayedReply, ReplyRelay } from "../http/server/session_store.ts";
import { ErrorCodes, InvalidOptionError, JsonRpcError } from "../wire/errors.ts";
import type { RequestId } from "../wire/json_rpc_message.ts";
import {
  type IoredisSubscriber,
  isIoredis,
  isNodeRedis,
  type NodeRedisSubscriber,
  type RedisPublisher,
} from "./redis_listen_bus.ts";

/** The default {@linkcode RedisReplyRelayOptions.maxMessageBytes}: 1 MiB. */
export const DEFAULT_MAX_RELAYED_REPLY_BYTES = 1024 * 1024;

/** Options of {@linkcode RedisReplyRelay.open}. */
export interface RedisReplyRelayOptions {
  /** Publishes replies: any connected client (not the subscriber connection). */
  publisher: RedisPublisher;
  /** Receives replies: a connection dedicated to subscribing (node-redis or ioredis). */
  subscriber: NodeRedisSubscriber | IoredisSubscriber;
  /**
   * The channel every replica uses.
   * @default "onemodelcontext:replies"
   */
  channel?: string;
  /**
   * Bound of one relayed reply, in characters of JSON, both ways.
   * @default 1_048_576 (1 MiB)
   */
  maxMessageBytes?: number;
  /** Malformed or oversized received messages. */
  onReport?: (error: Error) => void;
}

/**
 * Publishes each reply no local request waits for on one channel; every replica hands what it
 * receives to its handler, and the one with the waiting request settles it (the others find none).
 * At most once, like Redis pub/sub: a reply published while the waiting replica's subscriber is down
 * is lost, and that request ends by its own timeout or cancellation.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { RedisReplyRelay } from "onemodelcontext/redis";
 *
 * const publisher = await createClient({ url: process.env.REDIS_URL }).connect();
 * const replyRelay = await RedisReplyRelay.open({ publisher, subscriber: await publisher.duplicate().connect() });
 * ```
 */
export class RedisReplyRelay implements ReplyRelay {
  readonly channel: string;
  readonly #publisher: RedisPublisher;
  readonly #subscriber: NodeRedisSubscriber | IoredisSubscriber;
  readonly #max: number;
  readonly #onReport: ((error: Error) => void) | undefined;
  readonly #handlers = new Set<(reply: RelayedReply) => void>();
  #unsubscribe: (() => Promise<unknown>) | undefined;

  private constructor(options: RedisReplyRelayOptions) {
    if (typeof options?.publisher?.publish !== "function") {
      throw new InvalidOptionError("Option publisher must be a Redis client with publish(channel, message)");
    }
    if (!isNodeRedis(options.subscriber) && !isIoredis(options.subscriber)) {
      throw new InvalidOptionError("Option subscriber must be a node-redis or ioredis subscriber connection");
    }
    this.#publisher = options.publisher;
    this.#subscriber = options.subscriber;
    this.channel = options.channel ?? "onemodelcontext:replies";
    this.#max = options.maxMessageBytes ?? DEFAULT_MAX_RELAYED_REPLY_BYTES;
    if (!Number.isInteger(this.#max) || this.#max < 64) {
      throw new InvalidOptionError(
        `Option maxMessageBytes must be an integer of at least 64, got ${this.#max}`,
      );
    }
    this.#onReport = options.onReport;
  }

  /** Subscribes to the channel and resolves with the relay once Redis confirmed it. */
  static async open(options: RedisReplyRelayOptions): Promise<RedisReplyRelay> {
    const relay = new RedisReplyRelay(options);
    const subscriber = relay.#subscriber;
    const channel = relay.channel;
    if (isNodeRedis(subscriber)) {
      const listener = (message: string): void => relay.#receive(message);
      await subscriber.subscribe(channel, listener);
      relay.#unsubscribe = () => subscriber.unsubscribe(channel, listener);
    } else {
      const listener = (from: string, message: string): void => {
        if (from === channel) relay.#receive(message);
      };
      subscriber.on("message", listener);
      await subscriber.subscribe(channel);
      relay.#unsubscribe = () => {
        subscriber.removeListener("message", listener);
        return subscriber.unsubscribe(channel);
      };
    }
    return relay;
  }

  async publish(reply: RelayedReply): Promise<void> {
    const outcome = "error" in reply.outcome
      ? {
        error: {
          code: reply.outcome.error.code,
          message: reply.outcome.error.message,
          data: reply.outcome.error.data,
        },
      }
      : reply.outcome;
    const message = JSON.stringify({ v: 1, sessionId: reply.sessionId, id: reply.id, ...outcome });
    if (message.length > this.#max) {
      throw new InvalidOptionError(
        `A relayed reply of ${message.length} characters exceeds maxMessageBytes (${this.#max})`,
      );
    }
    await this.#publisher.publish(this.channel, message);
  }

  subscribe(onReply: (reply: RelayedReply) => void): () => void {
    this.#handlers.add(onReply);
    return () => this.#handlers.delete(onReply);
  }

  /** Unsubscribes from the channel; the clients stay open (they are yours). */
  async close(): Promise<void> {
    this.#handlers.clear();
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = undefined;
    await unsubscribe?.().catch((error: unknown) => this.#report(error));
  }

  #receive(message: string): void {
    if (typeof message !== "string" || message.length > this.#max) {
      return this.#report(new Error(`Dropped a relayed reply over maxMessageBytes (${this.#max})`));
    }
    let value: { v?: unknown; sessionId?: unknown; id?: unknown; result?: unknown; error?: unknown };
    try {
      value = JSON.parse(message);
    } catch (error) {
      return this.#report(error);
    }
    const { sessionId, id } = value;
    if (
      value.v !== 1 || typeof sessionId !== "string" || (typeof id !== "string" && typeof id !== "number")
    ) {
      return this.#report(new Error(`Dropped a malformed relayed reply: ${message.slice(0, 100)}`));
    }
    let outcome: RelayedReply["outcome"];
    if (value.error !== undefined) {
      const error = value.error as { code?: unknown; message?: unknown; data?: unknown };
      outcome = {
        error: new JsonRpcError(
          typeof error.code === "number" ? error.code : ErrorCodes.InternalError,
          typeof error.message === "string" ? error.message : "Relayed error",
          error.data,
        ),
      };
    } else {
      outcome = { result: value.result };
    }
    for (const handler of this.#handlers) handler({ sessionId, id: id as RequestId, outcome });
  }

  #report(error: unknown): void {
    try {
      this.#onReport?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // nowhere further to report to
    }
  }
}
