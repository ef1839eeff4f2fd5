/**
 * requireBearer hands the verified principal to createHttpHandler (issue 25 items 3 and 4): a modern
 * `requestState` opens only for the principal it was issued to (-32602 "foreign", as the spec's
 * SHOULD and the SDK 2.4 server do), and a legacy session only for the principal that opened it.
 */
import { describe, expect, it } from "vitest";
import { requireBearer } from "../../../src/auth/mod.ts";
import { createHttpHandler } from "../../../src/http/mcp_http_handler.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { json, meta, modernRequest } from "../http/http_handler_helpers.ts";

const TOKENS: Record<string, { subject: string }> = {
  "alice-token": { subject: "alice" },
  "bob-token": { subject: "bob" },
};

export function protectedHandler() {
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
  const http = createHttpHandler(server, { keepAliveInterval: 0 });
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
