/** InProcessListenBus, the listen-bus message codec, and the bounded coalescing listenBusEvents. */
import { describe, expect, it } from "vitest";
import { InProcessListenBus } from "../../../../../src/server/features/listen/in_process_listen_bus.ts";
import type { ListenBusEvent, ListenEvent } from "../../../../../src/server/features/listen/listen_bus.ts";
import { listenBusEvents } from "../../../../../src/server/features/listen/listen_bus_events.ts";
import {
  decodeListenMessage,
  encodeListenMessage,
  ListenMessageTooLargeError,
} from "../../../../../src/server/features/listen/listen_event_codec.ts";
import {
  ClosedError,
  InvalidOptionError,
  MessageTooLargeError,
  ProtocolError,
} from "../../../../../src/wire/errors.ts";

const tools: ListenEvent = { type: "list_changed", list: "tools" };

describe("InProcessListenBus", () => {
  it("delivers a published event synchronously to every handler with its replica id as origin", async () => {
    const bus = new InProcessListenBus({ replicaId: "a" });
    const seen: string[] = [];
    bus.subscribe((e) => seen.push(`1:${e.type}:${e.origin}`));
    bus.subscribe((e) => seen.push(`2:${e.type}:${e.origin}`));
    const published = bus.publish(tools);
    expect(seen).toEqual(["1:list_changed:a", "2:list_changed:a"]);
    await published;
  });

  it("stops calling a handler once unsubscribed, and the second unsubscribe does nothing", async () => {
    const bus = new InProcessListenBus();
    const seen: ListenBusEvent[] = [];
    const stop = bus.subscribe((e) => seen.push(e));
    await bus.publish(tools);
    stop();
    stop();
    await bus.publish(tools);
    expect(seen).toHaveLength(1);
    expect(bus.size).toBe(0);
  });

  it("reports a handler that throws and still calls the next handler", async () => {
    const reports: Error[] = [];
    const bus = new InProcessListenBus({ onReport: (e) => reports.push(e) });
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error("Handler broke");
    });
    bus.subscribe((e) => seen.push(e.type));
    await bus.publish({ type: "resource_updated", uri: "file:///a" });
    expect(seen).toEqual(["resource_updated"]);
    expect(reports.map((e) => e.message)).toEqual(["Handler broke"]);
  });

  it("refuses an invalid event with a ProtocolError naming the bad field, and delivers nothing", async () => {
    const bus = new InProcessListenBus();
    const seen: ListenBusEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    const error = await bus.publish({ type: "list_changed", list: "files" } as never).catch((e: unknown) =>
      e
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain('got "files"');
    expect(seen).toEqual([]);
  });

  it("rejects publish with ClosedError after close", async () => {
    const bus = new InProcessListenBus();
    await bus.close();
    await expect(bus.publish(tools)).rejects.toBeInstanceOf(ClosedError);
  });
});

describe("listen bus messages", () => {
  it("round-trip with version 1 and the origin", () => {
    const text = encodeListenMessage({ type: "resource_updated", uri: "mem://x" }, "r1");
    expect(JSON.parse(text)).toEqual({
      v: 1,
      origin: "r1",
      event: { type: "resource_updated", uri: "mem://x" },
    });
    expect(decodeListenMessage(text)).toEqual({
      ok: true,
      event: { type: "resource_updated", uri: "mem://x", origin: "r1" },
    });
  });

  it("drop fields an event does not define", () => {
    const text = encodeListenMessage({ type: "list_changed", list: "prompts", extra: 1 } as never, "r1");
    expect(JSON.parse(text).event).toEqual({ type: "list_changed", list: "prompts" });
  });

  it.each([
    ["not JSON", "{nope", "is not JSON"],
    ["an array", "[1]", "must be a JSON object"],
    [
      "another version",
      JSON.stringify({ v: 2, origin: "r", event: { type: "list_changed", list: "tools" } }),
      "version 2",
    ],
    [
      "no version",
      JSON.stringify({ origin: "r", event: { type: "list_changed", list: "tools" } }),
      "version none",
    ],
    ["no origin", JSON.stringify({ v: 1, event: { type: "list_changed", list: "tools" } }), "no origin"],
    [
      "an unknown event type",
      JSON.stringify({ v: 1, origin: "r", event: { type: "deleted" } }),
      'got "deleted"',
    ],
    [
      "an empty uri",
      JSON.stringify({ v: 1, origin: "r", event: { type: "resource_updated", uri: "" } }),
      'got ""',
    ],
  ])("are reported, not thrown, when they are %s", (_name, text, fragment) => {
    const decoded = decodeListenMessage(text);
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.error).toBeInstanceOf(ProtocolError);
    expect(decoded.error.message).toContain(fragment);
  });

  it("are reported when not a string", () => {
    const decoded = decodeListenMessage(Buffer.from("{}"));
    expect(decoded.ok).toBe(false);
  });

  it("are accepted at exactly maxMessageBytes and refused one byte over, both ways", () => {
    const text = encodeListenMessage({ type: "resource_updated", uri: "u" }, "r");
    const size = new TextEncoder().encode(text).length;
    expect(decodeListenMessage(text, size).ok).toBe(true);
    expect(encodeListenMessage({ type: "resource_updated", uri: "u" }, "r", size)).toBe(text);
    const over = decodeListenMessage(text, size - 1);
    expect(over.ok).toBe(false);
    if (!over.ok) expect(over.error).toBeInstanceOf(MessageTooLargeError);
    expect(() => encodeListenMessage({ type: "resource_updated", uri: "u" }, "r", size - 1)).toThrow(
      ListenMessageTooLargeError,
    );
  });

  it("count UTF-8 bytes, not characters, against the bound", () => {
    const text = encodeListenMessage({ type: "resource_updated", uri: "é" }, "r");
    expect(decodeListenMessage(text, text.length).ok).toBe(false); // é is 2 bytes
    expect(decodeListenMessage(text, text.length + 1).ok).toBe(true);
  });
});

describe("listenBusEvents", () => {
  it("yields events in order and ends when its signal aborts", async () => {
    const bus = new InProcessListenBus({ replicaId: "a" });
    const controller = new AbortController();
    const events = listenBusEvents(bus, { signal: controller.signal });
    await bus.publish(tools);
    await bus.publish({ type: "resource_updated", uri: "u" });
    expect((await events.next()).value).toEqual({ ...tools, origin: "a" });
    expect((await events.next()).value).toEqual({ type: "resource_updated", uri: "u", origin: "a" });
    const waiting = events.next();
    controller.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(bus.size).toBe(0);
  });

  it("queues an event equal to a waiting one only once", async () => {
    const bus = new InProcessListenBus();
    const events = listenBusEvents(bus);
    for (let i = 0; i < 5; i++) await bus.publish(tools);
    await bus.publish({ type: "list_changed", list: "prompts" });
    expect((await events.next()).value).toMatchObject(tools);
    expect((await events.next()).value).toMatchObject({ list: "prompts" });
    await events.return!();
  });

  it("keeps maxPendingEvents distinct events for a slow consumer without collapsing them", async () => {
    const bus = new InProcessListenBus();
    const events = listenBusEvents(bus, { maxPendingEvents: 3 });
    for (const uri of ["a", "b", "c"]) await bus.publish({ type: "resource_updated", uri });
    const got = [(await events.next()).value, (await events.next()).value, (await events.next()).value];
    expect(got.map((e) => (e as { uri: string }).uri)).toEqual(["a", "b", "c"]);
    await events.return!();
  });

  it("collapses the queue into one resync at one event past maxPendingEvents, and absorbs what follows", async () => {
    const bus = new InProcessListenBus({ replicaId: "me" });
    const events = listenBusEvents(bus, { maxPendingEvents: 3 });
    for (const uri of ["a", "b", "c", "d", "e", "f"]) await bus.publish({ type: "resource_updated", uri });
    expect((await events.next()).value).toEqual({ type: "resync", origin: "me" });
    await bus.publish(tools);
    expect((await events.next()).value).toMatchObject(tools);
    await events.return!();
  });

  it("refuses a maxPendingEvents below 1", () => {
    expect(() => listenBusEvents(new InProcessListenBus(), { maxPendingEvents: 0 })).toThrow(
      InvalidOptionError,
    );
  });
});
