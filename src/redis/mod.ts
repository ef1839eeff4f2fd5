/**
 * `onemodelcontext/redis`: the listen bus over Redis pub/sub and the shared rate limit store
 * (`RedisRateLimitStore`, for `rateLimit()` of `onemodelcontext/middleware`), for servers run as several replicas.
 * Typed structurally: bring your own `redis` (v4 and later) or `ioredis` clients; this entry imports neither.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis";
 * import { RedisListenBus } from "onemodelcontext/redis";
 *
 * const bus = await RedisListenBus.open({ publisher: new Redis(), subscriber: new Redis() });
 * bus.subscribe((event) => console.log(event.type, event.origin));
 * ```
 * @module
 */
export {
  type IoredisSubscriber,
  type NodeRedisSubscriber,
  RedisListenBus,
  type RedisListenBusOptions,
  type RedisPublisher,
} from "./redis_listen_bus.ts";
export {
  type IoredisScriptClient,
  type NodeRedisScriptClient,
  RedisRateLimitStore,
  type RedisRateLimitStoreOptions,
} from "./redis_rate_limit_store.ts";
export type {
  ListenBus,
  ListenBusEvent,
  ListenEvent,
  ListenEventHandler,
  ListenList,
} from "../server/features/listen/listen_bus.ts";
export {
  decodeListenMessage,
  DEFAULT_MAX_LISTEN_MESSAGE_BYTES,
  encodeListenMessage,
  LISTEN_MESSAGE_VERSION,
  ListenMessageTooLargeError,
} from "../server/features/listen/listen_event_codec.ts";
export { RedisOAuthLock, type RedisOAuthLockOptions } from "./redis_oauth_lock.ts";

// Resumable streams and legacy sessions across replicas.
export { RedisSessionStore, type RedisSessionStoreOptions } from "./redis_session_store.ts";
export {
  DEFAULT_REDIS_MAX_EVENTS_PER_STREAM,
  DEFAULT_REDIS_MAX_STREAM_BYTES,
  RedisEventStore,
  type RedisEventStoreOptions,
} from "./redis_event_store.ts";
export {
  DEFAULT_MAX_RELAYED_REPLY_BYTES,
  RedisReplyRelay,
  type RedisReplyRelayOptions,
} from "./redis_reply_relay.ts";
export type { IoredisCommands, NodeRedisCommands, RedisCommandClient } from "./redis_commands.ts";
export {
  type IoredisCommandClient,
  type NodeRedisCommandClient,
  RedisTaskStore,
  type RedisTaskStoreOptions,
} from "./redis_task_store.ts";
export { taskEventsOverBus } from "../server/features/task_events_over_bus.ts";
