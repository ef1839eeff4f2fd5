/** RedisListenBus with in-memory clients of each shape: options, channel filtering, the publish timeout, resync. */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { RedisListenBus } from "../../../src/redis/redis_listen_bus.ts";
import type { ListenBusEvent } from "../../../src/server/features/listen/listen_bus.ts";
import {
  ClosedError,
  InvalidOptionError,
  MessageTooLargeError,
  TimeoutError,
} from "../../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/mod.ts";

/** An in-memory ioredis-like subscriber: `status`, `subscribe(channel)`, `message` events. */
class FakeIoredis extends EventEmitter {
  status = "ready";
  channels = new Set<string>();
  async subscribe(channel: string) {
    this.channels.add(channel);
  }
  async unsubscribe(channel: string) {
    this.channels.delete(channel);
  }
}

/** An in-memory node-redis-like subscriber: `isOpen`, `subscribe(channel, listener)`. */
class FakeNodeRedis extends EventEmitter {
  isOpen = true;
  listeners_ = new Map<string, (message: string, channel: string) => void>();
  async subscribe(channel: string, listener: (message: string, channel: string) => void) {
    this.listeners_.set(channel, listener);
  }
  async unsubscribe(channel: string) {
    this.listeners_.delete(channel);
  }
}

const never = { publish: () => new Promise<number>(() => {}) };
const instant = {
  published: [] as string[],
  publish(_c: string, m: string) {
    this.published.push(m);
    return Promise.resolve(1);
  },
};

describe("RedisListenBus", () => {
  it("refuses a subscriber of neither shape, naming both", async () => {
    const error = await RedisListenBus.open({ publisher: instant, subscriber: {} as never }).catch((
      e: unknown,
    ) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toContain("node-redis");
    expect((error as Error).message).toContain("ioredis");
  });

  it("refuses a maxMessageBytes below 64 and accepts 64", async () => {
    await expect(
      RedisListenBus.open({ publisher: instant, subscriber: new FakeIoredis(), maxMessageBytes: 63 }),
    ).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(
      RedisListenBus.open({ publisher: instant, subscriber: new FakeIoredis(), maxMessageBytes: 64 }),
    ).resolves.toBeInstanceOf(RedisListenBus);
  });

  it("on ioredis, delivers only the messages of its own channel", async () => {
    const subscriber = new FakeIoredis();
    const bus = await RedisListenBus.open({ publisher: instant, subscriber, channel: "mine" });
    const seen: ListenBusEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    const message = JSON.stringify({ v: 1, origin: "x", event: { type: "list_changed", list: "tools" } });
    subscriber.emit("message", "other", message);
    subscriber.emit("message", "mine", message);
    expect(seen).toEqual([{ type: "list_changed", list: "tools", origin: "x" }]);
    await bus.close();
    expect(subscriber.channels.size).toBe(0);
    expect(subscriber.listenerCount("message")).toBe(0);
    expect(subscriber.listenerCount("ready")).toBe(0);
  });

  it("does not deliver its own event a second time when Redis echoes it", async () => {
    const subscriber = new FakeNodeRedis();
    const publisher = { ...instant, published: [] as string[] };
    const bus = await RedisListenBus.open({ publisher, subscriber, channel: "c", replicaId: "me" });
    const seen: string[] = [];
    bus.subscribe((e) => seen.push(e.origin));
    await bus.publish({ type: "list_changed", list: "tools" });
    subscriber.listeners_.get("c")!(publisher.published[0]!, "c");
    expect(seen).toEqual(["me"]);
  });

  it("rejects publish with TimeoutError after publishTimeout, not before", async () => {
    const time = new FakeTimeProvider();
    const bus = await RedisListenBus.open({
      publisher: never,
      subscriber: new FakeIoredis(),
      publishTimeout: 1000,
      timeProvider: time,
    });
    let outcome: unknown = "pending";
    bus.publish({ type: "list_changed", list: "tools" }).catch((e: unknown) => (outcome = e));
    time.advance(999);
    await flushMicrotasks();
    expect(outcome).toBe("pending");
    time.advance(1);
    await flushMicrotasks();
    expect(outcome).toBeInstanceOf(TimeoutError);
    expect((outcome as Error).message).toContain("1000 ms");
  });

  it("refuses an event over maxMessageBytes before delivering it anywhere", async () => {
    const bus = await RedisListenBus.open({
      publisher: instant,
      subscriber: new FakeIoredis(),
      maxMessageBytes: 100,
    });
    const seen: ListenBusEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    await expect(bus.publish({ type: "resource_updated", uri: "u".repeat(100) })).rejects.toBeInstanceOf(
      MessageTooLargeError,
    );
    expect(seen).toEqual([]);
  });

  it("delivers resync when the subscriber is ready again, and not after close", async () => {
    const subscriber = new FakeNodeRedis();
    const bus = await RedisListenBus.open({ publisher: instant, subscriber, replicaId: "me" });
    const seen: ListenBusEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    subscriber.emit("ready");
    expect(seen).toEqual([{ type: "resync", origin: "me" }]);
    await bus.close();
    subscriber.emit("ready");
    expect(seen).toHaveLength(1);
    await expect(bus.publish({ type: "list_changed", list: "tools" })).rejects.toBeInstanceOf(ClosedError);
  });

  it("resolves close and reports an unsubscribe that fails", async () => {
    const subscriber = new FakeIoredis();
    subscriber.unsubscribe = () => Promise.reject(new Error("Connection is closed."));
    const reports: Error[] = [];
    const bus = await RedisListenBus.open({
      publisher: instant,
      subscriber,
      onReport: (e) => reports.push(e),
    });
    await bus.close();
    expect(reports.map((e) => e.message)).toEqual(["Connection is closed."]);
  });

  it("resolves close after publishTimeout when unsubscribe never settles, not before", async () => {
    const time = new FakeTimeProvider();
    const subscriber = new FakeIoredis();
    subscriber.unsubscribe = () => new Promise(() => {});
    const reports: Error[] = [];
    const bus = await RedisListenBus.open({
      publisher: instant,
      subscriber,
      publishTimeout: 500,
      timeProvider: time,
      onReport: (e) => reports.push(e),
    });
    let closed = false;
    void bus.close().then(() => (closed = true));
    await flushMicrotasks();
    time.advance(499);
    await flushMicrotasks();
    expect(closed).toBe(false);
    time.advance(1);
    await flushMicrotasks();
    expect(closed).toBe(true);
    expect(reports[0]).toBeInstanceOf(TimeoutError);
  });
});
