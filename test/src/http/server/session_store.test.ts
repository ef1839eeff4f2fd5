/**
 * Legacy sessions in a session store: two handlers (two "replicas") sharing a MemorySessionStore and
 * an in-process ReplyRelay serve each other's sessions: version, capabilities, log level and
 * subscriptions travel; a reply POSTed to the other replica settles the waiting request.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../../../src/http/server/create_http_handler.ts";
import {
  MemorySessionStore,
  type RelayedReply,
  type ReplyRelay,
} from "../../../../src/http/server/session_store.ts";
import { ContextServer } from "../../../../src/server/context_server.ts";
import { FakeTimeProvider } from "../../../../testing/fake_time_provider.ts";
import { InvalidOptionError } from "../../../../src/wire/errors.ts";
import { json, legacyPost, rpc, SseReader } from "./http_handler_helpers.ts";

class LocalRelay implements ReplyRelay {
  readonly #handlers = new Set<(reply: RelayedReply) => void>();
  published = 0;
  publish(reply: RelayedReply): Promise<void> {
    this.published++;
    for (const handler of this.#handlers) handler(reply);
    return Promise.resolve();
  }
  subscribe(onReply: (reply: RelayedReply) => void): () => void {
    this.#handlers.add(onReply);
    return () => this.#handlers.delete(onReply);
  }
}

function server() {
  const mcp = new ContextServer({
    name: "store-test",
    version: "1.0.0",
    capabilities: { tools: {}, logging: {}, resources: { subscribe: true } },
  });
  mcp.resource("file:///x", { name: "x" }, () => "x");
  mcp.handle("tools/call", async (params: { name: string }, context) => {
    if (params.name === "sample") {
      const answer = await context.request("sampling/createMessage", { messages: [], maxTokens: 5 });
      return { content: [{ type: "text", text: JSON.stringify(answer) }] };
    }
    return {
      content: [{
        type: "text",
        text: JSON.stringify({
          version: context.protocolVersion,
          capabilities: context.clientCapabilities,
          client: context.clientInfo?.name,
          logLevel: context.logLevel,
        }),
      }],
    };
  });
  return mcp;
}

describe("legacy sessions in a session store", () => {
  it("serves a session started on one replica on another, with its state, and relays replies", async () => {
    const sessionStore = new MemorySessionStore();
    const replyRelay = new LocalRelay();
    const options = { keepAliveInterval: 0, sessions: true, sessionStore, replyRelay } as const;
    const a = createHttpHandler(server(), options);
    const b = createHttpHandler(server(), options);
    const init = await a(legacyPost(rpc(0, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: { sampling: {} },
      clientInfo: { name: "roamer", version: "1" },
    })));
    const headers = {
      "Mcp-Session-Id": init.headers.get("mcp-session-id")!,
      "MCP-Protocol-Version": "2025-11-25",
    };
    await init.text();
    expect((await a(legacyPost(rpc(undefined, "notifications/initialized"), headers))).status).toBe(202);
    await json(await a(legacyPost(rpc(1, "logging/setLevel", { level: "warning" }), headers)));
    await json(await a(legacyPost(rpc(2, "resources/subscribe", { uri: "file:///x" }), headers)));
    await new Promise((resolve) => setTimeout(resolve, 0)); // saves are fire-and-forget
    expect(sessionStore.load(headers["Mcp-Session-Id"])).toMatchObject({ subscriptions: ["file:///x"] });

    // Replica b never saw this session: it loads it from the store.
    const call = await json(await b(legacyPost(rpc(3, "tools/call", { name: "state" }), headers)));
    const text = JSON.parse((call.result as { content: { text: string }[] }).content[0]!.text);
    expect(text).toEqual({
      version: "2025-11-25",
      capabilities: { sampling: {} },
      client: "roamer",
      logLevel: "warning",
    });

    // A server-to-client request from b, answered through a: the relay carries the reply.
    const stream = new SseReader(await b(legacyPost(rpc(4, "tools/call", { name: "sample" }), headers)));
    const asked = await stream.next();
    expect(asked).toMatchObject({ method: "sampling/createMessage" });
    const reply = {
      jsonrpc: "2.0",
      id: asked!.id,
      result: { role: "assistant", content: { type: "text", text: "hi" } },
    };
    expect((await a(legacyPost(reply, headers))).status).toBe(202);
    expect(replyRelay.published).toBe(1);
    expect(await stream.next()).toMatchObject({
      id: 4,
      result: { content: [{ text: expect.stringContaining("hi") }] },
    });
    expect(await stream.rest()).toEqual([]);

    // DELETE forgets it everywhere the store reaches.
    await a(new Request("http://127.0.0.1:3000/mcp", { method: "DELETE", headers }));
    expect(sessionStore.load(headers["Mcp-Session-Id"])).toBeUndefined();
    await a.close();
    await b.close();
  });

  it("answers 404 for a session neither replica nor the store knows", async () => {
    const handler = createHttpHandler(server(), {
      keepAliveInterval: 0,
      sessions: true,
      sessionStore: new MemorySessionStore(),
    });
    const response = await handler(
      legacyPost(rpc(1, "tools/list"), { "Mcp-Session-Id": "nope", "MCP-Protocol-Version": "2025-11-25" }),
    );
    expect(response.status).toBe(404);
  });

  it("MemorySessionStore keeps a session for its TTL and at most maxSessions", async () => {
    const time = new FakeTimeProvider();
    const store = new MemorySessionStore({ maxSessions: 2, timeProvider: time });
    const state = { protocolVersion: "2025-11-25", clientInfo: undefined, clientCapabilities: {} };
    store.save("a", state, 1000);
    await time.advance(999);
    expect(store.load("a")).toBeDefined(); // not hit early
    await time.advance(1);
    expect(store.load("a")).toBeUndefined();
    store.save("a", state, 10_000);
    store.save("b", state, 10_000);
    expect(store.size).toBe(2); // not hit early
    store.save("c", state, 10_000);
    expect(store.load("a")).toBeUndefined();
    expect(store.load("c")).toBeDefined();
    expect(() => new MemorySessionStore({ maxSessions: 0 })).toThrow(InvalidOptionError);
    expect(() => createHttpHandler(server(), { sessionStore: store })).toThrow(InvalidOptionError);
  });
});
