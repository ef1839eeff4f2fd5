/**
 * Request ids beyond 2^53 over HTTP: JSON.parse reads 9007199254740995 and 9007199254740997 both as
 * 9007199254740996. The handler keeps each id as the client wrote it (issue 25 item 18): two such
 * requests are two requests in flight on one legacy session, each answered with its own id, byte for
 * byte, as JSON-RPC 2.0 asks ("the same value as the id member in the Request Object") and as the
 * stdio transport already does.
 */
import { describe, expect, it } from "vitest";
import {
  createHttpHandler,
  type HttpHandlerOptions,
} from "../../../../../src/http/server/create_http_handler.ts";
import { flushMicrotasks } from "../../../../../testing/fake_time_provider.ts";
import { aborted, FakeServer, gate, legacyPost, modernRequest, rpc } from "../http_handler_helpers.ts";

const A = "9007199254740995";
const B = "9007199254740997";

const INIT = rpc(0, "initialize", {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "c", version: "1" },
});

function setup(options: HttpHandlerOptions = {}) {
  const server = new FakeServer();
  const handler = createHttpHandler(server, { keepAliveInterval: 0, ...options });
  return { server, handler };
}

async function initialize(handler: ReturnType<typeof createHttpHandler>): Promise<string> {
  const response = await handler(legacyPost(INIT));
  expect(response.status).toBe(200);
  return response.headers.get("mcp-session-id")!;
}

/** A tools/call whose id is the JSON number `id`, written as is. */
function call(id: string): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"wait"}}`;
}

describe("createHttpHandler, request ids JSON.parse rounds", () => {
  it("keeps 9007199254740995 and 9007199254740997 apart on one legacy session, each answered with its own id", async () => {
    const { server, handler } = setup({ sessions: true });
    const release = gate();
    server.on("tools/call", async () => {
      await release.promise;
      return {};
    });
    const session = await initialize(handler);
    const first = handler(legacyPost(call(A), { "Mcp-Session-Id": session }));
    await flushMicrotasks();
    const second = handler(legacyPost(call(B), { "Mcp-Session-Id": session }));
    await flushMicrotasks();
    // Both in flight at once: the server runs both before either is answered.
    expect(server.calls).toHaveLength(2);
    release.open();
    const [a, b] = await Promise.all([first, second]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await a.text()).toBe(`{"jsonrpc":"2.0","id":${A},"result":{}}`);
    expect(await b.text()).toBe(`{"jsonrpc":"2.0","id":${B},"result":{}}`);
  });

  it("still refuses the same id twice in flight, and the refusal carries the id as written", async () => {
    const { server, handler } = setup({ sessions: true });
    const release = gate();
    server.on("tools/call", async () => {
      await release.promise;
      return {};
    });
    const session = await initialize(handler);
    const first = handler(legacyPost(call(A), { "Mcp-Session-Id": session }));
    await flushMicrotasks();
    const again = await handler(legacyPost(call(A), { "Mcp-Session-Id": session }));
    expect(again.status).toBe(400);
    const text = await again.text();
    expect(text).toContain(`"id":${A},`);
    expect(text).toContain(`request id ${A} is already in flight`);
    release.open();
    expect(await (await first).text()).toBe(`{"jsonrpc":"2.0","id":${A},"result":{}}`);
  });

  it("cancels only the request notifications/cancelled names by its exact id", async () => {
    const { server, handler } = setup({ sessions: true });
    const release = gate();
    const signals: AbortSignal[] = [];
    server.on("tools/call", async ({ context }) => {
      signals.push(context.signal);
      await Promise.race([release.promise, aborted(context.signal)]);
      return {};
    });
    const session = await initialize(handler);
    const first = handler(legacyPost(call(A), { "Mcp-Session-Id": session }));
    await flushMicrotasks();
    const second = handler(legacyPost(call(B), { "Mcp-Session-Id": session }));
    await flushMicrotasks();
    const cancel =
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${B},"reason":"no"}}`;
    expect((await handler(legacyPost(cancel, { "Mcp-Session-Id": session }))).status).toBe(202);
    expect(signals.map((s) => s.aborted)).toEqual([false, true]);
    release.open();
    await Promise.all([first, second]);
  });

  it.each([
    ["an SSE stream", {}],
    ["a resumable SSE stream", { resumability: true }],
  ])("answers with the exact id on the POST's SSE stream too (%s)", async (_, options) => {
    const { server, handler } = setup({ sessions: true, ...options });
    server.on("tools/call", async ({ context }) => {
      await context.notify("notifications/message", { level: "info", data: "first" });
      return { done: true };
    });
    const session = await initialize(handler);
    const response = await handler(legacyPost(call(B), { "Mcp-Session-Id": session }));
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const body = await response.text();
    expect(body).toContain(`data: {"jsonrpc":"2.0","id":${B},"result":{"done":true}}`);
  });

  it("answers a stateless legacy POST and a modern POST with the exact id", async () => {
    const { server, handler } = setup();
    server.on("tools/call", () => ({}));
    const legacy = await handler(legacyPost(call(A)));
    expect(await legacy.text()).toBe(`{"jsonrpc":"2.0","id":${A},"result":{}}`);
    const modern = modernRequest(0, "tools/call", { name: "wait" });
    const text = (await modern.text()).replace(/"id":0/, `"id":${B}`);
    const response = await handler(
      new Request(modern.url, { method: "POST", headers: modern.headers, body: text }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(new RegExp(`^\\{"jsonrpc":"2.0","id":${B},"result":`));
  });

  it("answers a modern refusal with the exact id", async () => {
    const { handler } = setup();
    const modern = modernRequest(0, "initialize", {});
    const text = (await modern.text()).replace(/"id":0/, `"id":${B}`);
    const response = await handler(
      new Request(modern.url, { method: "POST", headers: modern.headers, body: text }),
    );
    expect(response.status).toBe(404);
    expect(await response.text()).toContain(`"id":${B},`);
  });

  it("refuses a legacy POST with the exact id: unknown session (404), no session id (400), a version it does not speak (400)", async () => {
    const { handler } = setup({ sessions: true });
    const unknown = await handler(legacyPost(call(A), { "Mcp-Session-Id": "nope" }));
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain(`"id":${A},`);
    const missing = await handler(legacyPost(call(B)));
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain(`"id":${B},`);
    const version = await handler(legacyPost(call(A), { "MCP-Protocol-Version": "2024-01-01" }));
    expect(version.status).toBe(400);
    expect(await version.text()).toContain(`"id":${A},`);
  });
});
