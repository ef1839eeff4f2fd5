/**
 * RedisListenBus against a real redis-server (Debian's, started here on a free loopback port), through
 * a minimal RESP client shaped like node-redis on one side and like ioredis on the other.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisListenBus } from "../../src/redis/redis_listen_bus.ts";
import type { ListenBusEvent } from "../../src/server/features/listen/listen_bus.ts";
import { ProtocolError } from "../../src/wire/errors.ts";
import { ioredisShape, MiniRedis, nodeRedisShape } from "./fixtures/mini_redis.mjs";
import { type RedisServer, startRedisServer } from "./fixtures/redis_server.ts";
import { ServerFeatures } from "../../src/server/features/server_features.ts";
import { MetaKeys } from "../../src/wire/protocol_versions.ts";
import { FakeHost, modernContext } from "../src/server/features/helpers.ts";

let redis: RedisServer;
const clients: MiniRedis[] = [];
const buses: RedisListenBus[] = [];

async function client(port = redis.port): Promise<MiniRedis> {
  const c = await new MiniRedis({ port, retryMs: 50 }).connect();
  c.on("error", () => {}); // the bus test watches publish results and `ready`, not socket errors
  clients.push(c);
  return c;
}

/** Resolves with the first event `predicate` accepts. */
function next(
  bus: RedisListenBus,
  predicate: (event: ListenBusEvent) => boolean = () => true,
): Promise<ListenBusEvent> {
  return new Promise((resolve) => {
    const stop = bus.subscribe((event) => {
      if (!predicate(event)) return;
      stop();
      resolve(event);
    });
  });
}

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  for (const bus of buses) await bus.close().catch(() => {});
  for (const c of clients) c.quit();
  await redis?.kill();
});

describe("RedisListenBus on a real redis-server", () => {
  it("carries events both ways between a node-redis-shaped and an ioredis-shaped bus, each delivered once", async () => {
    const channel = "test:both-ways";
    const a = await RedisListenBus.open({
      publisher: nodeRedisShape(await client()),
      subscriber: nodeRedisShape(await client()),
      channel,
      replicaId: "a",
    });
    const b = await RedisListenBus.open({
      publisher: ioredisShape(await client()),
      subscriber: ioredisShape(await client()),
      channel,
      replicaId: "b",
    });
    buses.push(a, b);
    const seenA: string[] = [];
    const seenB: string[] = [];
    a.subscribe((e) => seenA.push(`${e.type}:${e.origin}`));
    b.subscribe((e) => seenB.push(`${e.type}:${e.origin}`));

    const atB = next(b, (e) => e.origin === "a");
    await a.publish({ type: "list_changed", list: "tools" });
    expect(await atB).toEqual({ type: "list_changed", list: "tools", origin: "a" });

    const atA = next(a, (e) => e.origin === "b");
    await b.publish({ type: "resource_updated", uri: "file:///x" });
    expect(await atA).toEqual({ type: "resource_updated", uri: "file:///x", origin: "b" });

    // A marker after both: by the time it arrives, each bus's own event has come back from Redis too.
    const marker = next(a, (e) => e.type === "list_changed" && e.list === "prompts");
    await b.publish({ type: "list_changed", list: "prompts" });
    await marker;
    expect(seenA).toEqual(["list_changed:a", "resource_updated:b", "list_changed:b"]);
    expect(seenB).toEqual(["list_changed:a", "resource_updated:b", "list_changed:b"]);
  });

  it("reports a malformed or oversized message on its channel and keeps delivering", async () => {
    const channel = "test:malformed";
    const reports: Error[] = [];
    const bus = await RedisListenBus.open({
      publisher: nodeRedisShape(await client()),
      subscriber: nodeRedisShape(await client()),
      channel,
      maxMessageBytes: 256,
      onReport: (error) => reports.push(error),
    });
    buses.push(bus);
    const raw = await client();
    const seen: ListenBusEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    const good = next(bus, (e) => e.origin === "other");
    await raw.publish(channel, "{not json");
    await raw.publish(
      channel,
      JSON.stringify({ v: 9, origin: "other", event: { type: "list_changed", list: "tools" } }),
    );
    await raw.publish(
      channel,
      JSON.stringify({ v: 1, origin: "other", event: { type: "resource_updated", uri: "x".repeat(300) } }),
    );
    await raw.publish(
      channel,
      JSON.stringify({ v: 1, origin: "other", event: { type: "list_changed", list: "tools" } }),
    );
    await good;
    expect(seen).toEqual([{ type: "list_changed", list: "tools", origin: "other" }]);
    expect(reports.map((e) => e.constructor.name)).toEqual([
      "ProtocolError",
      "ProtocolError",
      "ListenMessageTooLargeError",
    ]);
    expect(reports[0]).toBeInstanceOf(ProtocolError);
    expect(reports[1]!.message).toContain("version 9");
  });

  it("rejects publish while redis-server is down, then resyncs and carries events after it restarts", async () => {
    const own = await startRedisServer();
    try {
      const channel = "test:restart";
      const a = await RedisListenBus.open({
        publisher: nodeRedisShape(await client(own.port)),
        subscriber: nodeRedisShape(await client(own.port)),
        channel,
        replicaId: "a",
      });
      const b = await RedisListenBus.open({
        publisher: ioredisShape(await client(own.port)),
        subscriber: ioredisShape(await client(own.port)),
        channel,
        replicaId: "b",
      });
      buses.push(a, b);
      const resyncA = next(a, (e) => e.type === "resync");
      const resyncB = next(b, (e) => e.type === "resync");

      await own.kill("SIGKILL");
      const error = await a.publish({ type: "list_changed", list: "tools" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/closed|down/);

      const again = await startRedisServer({ port: own.port, dir: own.dir });
      try {
        expect(await resyncA).toEqual({ type: "resync", origin: "a" });
        expect(await resyncB).toEqual({ type: "resync", origin: "b" });
        const atB = next(b, (e) => e.origin === "a");
        await a.publish({ type: "list_changed", list: "resources" });
        expect(await atB).toEqual({ type: "list_changed", list: "resources", origin: "a" });
      } finally {
        await again.kill();
      }
    } finally {
      await own.kill();
    }
  });

  it("stops delivering after close and leaves the clients open", async () => {
    const channel = "test:close";
    const publisher = await client();
    const subscriber = await client();
    const bus = await RedisListenBus.open({
      publisher: nodeRedisShape(publisher),
      subscriber: nodeRedisShape(subscriber),
      channel,
    });
    const seen: ListenBusEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    await bus.close();
    expect(
      await publisher.publish(
        channel,
        JSON.stringify({ v: 1, origin: "x", event: { type: "list_changed", list: "tools" } }),
      ),
    ).toBe(0); // nobody subscribed any more
    expect(subscriber.isOpen).toBe(true);
    expect(seen).toEqual([]);
  });

  it("carries a tool registered on one server to a listen stream held by another server", async () => {
    const channel = "test:features";
    const server = async (replicaId: string) => {
      const bus = await RedisListenBus.open({
        publisher: nodeRedisShape(await client()),
        subscriber: ioredisShape(await client()),
        channel,
        replicaId,
      });
      buses.push(bus);
      const host = new FakeHost();
      const features = new ServerFeatures(host, { listenBus: bus });
      features.tool("base", {}, () => "x");
      return { bus, host, features };
    };
    const a = await server("a");
    const b = await server("b");
    const stream = modernContext({ requestId: "listen-1" });
    void b.host.call("subscriptions/listen", { notifications: { toolsListChanged: true } }, stream);
    const arrived = next(b.bus, (e) => e.origin === "a" && e.type === "list_changed");
    a.features.tool("added", {}, () => "x");
    await arrived;
    expect(stream.sent.map((m) => m.method)).toContain("notifications/subscriptions/acknowledged");
    await new Promise((resolve) => setTimeout(resolve, 0)); // the notifier sends in a microtask
    expect(stream.sent.at(-1)).toEqual({
      method: "notifications/tools/list_changed",
      params: { _meta: { [MetaKeys.subscriptionId]: "listen-1" } },
    });
    expect(a.host.reports).toEqual([]);
    expect(b.host.reports).toEqual([]);
  });
});
