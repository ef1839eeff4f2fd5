// Official SDK clients against a ContextServer whose handler asks with ctx.elicit / ctx.sample /
// ctx.listRoots, in-process over an in-memory pair: the SDK 2.4 client auto-fulfils our input_required
// results (modern era); the SDK 1.32 client answers our legacy requests (real server-to-client requests).
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { ContextServer } from "../../src/server/context_server.ts";
import { createDuplexPair } from "../../testing/duplex_pair.ts";
import { SdkDuplexTransport } from "../helpers/sdk_duplex_transport.ts";

function serve() {
  const server = new ContextServer({
    name: "asking",
    version: "1",
    capabilities: { tools: {} },
    requestState: { key: "5e".repeat(32) },
  });
  server.handle("tools/list", () => ({ tools: [{ name: "ask", inputSchema: { type: "object" } }] }));
  server.handle("tools/call", async (_params, ctx) => {
    const [who, hi] = await Promise.all([
      ctx.elicit({
        message: "Your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      }, { key: "who" }),
      ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "Say hi" } }], maxTokens: 20 }, {
        key: "hi",
      }),
    ]);
    const roots = await ctx.listRoots();
    const text = JSON.stringify({
      era: ctx.era,
      round: ctx.round,
      who: who.content,
      hi: hi.content,
      roots: roots.roots.map((r) => r.uri),
    });
    return { content: [{ type: "text", text }] };
  });
  const [serverSide, clientSide] = createDuplexPair();
  const served = server.serve(serverSide);
  return { server, served, transport: new SdkDuplexTransport(clientSide) };
}

describe("SDK clients against ContextServer handlers that ask", () => {
  it("SDK 2.4 client (modern) auto-fulfils our input_required results round after round", async () => {
    const { server, transport } = serve();
    const client = new Client({ name: "sdk24", version: "2.4.0" }, {
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
      versionNegotiation: { mode: "auto" },
    });
    client.setRequestHandler(
      "elicitation/create",
      async () => ({ action: "accept", content: { name: "Ada" } }),
    );
    client.setRequestHandler(
      "sampling/createMessage",
      async () => ({
        role: "assistant",
        content: { type: "text", text: "hi!" },
        model: "m",
        stopReason: "endTurn",
      }),
    );
    client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///r", name: "r" }] }));
    await client.connect(transport as never);
    const result = await client.callTool({ name: "ask", arguments: {} });
    const body = JSON.parse((result.content as { text: string }[])[0].text);
    expect(body).toEqual({
      era: "modern",
      round: 2,
      who: { name: "Ada" },
      hi: { type: "text", text: "hi!" },
      roots: ["file:///r"],
    });
    await client.close();
    await server.close();
  });

  it("SDK 1.32 client (legacy) answers the same handler's elicitation, sampling and roots requests", async () => {
    const { server, transport } = serve();
    const client = new LegacyClient({ name: "sdk132", version: "1.32.2" }, {
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
    });
    client.setRequestHandler(
      ElicitRequestSchema,
      async () => ({ action: "accept", content: { name: "Lin" } }),
    );
    client.setRequestHandler(
      CreateMessageRequestSchema,
      async () => ({ role: "assistant", content: { type: "text", text: "yo" }, model: "m" }),
    );
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///l" }] }));
    await client.connect(transport as never);
    const result = await client.callTool({ name: "ask", arguments: {} });
    const body = JSON.parse((result.content as { text: string }[])[0].text);
    expect(body).toEqual({
      era: "legacy",
      round: 0,
      who: { name: "Lin" },
      hi: { type: "text", text: "yo" },
      roots: ["file:///l"],
    });
    await client.close();
    await server.close();
  });
});
