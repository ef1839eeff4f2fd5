/**
 * The HTTP client transport on Deno: ContextClient.connect(httpTransport(url)) with Deno's own fetch,
 * against our server served by `Deno.serve`, both eras.
 * @module
 */
import { httpTransport, serve } from "../../adapters/deno.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { createHttpHandler } from "../../src/http/mcp_http_handler.ts";
import { ContextServer } from "../../src/server/context_server.ts";
import { assertEquals, assertStrictEquals } from "./assert.ts";

function mcp(): ContextServer {
  const server = new ContextServer({ name: "deno-http", version: "1.0.0", capabilities: { tools: {} } });
  server.handle("tools/list", () => ({ tools: [] }));
  server.handle("tools/call", async (_params: unknown, context) => {
    await context.sendProgress(1, 1);
    return { content: [{ type: "text", text: context.era }] };
  });
  return server;
}

for (const era of ["auto", "legacy"] as const) {
  Deno.test(`httpTransport on Deno (era ${era}): a call with progress over SSE, then close`, async () => {
    const http = await serve(createHttpHandler(mcp(), { path: "/mcp", keepAliveInterval: 0, sessions: true }));
    try {
      const client = await ContextClient.connect(httpTransport(new URL("/mcp", http.url)), { era, eraCache: new EraCache() });
      assertStrictEquals(client.era, era === "auto" ? "modern" : "legacy");
      const progress: unknown[] = [];
      const result = await client.request("tools/call", { name: "x", arguments: {}, _meta: { progressToken: "p" } }, {
        onNotification: (method) => void progress.push(method),
      }) as { content: Array<{ text: string }> };
      assertEquals(result.content[0].text, client.era);
      assertEquals(progress, ["notifications/progress"]);
      await client.close();
    } finally {
      await http.close();
    }
  });
}
