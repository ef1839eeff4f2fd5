/** Input rounds through ContextServer.dispatch, without a stream: principal binding and stateless legacy. */
import { describe, expect, it } from "vitest";
import { ContextServer } from "../../../src/server/context_server.ts";
import type { DispatchContext } from "../../../src/server/dispatch_context.ts";
import { MetaKeys } from "../../../src/wire/protocol_versions.ts";

const META = { [MetaKeys.protocolVersion]: "2026-07-28", [MetaKeys.clientCapabilities]: { elicitation: {} } };

function server() {
  const s = new ContextServer({
    name: "s",
    version: "1",
    capabilities: { tools: {} },
    requestState: { key: "4b".repeat(32) },
  });
  s.handle("tools/call", async (_params, ctx) => {
    const answer = await ctx.elicit({
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    }, { key: "who" });
    return { content: [{ type: "text", text: `hi ${answer.content?.name}` }] };
  });
  return s;
}

const context = (extra: Partial<DispatchContext> = {}): DispatchContext => ({
  signal: new AbortController().signal,
  notify: async () => {},
  ...extra,
});
const call = (id: number, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "t", _meta: META, ...params },
});

describe("input rounds through dispatch", () => {
  it("binds the state to the transport's principal: another principal's retry is refused, the same one completes", async () => {
    const s = server();
    const first = (await s.dispatch(call(1), context({ principal: "alice" }))) as {
      result: { resultType: string; requestState: string };
    };
    expect(first.result.resultType).toBe("input_required");
    const retry = {
      requestState: first.result.requestState,
      inputResponses: { who: { action: "accept", content: { name: "Al" } } },
    };
    const bob = (await s.dispatch(call(2, retry), context({ principal: "bob" }))) as {
      error: { code: number; data: unknown };
    };
    expect(bob.error).toMatchObject({ code: -32602, data: { reason: "foreign" } });
    const anonymous = (await s.dispatch(call(3, retry), context())) as { error: { code: number } };
    expect(anonymous.error.code).toBe(-32602);
    const alice = (await s.dispatch(call(4, retry), context({ principal: "alice" }))) as {
      result: { content: { text: string }[] };
    };
    expect(alice.result.content[0].text).toBe("hi Al");
  });

  it("a stateless legacy request (no way back to the client) fails the ask at once with a clear error", async () => {
    const s = server();
    const reply = (await s.dispatch(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } },
      context({
        session: {
          legacy: {
            protocolVersion: "2025-11-25",
            clientInfo: undefined,
            clientCapabilities: { elicitation: {} },
          },
        },
      }),
    )) as { error: { code: number; message: string } };
    expect(reply.error.code).toBe(-32603);
    expect(reply.error.message).toMatch(/cannot carry server-to-client requests/);
  });
});
