/**
 * The official SDK clients (1.32 and 2.4) against our HTTP endpoint, served on node:http, in both
 * eras and both legacy modes.
 */
import { Client as Client24, StreamableHTTPClientTransport as Http24 } from "@modelcontextprotocol/client";
import { Client as Client132 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Http132 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "../../../adapters/node/_serve.ts";
import type { HttpServer } from "../../../adapters/_http/serve_options.ts";
import { createHttpHandler, type HttpHandlerOptions } from "../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../src/server/context_server.ts";

const servers: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: HttpHandlerOptions): Promise<URL> {
  const mcp = new ContextServer({ name: "http-interop", version: "1.0.0", capabilities: { tools: {} } });
  mcp.handle(
    "tools/list",
    () => ({
      tools: [{ name: "echo", inputSchema: { type: "object" } }, {
        name: "sample",
        inputSchema: { type: "object" },
      }],
    }),
  );
  mcp.handle("tools/call", async (params: { name: string }, context) => {
    await context.sendProgress(1, { total: 2 });
    if (params.name === "sample") {
      const answer = (await context.request("sampling/createMessage", { messages: [], maxTokens: 3 })) as {
        content: { text: string };
      };
      return { content: [{ type: "text", text: `sampled ${answer.content.text}` }] };
    }
    return { content: [{ type: "text", text: `${context.era} ${context.protocolVersion}` }] };
  });
  const server = await serve(createHttpHandler(mcp, options), { idleCloseDelay: 0 }); // no proxy in front: idle connections end at once on close
  servers.push(server);
  return new URL("/mcp", server.url);
}

describe("SDK 1.32 StreamableHTTPClientTransport against createHttpHandler", () => {
  for (const sessions of [true, false]) {
    it(`lists and calls tools with progress, ${sessions ? "in a session, with sampling over SSE" : "stateless, where sampling fails at once"}`, async () => {
      const url = await start({ sessions });
      const client = new Client132({ name: "sdk-1.32", version: "1" }, { capabilities: { sampling: {} } });
      client.setRequestHandler(
        CreateMessageRequestSchema,
        async () => ({ role: "assistant", content: { type: "text", text: "hi" }, model: "m" }),
      );
      const transport = new Http132(url);
      await client.connect(transport);
      expect(transport.sessionId !== undefined).toBe(sessions);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo", "sample"]);
      const progress: unknown[] = [];
      const echoed = await client.callTool({ name: "echo", arguments: {} }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      expect(echoed.content).toEqual([{ type: "text", text: "legacy 2025-11-25" }]);
      expect(progress).toEqual([{ progress: 1, total: 2 }]);
      if (sessions) {
        expect((await client.callTool({ name: "sample", arguments: {} })).content).toEqual([{
          type: "text",
          text: "sampled hi",
        }]);
        await transport.terminateSession();
      } else {
        await expect(client.callTool({ name: "sample", arguments: {} })).rejects.toThrow(/stateless HTTP/);
      }
      await client.close();
    });
  }
});

describe("SDK 2.4 client against createHttpHandler", () => {
  for (
    const [mode, era, version] of [["auto", "modern", "2026-07-28"], [
      "legacy",
      "legacy",
      "2025-11-25",
    ]] as const
  ) {
    it(`negotiates the ${era} era in ${mode} mode and calls a tool with progress`, async () => {
      const url = await start({ sessions: true });
      const client = new Client24(
        { name: "sdk-2.4", version: "1" },
        { versionNegotiation: { mode } } as never,
      );
      await client.connect(new Http24(url));
      expect((client as unknown as { getProtocolEra(): string }).getProtocolEra()).toBe(era);
      const progress: unknown[] = [];
      const result = await client.callTool(
        { name: "echo", arguments: {} },
        { onprogress: (p: unknown) => progress.push(p) } as never,
      );
      expect(result.content).toEqual([{ type: "text", text: `${era} ${version}` }]);
      expect(progress).toEqual([{ progress: 1, total: 2 }]);
      await client.close();
    });
  }
});
