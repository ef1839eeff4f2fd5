/**
 * The HTTP client transport on one runtime: ContextClient.connect(httpTransport(url)) with the
 * runtime's own fetch, against our server served by the runtime's `serve` adapter, both eras.
 * Registered by `deno test` and `bun test`.
 * @module
 */
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { httpTransport } from "../../src/http/client/http_client_transport.ts";
import { createHttpHandler } from "../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../src/server/context_server.ts";
import { assertEquals, assertStrictEquals } from "./assert.ts";
import type { Serve } from "./http_serve_suite.ts";
import type { TestApi } from "./test_api.ts";

function mcp(runtime: string): ContextServer {
  const server = new ContextServer({
    name: `${runtime.toLowerCase()}-http`,
    version: "1.0.0",
    capabilities: { tools: {} },
  });
  server.handle("tools/list", () => ({ tools: [] }));
  server.handle("tools/call", async (_params: unknown, context) => {
    await context.sendProgress(1, { total: 1 });
    return { content: [{ type: "text", text: context.era }] };
  });
  return server;
}

/** Registers the suite on `api` for the `serve` of `runtime`. */
export function httpClientSuite(api: TestApi, runtime: string, serve: Serve): void {
  for (const era of ["auto", "legacy"] as const) {
    api.test(`httpTransport on ${runtime} (era ${era}): a call with progress over SSE, then close`, async () => {
      const http = await serve(
        createHttpHandler(mcp(runtime), { path: "/mcp", keepAliveInterval: 0, sessions: true }),
      );
      try {
        const client = await ContextClient.connect(httpTransport(new URL("/mcp", http.url)), {
          era,
          eraCache: new EraCache(),
        });
        assertStrictEquals(client.era, era === "auto" ? "modern" : "legacy");
        const progress: string[] = [];
        const result =
          (await client.request("tools/call", { name: "x", arguments: {}, _meta: { progressToken: "p" } }, {
            onNotification: (method) => void progress.push(method),
          })) as { content: Array<{ text: string }> };
        assertEquals(result.content[0].text, client.era);
        assertEquals(progress, ["notifications/progress"]);
        await client.close();
      } finally {
        await http.close();
      }
    });
  }
}
