import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../../../src/http/server/create_http_handler.ts";
import { encodeHeaderValue } from "../../../../src/http/header_value_codec.ts";
import { CancelledError, ErrorCodes, JsonRpcError } from "../../../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../testing/fake_time_provider.ts";
import { aborted, FakeServer, gate, json, modernRequest, SseReader, URL_ } from "./http_handler_helpers.ts";

function setup(options: Parameters<typeof createHttpHandler>[1] = {}) {
  const server = new FakeServer();
  server.on("tools/list", () => ({ tools: [] }));
  const handler = createHttpHandler(server, { keepAliveInterval: 0, ...options });
  return { server, handler };
}

describe("createHttpHandler, modern era: answers", () => {
  it("answers a request with one JSON object when nothing precedes the reply", async () => {
    const { handler } = setup();
    const response = await handler(modernRequest(1, "tools/list"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await json(response)).toEqual({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
  });

  it("switches to SSE when a related notification comes before the reply, then ends the stream with the reply", async () => {
    const { server, handler } = setup();
    server.on("tools/call", async ({ context }) => {
      await context.notify("notifications/progress", { progressToken: "t", progress: 1 });
      await context.notify("notifications/progress", { progressToken: "t", progress: 2 });
      return { content: [] };
    });
    const response = await handler(modernRequest(7, "tools/call", { name: "slow", arguments: {} }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const events = await new SseReader(response).rest();
    expect(events).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1 } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 2 } },
      { jsonrpc: "2.0", id: 7, result: { content: [] } },
    ]);
  });

  it("accepts a notification with 202 and no body", async () => {
    const { server, handler } = setup();
    const response = await handler(modernRequest(undefined, "notifications/something"));
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("");
    await flushMicrotasks();
    expect(server.notifications.map((n) => n.method)).toEqual(["notifications/something"]);
  });

  it("keeps handler errors in-band with 200", async () => {
    const { server, handler } = setup();
    server.on("tools/call", () => {
      throw new JsonRpcError(ErrorCodes.InvalidParams, "Unknown tool: nope");
    });
    const response = await handler(modernRequest(3, "tools/call", { name: "nope" }));
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  it("answers 400/-32021 when the handler needs a capability the client did not declare", async () => {
    const { server, handler } = setup();
    server.on("tools/call", () => {
      throw new JsonRpcError(ErrorCodes.MissingRequiredClientCapability, "Missing sampling", {
        requiredCapabilities: { sampling: {} },
      });
    });
    const response = await handler(modernRequest(401, "tools/call", { name: "needs_sampling" }));
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({
      id: 401,
      error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } },
    });
  });
});

describe("createHttpHandler, modern era: the status table", () => {
  it("answers 400/-32602 with the id when _meta is missing", async () => {
    const { handler } = setup();
    const request = new Request(URL_, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "server/discover",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 101, method: "server/discover", params: {} }),
    });
    const response = await handler(request);
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ id: 101, error: { code: -32602 } });
  });

  it("answers 400/-32602 when _meta lacks clientCapabilities", async () => {
    const { handler } = setup();
    const response = await handler(
      modernRequest(104, "tools/list", {}, {
        metaExtra: { "io.modelcontextprotocol/clientCapabilities": undefined },
      }),
    );
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ id: 104, error: { code: -32602 } });
  });

  it("answers 400/-32020 when MCP-Protocol-Version is missing", async () => {
    const { handler } = setup();
    const response = await handler(
      modernRequest(5, "tools/list", {}, { headers: { "MCP-Protocol-Version": null } }),
    );
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({
      id: 5,
      error: { code: -32020, data: { header: "MCP-Protocol-Version", reason: "missing" } },
    });
  });

  it("judges the header/body version mismatch (-32020) before version support (-32022)", async () => {
    const { handler } = setup();
    const response = await handler(
      modernRequest(302, "server/discover", {}, {
        version: "v999.0.0",
        headers: { "MCP-Protocol-Version": "2026-07-28" },
      }),
    );
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ id: 302, error: { code: -32020 } });
  });

  it("answers 400/-32022 with supported and requested for an unsupported version", async () => {
    const { handler } = setup();
    const response = await handler(modernRequest(301, "server/discover", {}, { version: "v999.0.0" }));
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({
      id: 301,
      error: { code: -32022, data: { supported: ["2026-07-28"], requested: "v999.0.0" } },
    });
  });

  it("answers 400/-32020 for an Mcp-Method that differs from the body, or a missing one", async () => {
    const { handler } = setup();
    for (
      const headers of [{ "Mcp-Method": "prompts/list" }, { "Mcp-Method": null }, {
        "Mcp-Method": "TOOLS/LIST",
      }]
    ) {
      const response = await handler(modernRequest(8, "tools/list", {}, { headers }));
      expect(response.status).toBe(400);
      expect(await json(response)).toMatchObject({ id: 8, error: { code: -32020 } });
    }
  });

  it("compares header names ignoring case and trims header values", async () => {
    const { server, handler } = setup();
    server.on("tools/call", () => ({ content: [] }));
    const lower = await handler(
      modernRequest(9, "tools/list", {}, { headers: { "Mcp-Method": null, "mcp-method": "tools/list" } }),
    );
    expect(lower.status).toBe(200);
    const padded = await handler(
      modernRequest(10, "tools/call", { name: "echo", arguments: {} }, {
        headers: { "Mcp-Name": "  echo  " },
      }),
    );
    expect(padded.status).toBe(200);
  });

  it("answers 400/-32020 for a wrong or missing Mcp-Name", async () => {
    const { server, handler } = setup();
    server.on("tools/call", () => ({ content: [] }));
    for (const headers of [{ "Mcp-Name": "wrong_tool_name" }, { "Mcp-Name": null }]) {
      const response = await handler(
        modernRequest(11, "tools/call", { name: "echo", arguments: {} }, { headers }),
      );
      expect(response.status).toBe(400);
      expect(await json(response)).toMatchObject({ id: 11, error: { code: -32020 } });
    }
  });

  it("validates Mcp-Param-* headers with the tool's annotations from the paramHeaders option", async () => {
    const { server, handler } = setup({
      paramHeaders: (name) => (name === "sql" ? [{ name: "Region", path: ["region"] }] : undefined),
    });
    server.on("tools/call", () => ({ content: [] }));
    const call = (headers: Record<string, string | null>, region: unknown = "Hello") =>
      handler(modernRequest(12, "tools/call", { name: "sql", arguments: { region } }, { headers }));
    expect((await call({ "Mcp-Param-Region": encodeHeaderValue("Hello") })).status).toBe(200);
    expect((await call({ "Mcp-Param-Region": "=?base64?SGVsbG8=?=" })).status).toBe(200);
    const bads: Record<string, string>[] = [
      { "Mcp-Param-Region": "=?base64?SGVsbG8?=" },
      { "Mcp-Param-Region": "=?base64?SGVs!!!bG8=?=" },
      { "Mcp-Param-Region": "Other" },
      {},
    ];
    for (const bad of bads) {
      const response = await call(bad);
      expect(response.status).toBe(400);
      expect(await json(response)).toMatchObject({ id: 12, error: { code: -32020 } });
    }
    // Another tool has no annotations: an Mcp-Param header nobody declares is ignored.
    const other = await handler(
      modernRequest(13, "tools/call", { name: "echo", arguments: {} }, {
        headers: { "Mcp-Param-Region": "x" },
      }),
    );
    expect(other.status).toBe(200);
  });

  it("reads the annotations from the server's toolInputSchema when the option is absent", async () => {
    const schema = { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } };
    const server = Object.assign(new FakeServer(), {
      toolInputSchema: (name: string) => (name === "sql" ? schema : undefined),
    });
    server.on("tools/call", () => ({ content: [] }));
    const handler = createHttpHandler(server, { keepAliveInterval: 0 });
    const call = (headers: Record<string, string>) =>
      handler(modernRequest(14, "tools/call", { name: "sql", arguments: { region: "eu" } }, { headers }));
    expect((await call({ "Mcp-Param-Region": "eu" })).status).toBe(200);
    expect((await call({})).status).toBe(400);
  });

  it("answers 404/-32601 with the id for initialize, ping and unknown methods", async () => {
    const { handler } = setup();
    for (const method of ["initialize", "ping", "unknown/method"]) {
      const response = await handler(modernRequest(500, method));
      expect(response.status).toBe(404);
      expect(await json(response)).toMatchObject({ id: 500, error: { code: -32601 } });
    }
  });

  it("answers GET and DELETE with 405 and Allow: POST", async () => {
    const { handler } = setup();
    for (const method of ["GET", "DELETE"]) {
      const response = await handler(new Request(URL_, { method }));
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
  });

  it("answers 400/-32700 for a body that is not JSON and 400/-32600 for a batch or a response", async () => {
    const { handler } = setup();
    const post = (body: string, headers: Record<string, string> = {}) =>
      handler(
        new Request(URL_, {
          method: "POST",
          body,
          headers: { "Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28", ...headers },
        }),
      );
    const notJson = await post("{oops");
    expect(notJson.status).toBe(400);
    expect(await json(notJson)).toMatchObject({ error: { code: -32700 } });
    const batch = await post('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]');
    expect(batch.status).toBe(400);
    expect(await json(batch)).toMatchObject({ error: { code: -32600 } });
    const reply = await post('{"jsonrpc":"2.0","id":4,"result":{}}');
    expect(reply.status).toBe(400);
    expect(await json(reply)).toMatchObject({ id: 4, error: { code: -32600 } });
  });

  it("answers 415 for a POST without Content-Type, as for a wrong one (issue 25 item 6)", async () => {
    const { handler } = setup();
    const typed = modernRequest(1, "tools/list");
    const headers = new Headers(typed.headers);
    headers.delete("content-type");
    // A byte body: the Request constructor adds no Content-Type of its own.
    const body = new TextEncoder().encode(await typed.text());
    const untyped = new Request(typed.url, { method: "POST", headers, body });
    expect(untyped.headers.get("content-type")).toBeNull();
    const response = await handler(untyped);
    expect(response.status).toBe(415);
    expect((await json(response) as { error: { message: string } }).error.message).toMatch(/got none/);
  });

  it("answers 415 for a body that is not application/json and 406 for an Accept that takes neither form", async () => {
    const { handler } = setup();
    expect(
      (await handler(modernRequest(1, "tools/list", {}, { headers: { "Content-Type": "text/plain" } })))
        .status,
    ).toBe(415);
    expect((await handler(modernRequest(1, "tools/list", {}, { headers: { Accept: "text/html" } }))).status)
      .toBe(406);
    expect((await handler(modernRequest(1, "tools/list", {}, { headers: { Accept: "*/*" } }))).status).toBe(
      200,
    );
  });
});

describe("createHttpHandler, modern era: cancellation and backpressure", () => {
  it("cancels the handler when the client drops the request (request.signal)", async () => {
    const { server, handler } = setup();
    const started = gate();
    let reason: unknown;
    server.on("tools/call", async ({ context }) => {
      started.open();
      reason = await aborted(context.signal);
      return { content: [] };
    });
    const client = new AbortController();
    const pending = handler(modernRequest(1, "tools/call", { name: "wait" }, { signal: client.signal }));
    await started.promise;
    client.abort();
    await pending;
    await flushMicrotasks();
    expect(reason).toBeInstanceOf(CancelledError);
  });

  it("cancels the handler when the client stops reading its SSE response, and later notifications are dropped", async () => {
    const { server, handler } = setup();
    const sentAfterCancel = gate<void>();
    let signal!: AbortSignal;
    server.on("tools/call", async ({ context }) => {
      signal = context.signal;
      await context.notify("notifications/progress", { progressToken: 1, progress: 1 });
      await aborted(context.signal);
      await context.notify("notifications/progress", { progressToken: 1, progress: 2 }); // resolves, sends nothing
      sentAfterCancel.open();
      return { content: [] };
    });
    const response = await handler(modernRequest(1, "tools/call", { name: "stream" }));
    const reader = new SseReader(response);
    expect(await reader.next()).toMatchObject({ method: "notifications/progress" });
    await reader.cancel();
    await sentAfterCancel.promise;
    expect(signal.aborted).toBe(true);
  });

  it("holds a handler whose client never reads: the stream stays within maxBufferedBytes", async () => {
    const { server, handler } = setup({ maxBufferedBytes: 16_384 });
    let sent = 0;
    const frame = "x".repeat(1000);
    server.on("tools/call", async ({ context }) => {
      for (let i = 0; i < 1000; i++) {
        await context.notify("notifications/progress", { progressToken: 1, progress: i, message: frame });
        sent++;
      }
      return { content: [] };
    });
    const response = await handler(modernRequest(1, "tools/call", { name: "flood" }));
    for (let i = 0; i < 20; i++) await flushMicrotasks();
    // About 1.1 KB per frame: the 16 KiB bound lets at most ~15 in, never the 1000.
    expect(sent).toBeGreaterThan(5);
    expect(sent).toBeLessThanOrEqual(16);
    // The bound is not hit early: a reader that keeps reading lets every notification through.
    const events = await new SseReader(response).rest();
    expect(sent).toBe(1000);
    expect(events).toHaveLength(1001);
  });
});

describe("createHttpHandler, modern era: listen streams", () => {
  function listenServer() {
    const server = new FakeServer();
    server.on("subscriptions/listen", async ({ context }) => {
      await context.notify("notifications/subscriptions/acknowledged", {
        _meta: { "io.modelcontextprotocol/subscriptionId": 1 },
        notifications: {},
      });
      await aborted(context.signal);
      return { _meta: { "io.modelcontextprotocol/subscriptionId": 1 } };
    });
    return server;
  }

  it("opens a long SSE response at once, sends keep-alive comments when quiet, and counts it", async () => {
    const time = new FakeTimeProvider();
    const handler = createHttpHandler(listenServer(), { timeProvider: time, keepAliveInterval: 10_000 });
    const response = await handler(
      modernRequest(1, "subscriptions/listen", { notifications: { toolsListChanged: true } }),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(handler.streamCount).toBe(1);
    const reader = new SseReader(response);
    expect(await reader.next()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    await time.advance(10_000); // the tick after the ack saw a write: no comment yet
    await time.advance(10_000);
    expect(await reader.readChunk()).toBe(":\n\n");
    await reader.cancel();
    await flushMicrotasks();
    expect(handler.streamCount).toBe(0);
  });

  it("refuses a listen stream over maxStreams with 429, and takes one again once a stream closed", async () => {
    const handler = createHttpHandler(listenServer(), {
      maxStreams: 2,
      keepAliveInterval: 0,
      shutdownTimeout: 0,
    });
    const first = await handler(modernRequest(1, "subscriptions/listen", { notifications: {} }));
    await handler(modernRequest(2, "subscriptions/listen", { notifications: {} }));
    const third = await handler(modernRequest(3, "subscriptions/listen", { notifications: {} }));
    expect(third.status).toBe(429);
    expect(await json(third)).toMatchObject({ id: 3, error: { code: -32000 } });
    await first.body!.cancel();
    await flushMicrotasks();
    const fourth = await handler(modernRequest(4, "subscriptions/listen", { notifications: {} }));
    expect(fourth.status).toBe(200);
    await handler.close();
  });

  it("drain() ends listen streams with their result, ends a later listen at once the same way, and still answers other requests", async () => {
    const server = listenServer();
    server.on("tools/list", () => ({ tools: [] }));
    const handler = createHttpHandler(server, { keepAliveInterval: 0 });
    const reader = new SseReader(
      await handler(modernRequest(9, "subscriptions/listen", { notifications: {} })),
    );
    expect(await reader.next()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    handler.drain();
    expect(await reader.next()).toEqual({
      jsonrpc: "2.0",
      id: 9,
      result: { _meta: { "io.modelcontextprotocol/subscriptionId": 1 } },
    });
    expect(await reader.next()).toBeUndefined();
    const later = new SseReader(
      await handler(modernRequest(11, "subscriptions/listen", { notifications: {} })),
    );
    const events = [await later.next(), await later.next(), await later.next()];
    expect(events.at(-1)).toBeUndefined(); // ended, not held open
    expect(events).toContainEqual({
      jsonrpc: "2.0",
      id: 11,
      result: { _meta: { "io.modelcontextprotocol/subscriptionId": 1 } },
    });
    const list = await handler(modernRequest(10, "tools/list"));
    expect(list.status).toBe(200);
    expect(handler.streamCount).toBe(0);
    await handler.close();
  });

  it("ends listen streams with their result on close, and then refuses new requests with 503", async () => {
    const handler = createHttpHandler(listenServer(), { keepAliveInterval: 0 });
    const response = await handler(modernRequest(9, "subscriptions/listen", { notifications: {} }));
    const reader = new SseReader(response);
    expect(await reader.next()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    const closing = handler.close();
    expect(await reader.next()).toEqual({
      jsonrpc: "2.0",
      id: 9,
      result: { _meta: { "io.modelcontextprotocol/subscriptionId": 1 } },
    });
    expect(await reader.next()).toBeUndefined();
    await closing;
    expect((await handler(modernRequest(10, "tools/list"))).status).toBe(503);
  });
});

describe("createHttpHandler: graceful close", () => {
  it("lets a request in flight finish within shutdownTimeout", async () => {
    const time = new FakeTimeProvider();
    const server = new FakeServer();
    const release = gate();
    server.on("tools/call", async () => {
      await release.promise;
      return { content: [{ type: "text", text: "done" }] };
    });
    const handler = createHttpHandler(server, {
      timeProvider: time,
      shutdownTimeout: 1000,
      keepAliveInterval: 0,
    });
    const pending = handler(modernRequest(1, "tools/call", { name: "x" }));
    await flushMicrotasks();
    const closing = handler.close();
    await time.advance(999);
    release.open();
    expect(await json(await pending)).toMatchObject({ id: 1, result: { content: [{ text: "done" }] } });
    await closing;
  });

  it("cancels a request still running after shutdownTimeout", async () => {
    const time = new FakeTimeProvider();
    const server = new FakeServer();
    let signal!: AbortSignal;
    server.on("tools/call", async ({ context }) => {
      signal = context.signal;
      await new Promise(() => {}); // never finishes by itself
    });
    const handler = createHttpHandler(server, {
      timeProvider: time,
      shutdownTimeout: 1000,
      keepAliveInterval: 0,
    });
    const pending = handler(modernRequest(1, "tools/call", { name: "x" }));
    await flushMicrotasks();
    let closed = false;
    void handler.close().then(() => (closed = true));
    await time.advance(999);
    expect(closed).toBe(false);
    expect(signal.aborted).toBe(false);
    await time.advance(1);
    await flushMicrotasks();
    expect(closed).toBe(true);
    expect(signal.aborted).toBe(true);
    expect((await pending).status).toBe(503);
  });
});
