/**
 * What an idle listen stream (modern `subscriptions/listen`) and a legacy `resources/subscribe` keep:
 * only what they need (the filter, the subscribed URIs, the id, a way to notify), never the request
 * they came in. Measured as retained heap after a full garbage collection (deterministic: a request
 * padded with megabytes either stays reachable or it does not), never timed.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../../src/server/context_server.ts";
import { TAKES_TEXT_REPLY } from "../../../../src/http/server/request_parts.ts";
import type { StreamReply } from "../../../../src/http/server/sse/stream_reply.ts";
import { legacyPost, modernRequest, rpc, SseReader } from "./http_handler_helpers.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Under the default 4 MiB body cap, so the request is served. */
const PAD = 3 * 1024 * 1024;
const MiB = 1024 * 1024;

function retainedHeap(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

function serverWithFeatures() {
  const server = new ContextServer({ name: "retention", version: "1.0.0" });
  server.tool("echo", {}, () => "x");
  server.resource("test://watched", { text: "w" });
  return server;
}

/** The ways a client can pad a listen request: each must be dropped once the stream is open. */
function paddedListen(id: number, where: string): Request {
  const pad = `${id}`.padEnd(PAD, "x");
  const notifications: Record<string, unknown> = {
    toolsListChanged: true,
    resourceSubscriptions: ["test://watched"],
  };
  const params: Record<string, unknown> = { notifications };
  const metaExtra: Record<string, unknown> = {};
  if (where === "params") params.padding = pad;
  if (where === "filter") notifications.padding = pad;
  if (where === "capabilities") {
    metaExtra["io.modelcontextprotocol/clientCapabilities"] = { experimental: { padding: pad } };
  }
  if (where === "clientInfo") {
    metaExtra["io.modelcontextprotocol/clientInfo"] = { name: "test", version: "1", padding: pad };
  }
  return modernRequest(id, "subscriptions/listen", params, { metaExtra });
}

describe("what an idle listen stream keeps", () => {
  it("drops its multi-megabyte request once the stream is open (4 streams, 3 MiB each: under 1 MiB retained)", async () => {
    const server = serverWithFeatures();
    const handler = createHttpHandler(server, { keepAliveInterval: 0 });
    // Warm up every code path once, so its one-time allocations are in the baseline.
    const warm = new SseReader(await handler(paddedListen(0, "params")));
    expect(await warm.next()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    await warm.cancel();
    const before = retainedHeap();
    const readers: SseReader[] = [];
    for (const [i, where] of ["params", "filter", "capabilities", "clientInfo"].entries()) {
      const reader = new SseReader(await handler(paddedListen(i + 1, where)));
      expect(await reader.next()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      readers.push(reader);
    }
    expect(server.features.listenStreams).toBe(4);
    const retained = retainedHeap() - before;
    expect(retained).toBeLessThan(1 * MiB);
    // The streams still work: each gets the update it asked for, then the graceful end.
    server.resourceUpdated("test://watched");
    for (const [i, reader] of readers.entries()) {
      expect(await reader.next()).toMatchObject({
        method: "notifications/resources/updated",
        params: { uri: "test://watched", _meta: { "io.modelcontextprotocol/subscriptionId": i + 1 } },
      });
    }
    const closing = handler.close();
    for (const [i, reader] of readers.entries()) {
      expect(await reader.rest()).toEqual([{
        jsonrpc: "2.0",
        id: i + 1,
        result: expect.objectContaining({
          _meta: expect.objectContaining({ "io.modelcontextprotocol/subscriptionId": i + 1 }),
        }),
      }]);
    }
    await closing;
  });

  it("makes no AbortController for a stream served as frames (serve() on Node), and still ends it gracefully on close", async () => {
    const server = serverWithFeatures();
    const handler = createHttpHandler(server, { keepAliveInterval: 0 });
    // Made first: a web Request makes its own AbortController.
    const request = Object.assign(
      modernRequest(1, "subscriptions/listen", { notifications: { toolsListChanged: true } }),
      { [TAKES_TEXT_REPLY]: true },
    );
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made++;
      }
    };
    let reply: StreamReply;
    try {
      reply = (await handler(request)) as unknown as StreamReply;
      const ack = new TextDecoder().decode(await reply.source.nextFrame());
      expect(ack).toContain("notifications/subscriptions/acknowledged");
      expect(server.features.listenStreams).toBe(1);
    } finally {
      globalThis.AbortController = Original;
    }
    expect(made).toBe(0);
    const closing = handler.close();
    const last = new TextDecoder().decode(await reply.source.nextFrame());
    expect(last).toContain('"result"');
    expect(await reply.source.nextFrame()).toBeUndefined();
    await closing;
    expect(server.features.listenStreams).toBe(0);
  });

  // About 3.3 KiB now; 6.1 KiB before issue 28 item 4 (async frames, an AbortController and a timer per stream).
  it("keeps under 4.5 KiB of heap per idle stream served as frames, besides what the HTTP server holds (1,000 streams)", async () => {
    const server = serverWithFeatures();
    const handler = createHttpHandler(server, { maxStreams: 2_000 }); // the default keep-alive: its timer counts too
    const open = async (id: number) => {
      const request = Object.assign(
        modernRequest(id, "subscriptions/listen", { notifications: { toolsListChanged: true } }),
        { [TAKES_TEXT_REPLY]: true },
      );
      const reply = (await handler(request)) as unknown as StreamReply;
      await reply.source.nextFrame(); // the acknowledgement
      return reply;
    };
    const warm = await open(0);
    warm.source.cancel(new Error("gone"));
    const before = retainedHeap();
    const replies: StreamReply[] = [];
    for (let id = 1; id <= 1_000; id++) replies.push(await open(id));
    const perStream = (retainedHeap() - before) / replies.length;
    expect(server.features.listenStreams).toBe(1_000);
    expect(perStream).toBeLessThan(4.5 * 1024);
    for (const reply of replies) reply.source.cancel(new Error("gone"));
    await handler.close();
  });

  it("the test can fail: a stream that kept its request would be seen (the padding itself is retained while held)", () => {
    const before = retainedHeap();
    const held = [paddedListen(1, "params"), paddedListen(2, "filter")];
    const retained = retainedHeap() - before;
    expect(held).toHaveLength(2);
    expect(retained).toBeGreaterThan(4 * MiB);
  });
});

describe("what a legacy resources/subscribe keeps", () => {
  it("keeps the URI of a multi-megabyte subscribe request, not the request (under 1 MiB retained)", async () => {
    const server = serverWithFeatures();
    const handler = createHttpHandler(server, { keepAliveInterval: 0, sessions: true });
    const init = await handler(
      legacyPost(rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {} })),
    );
    const headers = {
      "Mcp-Session-Id": init.headers.get("mcp-session-id")!,
      "MCP-Protocol-Version": "2025-11-25",
    };
    await init.text();
    await (await handler(legacyPost(rpc(undefined, "notifications/initialized"), headers))).text();
    const subscribe = async (id: number, uri: string) => {
      const body = rpc(id, "resources/subscribe", { uri, padding: "x".padEnd(PAD, "x") });
      const response = await handler(legacyPost(body, headers));
      return await response.json() as Record<string, unknown>;
    };
    expect(await subscribe(1, "test://warm")).toMatchObject({ id: 1, result: {} });
    const before = retainedHeap();
    for (let id = 2; id <= 5; id++) {
      expect(await subscribe(id, `test://watched-${id}-with-a-longer-uri`)).toMatchObject({ id, result: {} });
    }
    const retained = retainedHeap() - before;
    expect(retained).toBeLessThan(1 * MiB);
    await handler.close();
  });
});
