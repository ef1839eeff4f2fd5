/**
 * The everything server's asking tools (examples/everything/input_tools.mjs) over Streamable HTTP:
 * legacy sessions send real elicitation and sampling requests over SSE; stateless legacy fails the
 * ask at once; the modern era answers input_required rounds that the SDK 2.4 client fulfils, also
 * across two endpoints (replicas) sharing a state key.
 */
import { Client as Client24, StreamableHTTPClientTransport as Http24 } from "@modelcontextprotocol/client";
import { Client as Client132 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Http132 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "../../../adapters/node/_serve.ts";
import type { HttpServer } from "../../../adapters/_http/serve_options.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { addInputTools } from "../../../examples/everything/input_tools.mjs";

const KEY = "6a".repeat(32);
const servers: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(sessions: boolean, key = KEY): Promise<URL> {
  const mcp = new ContextServer({
    name: "asking-http",
    version: "1.0.0",
    capabilities: {},
    requestState: { key },
  });
  addInputTools(mcp);
  const server = await serve(createHttpHandler(mcp, { sessions }), { idleCloseDelay: 0 }); // no proxy in front: idle connections end at once on close
  servers.push(server);
  return new URL("/mcp", server.url);
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

describe("asking tools over Streamable HTTP", () => {
  it("SDK 1.32 in a legacy session answers elicitation and sampling requests sent over SSE", async () => {
    const client = new Client132({ name: "sdk-1.32", version: "1" }, {
      capabilities: { sampling: {}, elicitation: {} },
    });
    client.setRequestHandler(
      ElicitRequestSchema,
      async () => ({ action: "accept", content: { username: "u", email: "e@x" } }),
    );
    client.setRequestHandler(
      CreateMessageRequestSchema,
      async () => ({ role: "assistant", content: { type: "text", text: "hi" }, model: "m" }),
    );
    const transport = new Http132(await start(true));
    await client.connect(transport);
    expect(textOf(await client.callTool({ name: "test_sampling", arguments: { prompt: "p" } }))).toBe(
      "LLM response: hi",
    );
    expect(textOf(await client.callTool({ name: "test_elicitation", arguments: { message: "m" } }))).toBe(
      'User response: action=accept, content={"username":"u","email":"e@x"}',
    );
    await transport.terminateSession();
    await client.close();
  });

  it("stateless legacy HTTP: the ask fails at once with a clear error, never hangs", async () => {
    const client = new Client132({ name: "sdk-1.32", version: "1" }, { capabilities: { sampling: {} } });
    client.setRequestHandler(
      CreateMessageRequestSchema,
      async () => ({ role: "assistant", content: { type: "text", text: "hi" }, model: "m" }),
    );
    await client.connect(new Http132(await start(false)));
    const result = await client.callTool({ name: "test_sampling", arguments: { prompt: "p" } }).then(
      (r) => textOf(r),
      (e: Error) => e.message,
    );
    expect(result).toMatch(/cannot carry server-to-client requests/);
    await client.close();
  });

  it("SDK 2.4 (modern, stateless) fulfils input_required rounds; a retry may reach another endpoint sharing the key", async () => {
    const client = new Client24(
      { name: "sdk-2.4", version: "1" },
      {
        capabilities: { elicitation: {}, sampling: {}, roots: {} },
        versionNegotiation: { mode: "auto" },
      } as never,
    );
    client.setRequestHandler(
      "elicitation/create",
      async () => ({ action: "accept", content: { name: "Alice" } }) as never,
    );
    client.setRequestHandler(
      "sampling/createMessage",
      async () =>
        ({ role: "assistant", content: { type: "text", text: "Hello there!" }, model: "m" }) as never,
    );
    client.setRequestHandler(
      "roots/list",
      async () => ({ roots: [{ uri: "file:///r", name: "R" }] }) as never,
    );
    await client.connect(new Http24(await start(false)));
    expect(
      textOf(await client.callTool({ name: "test_input_required_result_multiple_inputs", arguments: {} })),
    ).toBe("name=Alice, greeting=Hello there!, roots=1");
    expect(textOf(await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} })))
      .toBe("Alice likes undefined");
    await client.close();

    // Two replicas: round 1 on A, the retry on B.
    const [a, b] = [await start(false), await start(false)];
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
    };
    const post = async (url: URL, id: number, params: Record<string, unknown>) => {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "test_input_required_result_elicitation",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "test_input_required_result_elicitation", arguments: {}, _meta: meta, ...params },
        }),
      });
      const body = await response.text();
      const line = body.startsWith("{")
        ? body
        : body.split("\n").find((l) => l.startsWith("data: {"))!.slice(6);
      return JSON.parse(line) as { result?: Record<string, unknown>; error?: { code: number } };
    };
    const first = await post(a, 1, {});
    expect(first.result?.resultType).toBe("input_required");
    const done = await post(b, 2, {
      requestState: first.result!.requestState,
      inputResponses: { user_name: { action: "accept", content: { name: "Bo" } } },
    });
    expect(done.result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "Hello, Bo!" }],
    });
    const c = await start(false, "77".repeat(32));
    expect(
      (await post(c, 3, {
        requestState: first.result!.requestState,
        inputResponses: { user_name: { action: "accept", content: { name: "Bo" } } },
      })).error?.code,
    ).toBe(-32602);
  });
});
