/**
 * `RedisListenBus`: the listen bus across processes over Redis pub/sub, typed structurally so the
 * package imports no Redis client: pass your own `redis` (node-redis v4 and later) or `ioredis`
 * clients, one for publishing and a dedicated one in subscriber mode.
 * @module
 */
import { InProcessListenBus } from "../server/features/listen/in_process_listen_bus.ts";
import type { ListenBus, ListenEvent, ListenEventHandler } from "../server/features/listen/listen_bus.ts";
import {
  checkListenEvent,
  decodeListenMessage,
  DEFAULT_MAX_LISTEN_MESSAGE_BYTES,
  encodeListenMessage,
} from "../server/features/listen/listen_event_codec.ts";
import { withTimeout } from "../stream/time_kit.ts";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";
import { ClosedError, InvalidOptionError, TimeoutError } from "../wire/errors.ts";

/** What the bus needs of the publishing client: `publish` (node-redis and ioredis both have it). */
export interface RedisPublisher {
  publish(channel: string, message: string): Promise<unknown>;
}

/** An event emitter, as both clients are: the bus listens for `ready` (and `message` on ioredis). */
interface RedisEvents {
  on(event: string, listener: (...args: string[]) => void): unknown;
  removeListener(event: string, listener: (...args: string[]) => void): unknown;
}

/**
 * A node-redis (`redis` v4 and later) client in subscriber mode, usually `client.duplicate()` after
 * `connect()`: `subscribe(channel, listener)` with a per-channel listener; `isOpen` tells it apart.
 */
export interface NodeRedisSubscriber extends RedisEvents {
  readonly isOpen: boolean;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  unsubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
}

/**
 * An `ioredis` client for subscribing (a dedicated connection: it enters subscriber mode):
 * `subscribe(channel)` and `message` events; `status` tells it apart.
 */
export interface IoredisSubscriber extends RedisEvents {
  readonly status: string;
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
}

/** Options of {@linkcode RedisListenBus.open}. */
export interface RedisListenBusOptions {
  /** Publishes events: any connected client (not the subscriber connection). */
  publisher: RedisPublisher;
  /** Receives events: a connection dedicated to subscribing (node-redis or ioredis). */
  subscriber: NodeRedisSubscriber | IoredisSubscriber;
  /**
   * The pub/sub channel every replica of one server uses.
   * @default "onemodelcontext:listen"
   */
  channel?: string;
  /**
   * This replica's id, the `origin` of what it publishes.
   * @default a random UUID
   */
  replicaId?: string;
  /**
   * Bound of one message, in UTF-8 bytes, both ways.
   * @default 16_384 (16 KiB)
   */
  maxMessageBytes?: number;
  /**
   * How long `publish` waits for Redis before it rejects with `TimeoutError`, in ms.
   * @default 5000
   */
  publishTimeout?: number;
  /**
   * The clock of `publishTimeout`.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /** Malformed or oversized received messages, and errors thrown by handlers. Never thrown into a handler. */
  onReport?: (error: Error) => void;
}

type Unsubscribe = () => Promise<unknown>;

/**
 * Carries listen events between replicas over one Redis pub/sub channel. A published event is
 * delivered to this replica's handlers at once and sent to Redis; when it comes back from Redis, this
 * replica recognises its own `origin` and does not deliver it again. Each message is
 * `{"v":1,"origin":…,"event":…}`, at most `maxMessageBytes`; anything else received is reported
 * through `onReport` and dropped.
 *
 * Redis pub/sub is at most once: while a replica's subscriber connection is down, what others
 * publish is lost to it. Both clients reconnect and resubscribe by themselves; when the subscriber
 * emits `ready` again, the bus delivers `{ type: "resync" }` to its handlers (treat every list and
 * every subscribed resource as changed). The bus never closes or quits the clients it was given.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { RedisListenBus } from "onemodelcontext/redis";
 *
 * const publisher = await createClient({ url: process.env.REDIS_URL }).connect();
 * const subscriber = await publisher.duplicate().connect();
 * const bus = await RedisListenBus.open({ publisher, subscriber });
 * bus.subscribe((event) => console.log(event));
 * await bus.publish({ type: "list_changed", list: "tools" });
 * ```
 */
export class RedisListenBus implements ListenBus {
  readonly replicaId: string;
  /** The pub/sub channel. */
  readonly channel: string;
  readonly #local: InProcessListenBus;
  readonly #publisher: RedisPublisher;
  readonly #subscriber: NodeRedisSubscriber | IoredisSubscriber;
  readonly #maxMessageBytes: number;
  readonly #publishTimeout: number;
  readonly #time: TimeProvider;
  readonly #onReport: ((error: Error) => void) | undefined;
  #unsubscribe: Unsubscribe | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #onReady = (): void => {
    if (!this.#closed && this.#unsubscribe) this.#local.deliver({ type: "resync", origin: this.replicaId });
  };

  private constructor(options: RedisListenBusOptions) {
    const { publisher, subscriber } = options;
    if (typeof publisher?.publish !== "function") {
      throw new InvalidOptionError("Option publisher must be a Redis client with publish(channel, message)");
    }
    if (!isNodeRedis(subscriber) && !isIoredis(subscriber)) {
      throw new InvalidOptionError(
        "Option subscriber must be a node-redis client (isOpen, subscribe(channel, listener)) or an ioredis client (status, subscribe(channel), message events)",
      );
    }
    const channel = options.channel ?? "onemodelcontext:listen";
    if (typeof channel !== "string" || channel.length === 0) {
      throw new InvalidOptionError(
        `Option channel must be a non-empty string, got ${JSON.stringify(channel)}`,
      );
    }
    const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_LISTEN_MESSAGE_BYTES;
    if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 64) {
      throw new InvalidOptionError(
        `Option maxMessageBytes must be an integer of at least 64, got ${String(maxMessageBytes)}`,
      );
    }
    const publishTimeout = options.publishTimeout ?? 5_000;
    if (typeof publishTimeout !== "number" || Number.isNaN(publishTimeout) || publishTimeout <= 0) {
      throw new InvalidOptionError(
        `Option publishTimeout must be a positive number of milliseconds, got ${String(publishTimeout)}`,
      );
    }
    this.#onReport = options.onReport;
    this.#local = new InProcessListenBus({
      replicaId: options.replicaId,
      onReport: (error) => this.#report(error),
    });
    this.replicaId = this.#local.replicaId;
    this.channel = channel;
    this.#publisher = publisher;
    this.#subscriber = subscriber;
    this.#maxMessageBytes = maxMessageBytes;
    this.#publishTimeout = publishTimeout;
    this.#time = options.timeProvider ?? systemTimeProvider;
  }

  /** Subscribes to the channel and resolves with the bus once Redis confirmed the subscription. */
  static async open(options: RedisListenBusOptions): Promise<RedisListenBus> {
    const bus = new RedisListenBus(options);
    await bus.#start();
    return bus;
  }

  async #start(): Promise<void> {
    const subscriber = this.#subscriber;
    const channel = this.channel;
    const onMessage = (message: unknown): void => this.#receive(message);
    if (isNodeRedis(subscriber)) {
      const listener = (message: string): void => onMessage(message);
      await subscriber.subscribe(channel, listener);
      this.#unsubscribe = () => subscriber.unsubscribe(channel, listener);
    } else {
      const listener = (from: string, message: string): void => {
        if (from === channel) onMessage(message);
      };
      subscriber.on("message", listener);
      try {
        await subscriber.subscribe(channel);
      } catch (error) {
        subscriber.removeListener("message", listener);
        throw error;
      }
      this.#unsubscribe = () => {
        subscriber.removeListener("message", listener);
        return subscriber.unsubscribe(channel);
      };
    }
    subscriber.on("ready", this.#onReady);
  }

  /**
   * Delivers `event` here, then publishes it to every other replica. Rejects with
   * `MessageTooLargeError` (nothing delivered), `ClosedError`, `TimeoutError` after `publishTimeout`,
   * or the client's own error.
   */
  async publish(event: ListenEvent): Promise<void> {
    if (this.#closed) throw new ClosedError("The Redis listen bus is closed");
    checkListenEvent(event);
    const message = encodeListenMessage(event, this.replicaId, this.#maxMessageBytes);
    this.#local.deliver({ ...event, origin: this.replicaId });
    await withTimeout(this.#time, this.#publisher.publish(this.channel, message), this.#publishTimeout, {
      error: () =>
        new TimeoutError(
          `Publishing a listen event to Redis channel ${
            JSON.stringify(this.channel)
          } timed out after ${this.#publishTimeout} ms`,
          this.#publishTimeout,
        ),
    });
  }

  subscribe(handler: ListenEventHandler): () => void {
    return this.#local.subscribe(handler);
  }

  /**
   * Stops delivering and unsubscribes from the channel; the clients stay open (they are yours). Never
   * rejects: an unsubscribe that fails, or takes longer than `publishTimeout` (Redis down), is reported.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#subscriber.removeListener("ready", this.#onReady);
      await this.#local.close();
      const unsubscribe = this.#unsubscribe;
      this.#unsubscribe = undefined;
      if (!unsubscribe) return;
      try {
        await withTimeout(this.#time, Promise.resolve().then(unsubscribe), this.#publishTimeout, {
          error: () =>
            new TimeoutError(
              `Unsubscribing from Redis channel ${
                JSON.stringify(this.channel)
              } timed out after ${this.#publishTimeout} ms`,
              this.#publishTimeout,
            ),
        });
      } catch (error) {
        this.#report(error instanceof Error ? error : new Error(String(error)));
      }
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #receive(message: unknown): void {
    if (this.#closed) return;
    const decoded = decodeListenMessage(message, this.#maxMessageBytes);
    if (!decoded.ok) return this.#report(decoded.error);
    if (decoded.event.origin === this.replicaId) return; // delivered when it was published
    this.#local.deliver(decoded.event);
  }

  #report(error: Error): void {
    try {
      this.#onReport?.(error);
    } catch {
      // A failing reporter must not stop delivery, and has nowhere else to report to.
    }
  }
}

export function isNodeRedis(client: unknown): client is NodeRedisSubscriber {
  const c = client as Partial<NodeRedisSubscriber> | null | undefined;
  return typeof c?.isOpen === "boolean" && typeof c.subscribe === "function" && typeof c.on === "function";
}

export function isIoredis(client: unknown): client is IoredisSubscriber {
  const c = client as Partial<IoredisSubscriber> | null | undefined;
  return typeof c?.status === "string" && typeof c.subscribe === "function" && typeof c.on === "function";
}
