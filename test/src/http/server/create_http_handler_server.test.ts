/**
 * The HTTP handler driving a real ContextServer through its message-level seam, both eras.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../../src/server/context_server.ts";
import { json, legacyPost, modernRequest, rpc, SseReader } from "./http_handler_helpers.ts";

function server() {
  const mcp = new ContextServer({ name: "http-test", version: "1.0.0", capabilities: { tools: {} } });
  mcp.handle("tools/list", () => ({ tools: [] }));
  mcp.handle("tools/call", async (params: { name: string }, context) => {
    if (params.name === "progress") {
      for (let i = 1; i <= 3; i++) await context.sendProgress(i, { total: 3 });
      return { content: [{ type: "text", text: "done" }] };
    }
    if (params.name === "sample") {
      const answer = await context.request("sampling/createMessage", { messages: [], maxTokens: 5 });
      return { content: [{ type: "text", text: JSON.stringify(answer) }] };
    }
    return { content: [{ type: "text", text: `${context.era} ${context.protocolVersion}` }] };
  });
  return mcp;
}

describe("createHttpHandler over ContextServer", () => {
  it("answers server/discover and a modern tools/call, decorated with resultType", async () => {
    const handler = createHttpHandler(server(), { keepAliveInterval: 0 });
    const discover = await json(await handler(modernRequest(1, "server/discover")));
    expect(discover).toMatchObject({
      id: 1,
      result: { supportedVersions: ["2026-07-28"], resultType: "complete" },
    });
    const call = await json(await handler(modernRequest(2, "tools/call", { name: "echo", arguments: {} })));
    expect(call).toMatchObject({
      id: 2,
      result: { resultType: "complete", content: [{ text: "modern 2026-07-28" }] },
    });
  });

  it("answers a modern tools/call with the bytes of the decorated object form (the server's result text spliced in)", async () => {
    const handler = createHttpHandler(server(), { keepAliveInterval: 0 });
    const text = await (await handler(modernRequest(7, "tools/call", { name: "echo", arguments: {} })))
      .text();
    const expected = {
      jsonrpc: "2.0",
      id: 7,
      result: {
        content: [{ type: "text", text: "modern 2026-07-28" }],
        resultType: "complete",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "http-test", version: "1.0.0" } },
      },
    };
    expect(text).toBe(JSON.stringify(expected));
  });

  it("streams progress for a modern call with a progress token, then the result", async () => {
    const handler = createHttpHandler(server(), { keepAliveInterval: 0 });
    const response = await handler(
      modernRequest(3, "tools/call", { name: "progress", arguments: {} }, {
        metaExtra: { progressToken: "p" },
      }),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = await new SseReader(response).rest();
    expect(events.map((e) => e.method ?? "result")).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      "result",
    ]);
  });

  it("answers 404/-32601 for an unknown modern method", async () => {
    const handler = createHttpHandler(server(), { keepAliveInterval: 0 });
    const response = await handler(modernRequest(4, "nope/nothing"));
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({ id: 4, error: { code: -32601 } });
  });

  it("serves stateless legacy requests at the header's version, and fails a server-to-client request at once", async () => {
    const handler = createHttpHandler(server(), { keepAliveInterval: 0 });
    expect(
      await json(
        await handler(legacyPost(rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {} }))),
      ),
    ).toMatchObject({
      result: { protocolVersion: "2025-11-25", serverInfo: { name: "http-test" } },
    });
    const call = await json(
      await handler(
        legacyPost(rpc(1, "tools/call", { name: "echo" }), { "MCP-Protocol-Version": "2025-06-18" }),
      ),
    );
    expect(call).toMatchObject({ result: { content: [{ text: "legacy 2025-06-18" }] } });
    const sample = await json(
      await handler(
        legacyPost(rpc(2, "tools/call", { name: "sample" }), { "MCP-Protocol-Version": "2025-11-25" }),
      ),
    );
    expect(sample).toMatchObject({ id: 2, error: { message: expect.stringContaining("stateless HTTP") } });
  });

  it("runs a legacy session: initialize, a sampling round trip over SSE, DELETE", async () => {
    const handler = createHttpHandler(server(), { keepAliveInterval: 0, sessions: true });
    const init = await handler(
      legacyPost(rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: { sampling: {} } })),
    );
    const id = init.headers.get("mcp-session-id")!;
    expect(await json(init)).toMatchObject({ result: { protocolVersion: "2025-11-25" } });
    expect(
      (await handler(legacyPost(rpc(undefined, "notifications/initialized"), { "Mcp-Session-Id": id })))
        .status,
    ).toBe(202);
    const headers = { "Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25" };
    const reader = new SseReader(
      await handler(legacyPost(rpc(1, "tools/call", { name: "sample" }), headers)),
    );
    const outgoing = await reader.next();
    expect(outgoing).toMatchObject({ method: "sampling/createMessage" });
    expect(
      (await handler(legacyPost({ jsonrpc: "2.0", id: outgoing!.id, result: { model: "m" } }, headers)))
        .status,
    ).toBe(202);
    expect(await reader.next()).toMatchObject({ id: 1, result: { content: [{ text: '{"model":"m"}' }] } });
    expect((await handler(new Request("http://127.0.0.1/mcp", { method: "DELETE", headers }))).status).toBe(
      200,
    );
    expect((await handler(legacyPost(rpc(2, "tools/list"), headers))).status).toBe(404);
  });

  it("validates Mcp-Param-* against the registered tool's x-mcp-header annotations", async () => {
    const mcp = new ContextServer({ name: "params", version: "1.0.0" });
    mcp.tool(
      "sql",
      {
        description: "Runs SQL",
        inputSchema: {
          type: "object",
          properties: { region: { type: "string", "x-mcp-header": "Region" } },
          required: ["region"],
        },
      },
      (args) => `ran in ${(args as { region: string }).region}`,
    );
    const handler = createHttpHandler(mcp, { keepAliveInterval: 0 });
    const call = (headers: Record<string, string>) =>
      handler(modernRequest(1, "tools/call", { name: "sql", arguments: { region: "eu" } }, { headers }));
    const ok = await call({ "Mcp-Param-Region": "eu" });
    expect(ok.status).toBe(200);
    expect(await json(ok)).toMatchObject({ result: { content: [{ text: "ran in eu" }] } });
    const missing = await call({});
    expect(missing.status).toBe(400);
    expect(await json(missing)).toMatchObject({
      id: 1,
      error: { code: -32020, data: { header: "Mcp-Param-Region" } },
    });
  });

  it("sends list changes to an initialized legacy HTTP session on its GET stream", async () => {
    const mcp = new ContextServer({ name: "changes", version: "1.0.0" });
    mcp.tool("first", { description: "One" }, () => "1");
    const handler = createHttpHandler(mcp, { keepAliveInterval: 0, sessions: true });
    const init = await handler(
      legacyPost(rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {} })),
    );
    const headers = {
      "Mcp-Session-Id": init.headers.get("mcp-session-id")!,
      "MCP-Protocol-Version": "2025-11-25",
    };
    await handler(legacyPost(rpc(undefined, "notifications/initialized"), headers));
    const reader = new SseReader(
      await handler(
        new Request("http://127.0.0.1/mcp", {
          method: "GET",
          headers: { ...headers, Accept: "text/event-stream" },
        }),
      ),
    );
    mcp.tool("second", { description: "Two" }, () => "2");
    expect(await reader.next()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await handler(new Request("http://127.0.0.1/mcp", { method: "DELETE", headers }));
    expect(await reader.next()).toBeUndefined();
  });
});
