/**
 * The notifications tied to a feature-API request (its progress, on HTTP everything on its response
 * stream) take the client's one notification path, whatever the transport and era: the feature API
 * (`onProgress`) and the `onNotification()` handlers both hear them.
 */
import { describe, expect, it } from "vitest";
import { ContextClient } from "../../../src/client/context_client.ts";
import { httpTransport } from "../../../src/http/client/http_client_transport.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";

function progressServer(): ContextServer {
  const server = new ContextServer({ name: "progress", version: "1.0.0", capabilities: { tools: {} } });
  server.handle("tools/call", async (_params, ctx) => {
    await ctx.sendProgress(1, { total: 2, message: "half" });
    await ctx.sendProgress(2, { total: 2 });
    return { content: [{ type: "text", text: "done" }] };
  });
  return server;
}

async function connect(net: "pipe" | "http", era: "legacy" | "modern"): Promise<ContextClient> {
  const server = progressServer();
  if (net === "pipe") {
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);
    return ContextClient.connect(clientSide, { era, eraCache: null });
  }
  const handler = createHttpHandler(server, { keepAliveInterval: 0, sessions: true });
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => handler(new Request(input, init));
  return ContextClient.connect(httpTransport("http://127.0.0.1/mcp", { fetch }), { era, eraCache: null });
}

describe("a feature-API request's notifications take the client's one path", () => {
  for (const net of ["pipe", "http"] as const) {
    for (const era of ["legacy", "modern"] as const) {
      it(`over ${net} (${era}): callTool's progress reaches onProgress and the onNotification handler`, async () => {
        const client = await connect(net, era);
        const handled: number[] = [];
        client.onNotification("notifications/progress", (params) => {
          handled.push((params as { progress: number }).progress);
        });
        const updates: number[] = [];
        const result = await client.callTool("work", {}, {
          onProgress: (update) => updates.push(update.progress),
        });
        expect(result).toMatchObject({ content: [{ type: "text", text: "done" }] });
        expect(updates).toEqual([1, 2]);
        expect(handled).toEqual([1, 2]);
        await client.close();
      });
    }
  }
});
