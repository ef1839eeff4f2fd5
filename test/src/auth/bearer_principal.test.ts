/**
 * requireBearer hands the verified principal to createHttpHandler (issue 25 items 3 and 4): a modern
 * `requestState` opens only for the principal it was issued to (-32602 "foreign", as the spec's
 * SHOULD and the SDK 2.4 server do), and a legacy session only for the principal that opened it.
 */
import { describe, expect, it } from "vitest";
import { requireBearer } from "../../../src/auth/mod.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { json, meta, modernRequest } from "../http/server/http_handler_helpers.ts";

const TOKENS: Record<string, { subject: string }> = {
  "alice-token": { subject: "alice" },
  "bob-token": { subject: "bob" },
};

export function protectedHandler(sessions = false) {
  const server = new ContextServer({
    name: "p",
    version: "1",
    capabilities: { tools: {} },
    requestState: { key: "4b".repeat(32) },
  });
  server.handle("tools/call", async (_params, ctx) => {
    const answer = await ctx.elicit({
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    }, { key: "who" });
    return { content: [{ type: "text", text: `hi ${answer.content?.name}` }] };
  });
  const http = createHttpHandler(server, { keepAliveInterval: 0, sessions });
  return requireBearer(http, {
    verify: (token) => {
      const who = TOKENS[token];
      return who && { scopes: [], subject: who.subject };
    },
  });
}

function as(token: string, request: Request): Request {
  const headers = new Headers(request.headers);
  headers.set("authorization", `Bearer ${token}`);
  return new Request(request, { headers });
}

const elicitMeta = { ...meta(), "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };

describe("requestState bound to the bearer token's principal", () => {
  it("refuses alice's requestState for bob with -32602 foreign, and completes it for alice", async () => {
    const handler = protectedHandler();
    const call = (id: number, extra: Record<string, unknown> = {}) =>
      modernRequest(id, "tools/call", { name: "t", ...extra }, { metaExtra: elicitMeta });
    const first = await json(await handler(as("alice-token", call(1))));
    expect(first).toMatchObject({ result: { resultType: "input_required" } });
    const retry = {
      requestState: (first as { result: { requestState: string } }).result.requestState,
      inputResponses: { who: { action: "accept", content: { name: "Al" } } },
    };
    const bob = await json(await handler(as("bob-token", call(2, retry))));
    expect(bob).toMatchObject({ id: 2, error: { code: -32602, data: { reason: "foreign" } } });
    const alice = await json(await handler(as("alice-token", call(3, retry))));
    expect(alice).toMatchObject({ id: 3, result: { content: [{ text: "hi Al" }] } });
  });
});

describe("legacy sessions bound to the bearer token's principal", () => {
  const legacy = (token: string, method: string, body?: unknown, session?: string) => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    };
    if (session !== undefined) {
      headers["mcp-session-id"] = session;
      headers["mcp-protocol-version"] = "2025-11-25";
    }
    return new Request("http://127.0.0.1:3000/mcp", {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  };

  it("answers 404 to another principal's POST and DELETE, and the owner's session lives on", async () => {
    const handler = protectedHandler(true);
    const init = await handler(legacy("alice-token", "POST", {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }));
    expect(init.status).toBe(200);
    const session = init.headers.get("mcp-session-id")!;
    await init.text();
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const bobPost = await handler(legacy("bob-token", "POST", ping, session));
    expect(bobPost.status).toBe(404);
    const bobDelete = await handler(legacy("bob-token", "DELETE", undefined, session));
    expect(bobDelete.status).toBe(404);
    const alicePost = await handler(legacy("alice-token", "POST", ping, session));
    expect(alicePost.status).toBe(200);
    expect(await json(alicePost)).toMatchObject({ id: 1, result: {} });
    const aliceDelete = await handler(legacy("alice-token", "DELETE", undefined, session));
    expect(aliceDelete.status).toBe(200);
  });
});

describe("requireBearer forwards the wrapped handler's shutdown (issue 25 item 5)", () => {
  it("drain and close reach the handler: a legacy session ends on close", async () => {
    const handler = protectedHandler(true);
    expect(typeof handler.drain).toBe("function");
    const init = await handler(
      new Request("http://127.0.0.1:3000/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: "Bearer alice-token",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
      }),
    );
    await init.text();
    expect(handler.sessionCount).toBe(1);
    handler.drain();
    await handler.close();
    await handler.closed;
    expect(handler.sessionCount).toBe(0);
  });

  it("forwards only what the handler has, calling it each time", () => {
    const calls: string[] = [];
    const inner = Object.assign(() => new Response(null), { drain: () => void calls.push("drain") });
    const wrapped = requireBearer(inner, { verify: () => undefined });
    wrapped.drain();
    wrapped.drain();
    expect(calls).toEqual(["drain", "drain"]);
    expect("close" in wrapped).toBe(false);
  });
});

describe("requireBearer's own answers carry the handler's CORS headers (issue 25 item 10)", () => {
  const guarded = () => {
    const server = new ContextServer({ name: "c", version: "1", capabilities: { tools: {} } });
    const http = createHttpHandler(server, {
      keepAliveInterval: 0,
      cors: { origins: ["https://app.example"] },
    });
    return requireBearer(http, {
      verify: (token) => (token === "narrow" ? { scopes: [] } : undefined),
      scopes: ["mcp"],
    });
  };
  const from = (origin: string, token?: string) => {
    const request = modernRequest(1, "tools/list");
    const headers = new Headers(request.headers);
    headers.set("origin", origin);
    if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
    return new Request(request, { headers });
  };

  it("401 and 403 let an allowed origin read the challenge", async () => {
    const handler = guarded();
    for (
      const response of [
        await handler(from("https://app.example")),
        await handler(from("https://app.example", "bad")),
        await handler(from("https://app.example", "narrow")),
      ]
    ) {
      expect([401, 403]).toContain(response.status);
      expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example");
      expect(response.headers.get("access-control-expose-headers")).toMatch(/WWW-Authenticate/i);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
    }
  });

  it("an origin the policy does not allow gets no CORS headers", async () => {
    const response = await guarded()(from("https://evil.example"));
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });
});
