/**
 * The HTTP client transport on Bun: ContextClient.connect(httpTransport(url)) with Bun's own fetch,
 * against our server served by `Bun.serve`, both eras.
 * @module
 */
import { expect, test } from "bun:test";
import { httpTransport, serve } from "../../adapters/bun.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { createHttpHandler } from "../../src/http/mcp_http_handler.ts";
import { ContextServer } from "../../src/server/context_server.ts";

function mcp(): ContextServer {
  const server = new ContextServer({ name: "bun-http", version: "1.0.0", capabilities: { tools: {} } });
  server.handle("tools/list", () => ({ tools: [] }));
  server.handle("tools/call", async (_params: unknown, context) => {
    await context.sendProgress(1, 1);
    return { content: [{ type: "text", text: context.era }] };
  });
  return server;
}

for (const era of ["auto", "legacy"] as const) {
  test(`httpTransport on Bun (era ${era}): a call with progress over SSE, then close`, async () => {
    const http = await serve(createHttpHandler(mcp(), { path: "/mcp", keepAliveInterval: 0, sessions: true }));
    try {
      const client = await ContextClient.connect(httpTransport(new URL("/mcp", http.url)), { era, eraCache: new EraCache() });
      expect(client.era).toBe(era === "auto" ? "modern" : "legacy");
      const progress: string[] = [];
      const result = (await client.request("tools/call", { name: "x", arguments: {}, _meta: { progressToken: "p" } }, {
        onNotification: (method) => void progress.push(method),
      })) as { content: Array<{ text: string }> };
      expect(result.content[0].text).toBe(client.era);
      expect(progress).toEqual(["notifications/progress"]);
      await client.close();
    } finally {
      await http.close();
    }
  });
}
