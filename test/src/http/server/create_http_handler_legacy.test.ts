import { describe, expect, it } from "vitest";
import {
  createHttpHandler,
  type HttpHandlerOptions,
} from "../../../../src/http/server/create_http_handler.ts";
import { CancelledError, ClosedError, JsonRpcError } from "../../../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../testing/fake_time_provider.ts";
import { aborted, FakeServer, gate, json, legacyPost, rpc, SseReader, URL_ } from "./http_handler_helpers.ts";

const INIT = rpc(0, "initialize", {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "c", version: "1" },
});

function setup(options: HttpHandlerOptions = {}, server = new FakeServer()) {
  server.on("tools/list", () => ({ tools: [] }));
  const handler = createHttpHandler(server, { keepAliveInterval: 0, ...options });
  return { server, handler };
}

async function initialize(handler: ReturnType<typeof createHttpHandler>): Promise<string> {
  const response = await handler(legacyPost(INIT));
  expect(response.status).toBe(200);
  const id = response.headers.get("mcp-session-id");
  expect(id).not.toBeNull();
  return id!;
}

describe("createHttpHandler, legacy era without sessions", () => {
  it("answers initialize and mints no session id", async () => {
    const { handler } = setup();
    const response = await handler(legacyPost(INIT));
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(await json(response)).toMatchObject({ id: 0, result: { protocolVersion: "2025-11-25" } });
  });

  it("serves each POST as its own request at the MCP-Protocol-Version it names, 2025-03-26 when absent", async () => {
    const { server, handler } = setup();
    expect((await handler(legacyPost(rpc(1, "tools/list"), { "MCP-Protocol-Version": "2025-06-18" }))).status)
      .toBe(200);
    expect((await handler(legacyPost(rpc(2, "tools/list")))).status).toBe(200);
    expect(server.calls.map((c) => [c.era, c.protocolVersion])).toEqual([
      ["legacy", "2025-06-18"],
      ["legacy", "2025-03-26"],
    ]);
  });

  it("gives handlers no way to send requests to the client", async () => {
    const { server, handler } = setup();
    server.on("tools/call", ({ context }) => ({ canRequest: context.request !== undefined }));
    expect(await json(await handler(legacyPost(rpc(1, "tools/call", { name: "x" }))))).toMatchObject({
      result: { canRequest: false },
    });
  });

  it("answers 400/-32022 for a legacy version the server does not speak", async () => {
    const { handler } = setup({}, new FakeServer(["2025-11-25", "2026-07-28"]));
    const response = await handler(
      legacyPost(rpc(3, "tools/list"), { "MCP-Protocol-Version": "2025-03-26" }),
    );
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({
      id: 3,
      error: { code: -32022, data: { requested: "2025-03-26" } },
    });
  });

  it("accepts notifications with 202 and refuses client responses with 400", async () => {
    const { server, handler } = setup();
    expect((await handler(legacyPost(rpc(undefined, "notifications/initialized")))).status).toBe(202);
    await flushMicrotasks();
    expect(server.notifications.map((n) => n.method)).toEqual(["notifications/initialized"]);
    const reply = await handler(legacyPost({ jsonrpc: "2.0", id: 1, result: {} }));
    expect(reply.status).toBe(400);
  });

  it("cancels the handler on disconnect: without a session the reply has nowhere to go", async () => {
    const { server, handler } = setup();
    const started = gate();
    let reason: unknown;
    server.on("tools/call", async ({ context }) => {
      started.open();
      reason = await aborted(context.signal);
    });
    const client = new AbortController();
    const pending = handler(legacyPost(rpc(1, "tools/call", { name: "x" }), {}, client.signal));
    await started.promise;
    client.abort();
    await pending;
    await flushMicrotasks();
    expect(reason).toBeInstanceOf(CancelledError);
  });

  it("answers GET and DELETE with 405", async () => {
    const { handler } = setup();
    expect(
      (await handler(new Request(URL_, { method: "GET", headers: { Accept: "text/event-stream" } }))).status,
    ).toBe(405);
    expect((await handler(new Request(URL_, { method: "DELETE" }))).status).toBe(405);
  });
});

describe("createHttpHandler, legacy era with sessions", () => {
  it("mints a visible-ASCII Mcp-Session-Id on initialize and requires it afterwards", async () => {
    const { handler } = setup({ sessions: true });
    const id = await initialize(handler);
    expect(id).toMatch(/^[\x21-\x7e]+$/);
    expect(handler.sessionCount).toBe(1);
    const without = await handler(legacyPost(rpc(1, "tools/list")));
    expect(without.status).toBe(400);
    expect(await json(without)).toMatchObject({ id: 1 });
    const withId = await handler(
      legacyPost(rpc(2, "tools/list"), { "Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25" }),
    );
    expect(withId.status).toBe(200);
    expect(await json(withId)).toEqual({ jsonrpc: "2.0", id: 2, result: { tools: [] } });
  });

  it("answers 404 for a forged, oversized or ended session id so the client re-initializes", async () => {
    const { handler } = setup({ sessions: true });
    const id = await initialize(handler);
    for (const forged of [crypto.randomUUID(), "x".repeat(10_000), `${id}x`, id.toUpperCase()]) {
      const response = await handler(legacyPost(rpc(3, "tools/list"), { "Mcp-Session-Id": forged }));
      expect(response.status).toBe(404);
      expect(await json(response)).toMatchObject({ id: 3, error: { code: -32001 } });
    }
    const deleted = await handler(new Request(URL_, { method: "DELETE", headers: { "Mcp-Session-Id": id } }));
    expect(deleted.status).toBe(200);
    expect(handler.sessionCount).toBe(0);
    expect((await handler(legacyPost(rpc(4, "tools/list"), { "Mcp-Session-Id": id }))).status).toBe(404);
    expect((await handler(new Request(URL_, { method: "DELETE", headers: { "Mcp-Session-Id": id } }))).status)
      .toBe(404);
  });

  it("keeps no session for a failed initialize", async () => {
    const { handler } = setup({ sessions: true });
    const response = await handler(legacyPost(rpc(0, "initialize", { protocolVersion: "fail" })));
    expect(await json(response)).toMatchObject({ error: { code: -32602 } });
    expect(handler.sessionCount).toBe(0);
  });

  it("keeps at most maxSessions: one more initialize gets 429 until a session ends", async () => {
    const { handler } = setup({ sessions: { maxSessions: 2 } });
    const first = await initialize(handler);
    await initialize(handler);
    const refused = await handler(legacyPost(INIT));
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({ id: 0 });
    await handler(new Request(URL_, { method: "DELETE", headers: { "Mcp-Session-Id": first } }));
    await initialize(handler);
    expect(handler.sessionCount).toBe(2);
  });

  it("ends a session after idleTimeout without requests, and not a moment before", async () => {
    const time = new FakeTimeProvider();
    const { handler } = setup({ sessions: { idleTimeout: 1000 }, timeProvider: time });
    const id = await initialize(handler);
    await time.advance(999);
    expect((await handler(legacyPost(rpc(1, "tools/list"), { "Mcp-Session-Id": id }))).status).toBe(200); // activity re-arms the timer
    await time.advance(999);
    expect(handler.sessionCount).toBe(1);
    await time.advance(1);
    expect(handler.sessionCount).toBe(0);
    expect((await handler(legacyPost(rpc(2, "tools/list"), { "Mcp-Session-Id": id }))).status).toBe(404);
  });

  it("does not expire a session while a request is in flight", async () => {
    const time = new FakeTimeProvider();
    const { server, handler } = setup({ sessions: { idleTimeout: 1000 }, timeProvider: time });
    const release = gate();
    server.on("tools/call", async () => {
      await release.promise;
      return { content: [] };
    });
    const id = await initialize(handler);
    const pending = handler(legacyPost(rpc(1, "tools/call", { name: "slow" }), { "Mcp-Session-Id": id }));
    await time.advance(5000);
    expect(handler.sessionCount).toBe(1);
    release.open();
    expect((await pending).status).toBe(200);
    await time.advance(1000);
    expect(handler.sessionCount).toBe(0);
  });

  it("sends a server-to-client request on the POST's SSE stream and takes the reply POSTed back (202)", async () => {
    const { server, handler } = setup({ sessions: true });
    server.on("tools/call", async ({ context }) => {
      const answer = await context.request!("sampling/createMessage", { messages: [], maxTokens: 10 });
      return { content: [{ type: "text", text: JSON.stringify(answer) }] };
    });
    const id = await initialize(handler);
    const response = await handler(
      legacyPost(rpc(5, "tools/call", { name: "sample" }), { "Mcp-Session-Id": id }),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = new SseReader(response);
    const outgoing = await reader.next();
    expect(outgoing).toMatchObject({
      jsonrpc: "2.0",
      method: "sampling/createMessage",
      params: { maxTokens: 10 },
    });
    const reply = await handler(
      legacyPost({ jsonrpc: "2.0", id: outgoing!.id, result: { model: "m" } }, { "Mcp-Session-Id": id }),
    );
    expect(reply.status).toBe(202);
    expect(await reader.next()).toEqual({
      jsonrpc: "2.0",
      id: 5,
      result: { content: [{ type: "text", text: '{"model":"m"}' }] },
    });
    expect(await reader.next()).toBeUndefined();
  });

  it("rejects a server-to-client request with the client's error", async () => {
    const { server, handler } = setup({ sessions: true });
    server.on("tools/call", async ({ context }) => {
      try {
        await context.request!("elicitation/create", {});
        return { content: [] };
      } catch (error) {
        return { caught: error instanceof JsonRpcError ? error.code : String(error) };
      }
    });
    const id = await initialize(handler);
    const reader = new SseReader(
      await handler(legacyPost(rpc(6, "tools/call", { name: "ask" }), { "Mcp-Session-Id": id })),
    );
    const outgoing = await reader.next();
    await handler(
      legacyPost({ jsonrpc: "2.0", id: outgoing!.id, error: { code: -1, message: "User declined" } }, {
        "Mcp-Session-Id": id,
      }),
    );
    expect(await reader.next()).toMatchObject({ id: 6, result: { caught: -1 } });
  });

  it("rejects a waiting server-to-client request when the session is deleted", async () => {
    const { server, handler } = setup({ sessions: true });
    let failure: unknown;
    const done = gate();
    server.on("tools/call", async ({ context }) => {
      try {
        await context.request!("roots/list", {});
      } catch (error) {
        failure = error;
      }
      done.open();
      return {};
    });
    const id = await initialize(handler);
    const reader = new SseReader(
      await handler(legacyPost(rpc(7, "tools/call", { name: "roots" }), { "Mcp-Session-Id": id })),
    );
    await reader.next();
    await handler(new Request(URL_, { method: "DELETE", headers: { "Mcp-Session-Id": id } }));
    await done.promise;
    expect(failure).toBeInstanceOf(ClosedError);
  });

  it("cancels on notifications/cancelled, not on a dropped response", async () => {
    const { server, handler } = setup({ sessions: true });
    const started = gate();
    let signal!: AbortSignal;
    server.on("tools/call", async ({ context }) => {
      signal = context.signal;
      started.open();
      await aborted(context.signal);
      return {};
    });
    const id = await initialize(handler);
    const client = new AbortController();
    const pending = handler(
      legacyPost(rpc(8, "tools/call", { name: "wait" }), { "Mcp-Session-Id": id }, client.signal),
    );
    await started.promise;
    client.abort();
    await flushMicrotasks();
    expect(signal.aborted).toBe(false);
    const cancel = await handler(
      legacyPost(rpc(undefined, "notifications/cancelled", { requestId: 8, reason: "user" }), {
        "Mcp-Session-Id": id,
      }),
    );
    expect(cancel.status).toBe(202);
    expect(signal.reason).toBeInstanceOf(CancelledError);
    await pending;
  });

  it("opens one GET stream per session for messages unrelated to a request", async () => {
    const { handler } = setup({ sessions: true, maxStreams: 5 });
    const id = await initialize(handler);
    const get = () =>
      handler(
        new Request(URL_, { method: "GET", headers: { Accept: "text/event-stream", "Mcp-Session-Id": id } }),
      );
    const response = await get();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(handler.streamCount).toBe(1);
    expect((await get()).status).toBe(409);
    expect(
      (await handler(new Request(URL_, { method: "GET", headers: { Accept: "text/event-stream" } }))).status,
    ).toBe(400);
    expect(
      (await handler(
        new Request(URL_, {
          method: "GET",
          headers: { Accept: "text/event-stream", "Mcp-Session-Id": "nope" },
        }),
      )).status,
    ).toBe(404);
    expect(
      (await handler(
        new Request(URL_, { method: "GET", headers: { Accept: "application/json", "Mcp-Session-Id": id } }),
      )).status,
    ).toBe(406);
    // Ending the session ends its GET stream.
    const reader = new SseReader(response);
    await handler(new Request(URL_, { method: "DELETE", headers: { "Mcp-Session-Id": id } }));
    expect(await reader.next()).toBeUndefined();
    await flushMicrotasks();
    expect(handler.streamCount).toBe(0);
  });

  it("counts GET streams against maxStreams", async () => {
    const { handler } = setup({ sessions: true, maxStreams: 1 });
    const a = await initialize(handler);
    const b = await initialize(handler);
    const get = (id: string) =>
      handler(
        new Request(URL_, { method: "GET", headers: { Accept: "text/event-stream", "Mcp-Session-Id": id } }),
      );
    expect((await get(a)).status).toBe(200);
    expect((await get(b)).status).toBe(429);
  });

  it("refuses a request id already in flight on the session", async () => {
    const { server, handler } = setup({ sessions: true });
    const release = gate();
    server.on("tools/call", async () => {
      await release.promise;
      return {};
    });
    const id = await initialize(handler);
    const first = handler(legacyPost(rpc(9, "tools/call", { name: "a" }), { "Mcp-Session-Id": id }));
    await flushMicrotasks();
    const second = await handler(legacyPost(rpc(9, "tools/call", { name: "a" }), { "Mcp-Session-Id": id }));
    expect(second.status).toBe(400);
    release.open();
    expect((await first).status).toBe(200);
  });

  it("on close, lets a request waiting for a server-to-client reply finish and ends GET streams", async () => {
    const time = new FakeTimeProvider();
    const { server, handler } = setup({ sessions: true, timeProvider: time, shutdownTimeout: 1000 });
    server.on("tools/call", async ({ context }) => ({ answer: await context.request!("roots/list", {}) }));
    const id = await initialize(handler);
    const get = await handler(
      new Request(URL_, { method: "GET", headers: { Accept: "text/event-stream", "Mcp-Session-Id": id } }),
    );
    const getReader = new SseReader(get);
    const reader = new SseReader(
      await handler(legacyPost(rpc(1, "tools/call", { name: "r" }), { "Mcp-Session-Id": id })),
    );
    const outgoing = await reader.next();
    const closing = handler.close();
    expect(await getReader.next()).toBeUndefined();
    expect((await handler(legacyPost(rpc(2, "tools/list"), { "Mcp-Session-Id": id }))).status).toBe(503);
    expect(
      (await handler(
        legacyPost({ jsonrpc: "2.0", id: outgoing!.id, result: { roots: [] } }, { "Mcp-Session-Id": id }),
      )).status,
    ).toBe(202);
    expect(await reader.next()).toEqual({ jsonrpc: "2.0", id: 1, result: { answer: { roots: [] } } });
    expect(await reader.next()).toBeUndefined();
    await closing;
    expect(handler.sessionCount).toBe(0);
  });

  it("tells the server when a session starts and ends (trackSession), so it can notify the session outside requests", async () => {
    const tracked = new Set<unknown>();
    const server = Object.assign(new FakeServer(), {
      trackSession(session: unknown) {
        tracked.add(session);
        return () => tracked.delete(session);
      },
    });
    const { handler } = setup({ sessions: true }, server);
    const id = await initialize(handler);
    expect(tracked.size).toBe(1);
    const [session] = tracked as Set<{ notify(method: string): Promise<void> }>;
    const reader = new SseReader(
      await handler(
        new Request(URL_, { method: "GET", headers: { Accept: "text/event-stream", "Mcp-Session-Id": id } }),
      ),
    );
    await session!.notify("notifications/tools/list_changed");
    expect(await reader.next()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await handler(new Request(URL_, { method: "DELETE", headers: { "Mcp-Session-Id": id } }));
    expect(tracked.size).toBe(0);
  });
});
