/**
 * `RedisEventStore`: the events of resumable SSE streams in Redis, so a client resumes a stream on
 * whichever replica its `GET` reaches.
 * @module
 */
import type { EventReadResult, EventStore, StoredEvent } from "../http/server/event_store.ts";
import { integerOption } from "../stream/options.ts";
import { checkCommandClient, redisCommand, type RedisCommandClient } from "./redis_commands.ts";

/** The default {@linkcode RedisEventStoreOptions.maxEventsPerStream}. */
export const DEFAULT_REDIS_MAX_EVENTS_PER_STREAM = 10_000;
/** The default {@linkcode RedisEventStoreOptions.maxStreamBytes}: 4 MiB. */
export const DEFAULT_REDIS_MAX_STREAM_BYTES = 4 * 1024 * 1024;

/** Options of {@linkcode RedisEventStore}. */
export interface RedisEventStoreOptions {
  /** A connected node-redis or ioredis client. */
  client: RedisCommandClient;
  /**
   * Prefix of the keys (`<prefix>events:<stream>`, `…:bytes`, `…:owner`).
   * @default "onemodelcontext:"
   */
  keyPrefix?: string;
  /**
   * Milliseconds a stream's events are kept after its last event.
   * @default 300_000
   */
  maxAge?: number;
  /**
   * Events one stream keeps at most; the oldest go first.
   * @default 10_000
   */
  maxEventsPerStream?: number;
  /**
   * Bytes of event data one stream keeps at most; the oldest go first.
   * @default 4_194_304 (4 MiB)
   */
  maxStreamBytes?: number;
}

// KEYS: list, owner, bytes. ARGV: session, event JSON, maxAge ms, max events, max bytes, size of this event.
// A stream's events are one list; its owner (session) and its byte count live beside it; all expire together.
const APPEND = `
local owner = redis.call('GET', KEYS[2])
if owner and owner ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
redis.call('RPUSH', KEYS[1], ARGV[2])
local bytes = redis.call('INCRBY', KEYS[3], ARGV[6])
local max = tonumber(ARGV[4])
local maxBytes = tonumber(ARGV[5])
while (redis.call('LLEN', KEYS[1]) > max) or (bytes > maxBytes and redis.call('LLEN', KEYS[1]) > 1) do
  local dropped = redis.call('LPOP', KEYS[1])
  local size = tonumber(string.match(dropped, '^(%d+)|'))
  bytes = redis.call('INCRBY', KEYS[3], -size)
  redis.call('SET', KEYS[2] .. ':evicted', '1', 'PX', ARGV[3])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
`;

/**
 * One Redis list per stream (`RPUSH`, trimmed to `maxEventsPerStream` and `maxStreamBytes`, expiring
 * `maxAge` after its last event), appended by one `EVAL` round trip per event; a resume is one `GET`
 * (the owner session) and one `LRANGE`. Another session's stream reads as unknown.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { RedisEventStore } from "onemodelcontext/redis";
 *
 * declare const server: ContextServer;
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const handler = createHttpHandler(server, { sessions: true, resumability: { eventStore: new RedisEventStore({ client }) } });
 * ```
 */
export class RedisEventStore implements EventStore {
  readonly keyPrefix: string;
  readonly maxAge: number;
  readonly maxEventsPerStream: number;
  readonly maxStreamBytes: number;
  readonly #client: RedisCommandClient;

  constructor(options: RedisEventStoreOptions) {
    checkCommandClient("client", options?.client);
    this.#client = options.client;
    this.keyPrefix = options.keyPrefix ?? "onemodelcontext:";
    this.maxAge = integerOption("maxAge", options.maxAge, 300_000, 1);
    this.maxEventsPerStream = integerOption(
      "maxEventsPerStream",
      options.maxEventsPerStream,
      DEFAULT_REDIS_MAX_EVENTS_PER_STREAM,
      1,
    );
    this.maxStreamBytes = integerOption(
      "maxStreamBytes",
      options.maxStreamBytes,
      DEFAULT_REDIS_MAX_STREAM_BYTES,
      1,
    );
  }

  async append(sessionId: string, event: StoredEvent): Promise<void> {
    const body = JSON.stringify(event.last ? [event.seq, event.data, 1] : [event.seq, event.data]);
    const size = body.length;
    const keys = this.#keys(event.streamId);
    await redisCommand(this.#client, [
      "EVAL",
      APPEND,
      "3",
      keys.list,
      keys.owner,
      keys.bytes,
      sessionId,
      `${size}|${body}`,
      String(this.maxAge),
      String(this.maxEventsPerStream),
      String(this.maxStreamBytes),
      String(size),
    ]);
  }

  async read(sessionId: string, streamId: string, seq: number): Promise<EventReadResult> {
    const keys = this.#keys(streamId);
    const [owner, first, last, evicted] = await Promise.all([
      redisCommand(this.#client, ["GET", keys.owner]),
      redisCommand(this.#client, ["LINDEX", keys.list, "0"]),
      redisCommand(this.#client, ["LINDEX", keys.list, "-1"]),
      redisCommand(this.#client, ["GET", `${keys.owner}:evicted`]),
    ]);
    if (owner !== sessionId || typeof first !== "string" || typeof last !== "string") {
      return { kind: "unknown" };
    }
    const firstSeq = decode(streamId, first).seq;
    if (evicted !== null && evicted !== undefined && firstSeq > seq + 1) return { kind: "expired" };
    if (seq > decode(streamId, last).seq) return { kind: "unknown" };
    // A stream's list holds consecutive seqs from its first: read from the one after `seq` only.
    const start = Math.max(0, seq + 1 - firstSeq);
    const items = await redisCommand(this.#client, ["LRANGE", keys.list, String(start), "-1"]) as string[];
    const events = (items ?? []).map((item) => decode(streamId, item)).filter((event) => event.seq > seq);
    return { kind: "events", events };
  }

  #keys(streamId: string): { list: string; owner: string; bytes: string } {
    const base = `${this.keyPrefix}events:${streamId}`;
    return { list: base, owner: `${base}:owner`, bytes: `${base}:bytes` };
  }
}

/** One stored list item (`<size>|[seq, data, last?]`) as an event of `streamId`. */
function decode(streamId: string, item: string): StoredEvent {
  const [seq, data, last] = JSON.parse(item.slice(item.indexOf("|") + 1)) as [number, string, 1?];
  return last ? { streamId, seq, data, last: true } : { streamId, seq, data };
}
