/**
 * RedisSessionStore, RedisEventStore and RedisReplyRelay against a real redis-server (127.0.0.1,
 * started by the test), through node-redis and ioredis clients.
 */
import { Redis as IoRedis } from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/create_http_handler.ts";
import { RedisEventStore } from "../../src/redis/redis_event_store.ts";
import { RedisReplyRelay } from "../../src/redis/redis_reply_relay.ts";
import { RedisSessionStore } from "../../src/redis/redis_session_store.ts";
import { ContextServer } from "../../src/server/context_server.ts";
import { InvalidOptionError } from "../../src/wire/errors.ts";
import { legacyPost, rpc, SseReader } from "../src/http/server/http_handler_helpers.ts";
import { type RedisServer, startRedisServer } from "./fixtures/redis_server.ts";

let redis: RedisServer;
/** The node-redis client, made at once so its type is inferred. */
function connectNode(port: number) {
  return createClient({ url: `redis://127.0.0.1:${port}` }).connect();
}
let node: Awaited<ReturnType<typeof connectNode>>;
let io: IoRedis;

beforeAll(async () => {
  redis = await startRedisServer();
  node = await connectNode(redis.port);
  io = new IoRedis({ port: redis.port, host: "127.0.0.1", lazyConnect: true });
  await io.connect();
});

afterAll(async () => {
  await node?.quit().catch(() => {});
  io?.disconnect();
  await redis?.kill();
});

const state = {
  protocolVersion: "2025-11-25",
  clientInfo: { name: "c", version: "1" },
  clientCapabilities: {},
};

describe("RedisSessionStore", () => {
  it("saves, loads and deletes a session through either client, with a TTL", async () => {
    for (const client of [node, io]) {
      const store = new RedisSessionStore({ client, keyPrefix: "t1:" });
      await store.save("s1", { ...state, logLevel: "info", subscriptions: ["a"] }, 60_000);
      expect(await store.load("s1")).toEqual({ ...state, logLevel: "info", subscriptions: ["a"] });
      const ttl = Number(await node.sendCommand(["PTTL", "t1:session:s1"]));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await store.delete("s1");
      expect(await store.load("s1")).toBeUndefined();
    }
    expect(() => new RedisSessionStore({ client: {} as never })).toThrow(InvalidOptionError);
  });
});

describe("RedisEventStore", () => {
  const event = (seq: number, data = `{"n":${seq}}`) => ({ streamId: "st", seq, data });

  it("replays the events after a cursor, in order; another session's stream is unknown", async () => {
    const store = new RedisEventStore({ client: node, keyPrefix: "t2:" });
    for (let seq = 0; seq < 5; seq++) await store.append("a", event(seq, seq === 0 ? "" : undefined));
    await store.append("a", { streamId: "st", seq: 5, data: "", last: true });
    const read = await store.read("a", "st", 2);
    expect(read).toEqual({
      kind: "events",
      events: [event(3), event(4), { streamId: "st", seq: 5, data: "", last: true }],
    });
    expect(await store.read("b", "st", 2)).toEqual({ kind: "unknown" });
    await store.append("b", event(6)); // another session cannot write into the stream either
    expect((await store.read("a", "st", 4)).kind).toBe("events");
    expect(await store.read("a", "nope", 0)).toEqual({ kind: "unknown" });
  });

  it("keeps maxEventsPerStream and maxStreamBytes, then evicts the oldest (expired behind them)", async () => {
    const byCount = new RedisEventStore({ client: io, keyPrefix: "t3:", maxEventsPerStream: 4 });
    for (let seq = 0; seq < 4; seq++) await byCount.append("a", event(seq));
    expect(await byCount.read("a", "st", 0)).toMatchObject({ kind: "events", events: { length: 3 } }); // not hit early
    await byCount.append("a", event(4));
    await byCount.append("a", event(5));
    expect(await byCount.read("a", "st", 0)).toEqual({ kind: "expired" });
    expect(await byCount.read("a", "st", 1)).toMatchObject({ kind: "events", events: { length: 4 } });

    const big = "x".repeat(1000);
    const byBytes = new RedisEventStore({ client: node, keyPrefix: "t4:", maxStreamBytes: 3 * 1020 });
    for (let seq = 0; seq < 3; seq++) await byBytes.append("a", event(seq, big));
    expect(await byBytes.read("a", "st", 0)).toMatchObject({ kind: "events", events: { length: 2 } }); // not hit early
    await byBytes.append("a", event(3, big));
    await byBytes.append("a", event(4, big));
    expect(await byBytes.read("a", "st", 0)).toEqual({ kind: "expired" });
    expect(() => new RedisEventStore({ client: node, maxAge: 0 })).toThrow(InvalidOptionError);
  });
});

describe("RedisReplyRelay", () => {
  it("carries a sampling reply POSTed to one handler to the handler waiting for it", async () => {
    const sessionStore = new RedisSessionStore({ client: node, keyPrefix: "t5:" });
    const subscribers = await Promise.all([0, 1].map(() => node.duplicate().connect()));
    const relays = await Promise.all(
      subscribers.map((subscriber) => RedisReplyRelay.open({ publisher: node, subscriber })),
    );
    const server = () => {
      const mcp = new ContextServer({ name: "relay", version: "1", capabilities: { tools: {} } });
      mcp.handle("tools/call", async (_params, context) => {
        const answer = await context.request("sampling/createMessage", { messages: [], maxTokens: 5 });
        return { content: [{ type: "text", text: JSON.stringify(answer) }] };
      });
      return mcp;
    };
    const [a, b] = relays.map((replyRelay) =>
      createHttpHandler(server(), { keepAliveInterval: 0, sessions: true, sessionStore, replyRelay })
    );
    const init = await a!(
      legacyPost(rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: { sampling: {} } })),
    );
    const headers = {
      "Mcp-Session-Id": init.headers.get("mcp-session-id")!,
      "MCP-Protocol-Version": "2025-11-25",
    };
    await init.text();
    await a!(legacyPost(rpc(undefined, "notifications/initialized"), headers));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the save is in flight
    const stream = new SseReader(await b!(legacyPost(rpc(1, "tools/call", { name: "x" }), headers)));
    const asked = await stream.next();
    const reply = {
      jsonrpc: "2.0",
      id: asked!.id,
      result: { role: "assistant", content: { type: "text", text: "relayed" } },
    };
    expect((await a!(legacyPost(reply, headers))).status).toBe(202);
    expect(await stream.next()).toMatchObject({
      id: 1,
      result: { content: [{ text: expect.stringContaining("relayed") }] },
    });
    await stream.rest();
    await Promise.all([a!.close(), b!.close(), ...relays.map((relay) => relay.close())]);
    await Promise.all(subscribers.map((subscriber) => subscriber.quit()));
  });
});
