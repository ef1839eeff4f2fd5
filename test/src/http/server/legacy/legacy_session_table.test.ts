import { describe, expect, it } from "vitest";
import { LegacySessionTable } from "../../../../../src/http/server/legacy/legacy_session_table.ts";
import { ResponseChannel } from "../../../../../src/http/server/response_channel.ts";
import { SseStream } from "../../../../../src/http/server/sse/sse_stream.ts";
import { ClosedError, InvalidOptionError } from "../../../../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../../testing/fake_time_provider.ts";
import { SseReader } from "../http_handler_helpers.ts";

describe("LegacySessionTable", () => {
  it("mints distinct visible-ASCII ids and finds sessions by them only", () => {
    const table = new LegacySessionTable();
    const a = table.create()!;
    const b = table.create()!;
    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(/^[\x21-\x7e]{36}$/);
    expect(table.get(a.id)).toBe(a);
    expect(table.get("")).toBeUndefined();
    expect(table.get(`${a.id} `)).toBeUndefined();
    expect(table.get("x".repeat(100_000))).toBeUndefined();
  });

  it("starts every id with idPrefix (a load balancer pins sessions on it), and refuses a prefix that is not short visible ASCII", () => {
    const table = new LegacySessionTable({ idPrefix: "r2." });
    const session = table.create()!;
    expect(session.id).toMatch(/^r2\.[\x21-\x7e]{36}$/);
    expect(table.get(session.id)).toBe(session);
    expect(new LegacySessionTable({ idPrefix: "x".repeat(64) }).create()!.id).toHaveLength(100);
    expect(() => new LegacySessionTable({ idPrefix: "x".repeat(65) })).toThrow(InvalidOptionError);
    expect(() => new LegacySessionTable({ idPrefix: "r 2" })).toThrow(
      /idPrefix must be at most 64 visible ASCII characters, got "r 2"/,
    );
  });

  it("holds maxSessions and frees a slot when one ends", () => {
    const table = new LegacySessionTable({ maxSessions: 2 });
    const a = table.create()!;
    table.create();
    expect(table.create()).toBeUndefined();
    a.end(new ClosedError("bye"));
    expect(table.size).toBe(1);
    expect(table.create()).toBeDefined();
  });

  it("refuses bad bounds", () => {
    expect(() => new LegacySessionTable({ maxSessions: 0 })).toThrow(InvalidOptionError);
    expect(() => new LegacySessionTable({ idleTimeout: -1 })).toThrow(InvalidOptionError);
  });

  it("ends an idle session after idleTimeout; an open GET stream keeps it alive", async () => {
    const time = new FakeTimeProvider();
    const table = new LegacySessionTable({ idleTimeout: 100, timeProvider: time });
    const idle = table.create()!;
    const watched = table.create()!;
    const stream = new SseStream({ keepAliveInterval: 0 });
    expect(watched.attachGetStream(stream)).toBe(true);
    expect(watched.attachGetStream(new SseStream({ keepAliveInterval: 0 }))).toBe(false);
    await time.advance(99);
    expect(idle.ended).toBe(false);
    await time.advance(1);
    expect(idle.ended).toBe(true);
    expect(watched.ended).toBe(false);
    stream.abort();
    await flushMicrotasks();
    await time.advance(100);
    expect(watched.ended).toBe(true);
    expect(table.size).toBe(0);
  });

  it("sends unrelated notifications on the GET stream, drops them without one, refuses them once ended", async () => {
    const table = new LegacySessionTable();
    const session = table.create()!;
    await session.notify("notifications/tools/list_changed"); // no GET stream: dropped
    const stream = new SseStream({ keepAliveInterval: 0 });
    session.attachGetStream(stream);
    const reader = new SseReader(stream.response());
    await session.notify("notifications/resources/updated", { uri: "test://x" });
    expect(await reader.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "test://x" },
    });
    session.end(new ClosedError("bye"));
    expect(await reader.next()).toBeUndefined();
    await expect(session.notify("notifications/tools/list_changed")).rejects.toBeInstanceOf(ClosedError);
  });

  it("cancels a server-to-client request with notifications/cancelled when its signal aborts", async () => {
    const session = new LegacySessionTable().create()!;
    const channel = new ResponseChannel({ sse: { keepAliveInterval: 0 } });
    const controller = new AbortController();
    const pending = session.request(channel, "roots/list", {}, controller.signal);
    const reader = new SseReader((await channel.response) as Response);
    const sent = await reader.next();
    expect(sent).toMatchObject({ method: "roots/list" });
    controller.abort(new Error("No longer needed"));
    await expect(pending).rejects.toThrow("No longer needed");
    expect(await reader.next()).toMatchObject({
      method: "notifications/cancelled",
      params: { requestId: sent!.id },
    });
    expect(session.waitingRequests).toBe(0);
    // A late reply finds nothing waiting.
    expect(session.settle(sent!.id as number, { result: {} })).toBe(false);
  });
});
