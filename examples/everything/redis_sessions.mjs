// @ts-check
// With --redis: the everything server keeps its legacy sessions, the events of its resumable
// streams and the relay of replies to server-to-client requests in Redis, so any replica serves any
// session (no pinning) and a replica's death loses none (see ./server.mjs, examples/deploy).
import { RedisEventStore, RedisReplyRelay, RedisSessionStore } from "onemodelcontext/redis";

/**
 * The createHttpHandler options that put sessions, stream events and replies in Redis.
 * @param {{
 *   publisher: import("onemodelcontext/redis").RedisCommandClient & import("onemodelcontext/redis").RedisPublisher,
 *   subscriber: import("onemodelcontext/redis").RedisReplyRelayOptions["subscriber"],
 *   onReport?: (error: Error) => void,
 * }} redis a command connection and a subscriber connection (node-redis or ioredis)
 */
export async function redisSessionOptions({ publisher, subscriber, onReport }) {
  const replyRelay = await RedisReplyRelay.open({
    publisher,
    subscriber,
    channel: "everything:replies",
    onReport,
  });
  return {
    sessionStore: new RedisSessionStore({ client: publisher, keyPrefix: "everything:" }),
    resumability: { eventStore: new RedisEventStore({ client: publisher, keyPrefix: "everything:" }) },
    replyRelay,
  };
}
