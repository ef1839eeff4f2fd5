/**
 * Global setup of the browser suite: our HTTP server (both eras, legacy sessions, CORS on) on
 * 127.0.0.1 in Node, its URL provided to the browser tests as `httpUrl`.
 */
import type { TestProject } from "vitest/node";
import { serve } from "../../adapters/node/mod.ts";
import { createHttpHandler } from "../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../src/server/context_server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    httpUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const mcp = new ContextServer({ name: "browser-http", version: "1.0.0", capabilities: { tools: {} } });
  mcp.handle(
    "tools/list",
    () => ({
      tools: [{
        name: "echo",
        inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
      }],
    }),
  );
  mcp.handle("tools/call", async (params: { arguments?: { region?: string } }, context) => {
    await context.sendProgress(1, { total: 1 });
    return { content: [{ type: "text", text: `${context.era} ${params.arguments?.region ?? ""}`.trim() }] };
  });
  const http = await serve(
    createHttpHandler(mcp, { path: "/mcp", cors: true, sessions: true, keepAliveInterval: 0 }),
  );
  project.provide("httpUrl", new URL("/mcp", http.url).href);
  return () => http.close();
}
