/**
 * The client feature API on one runtime: paginated lists, callTool with progress and an output schema
 * check, and listen streams of both eras, against in-memory scripted servers (web APIs only).
 * Registered by `deno test` and `bun test`.
 * @module
 */
import { ContextClient } from "../../src/client/context_client.ts";
import { StructuredContentError } from "../../src/client/features/feature_errors.ts";
import { MetaKeys } from "../../src/wire/protocol_versions.ts";
import { discoverResult, fakeTransport, type Message, type Peer } from "../fixtures/hostile/scripted_peer.ts";
import { assert, assertEquals } from "./assert.ts";
import type { TestApi } from "./test_api.ts";

const CAPABILITIES = { tools: { listChanged: true }, resources: { subscribe: true } };
const WEATHER = {
  name: "weather",
  inputSchema: { type: "object" },
  outputSchema: { type: "object", properties: { temp: { type: "number" } }, required: ["temp"] },
};

function server(era: "modern" | "legacy", onListen: (m: Message, peer: Peer) => void = () => {}) {
  return fakeTransport((m, peer) => {
    if (m.method === "server/discover") {
      return era === "modern"
        ? peer.reply(m.id, discoverResult(undefined, { capabilities: CAPABILITIES }))
        : peer.error(m.id, -32601, "Method not found");
    }
    if (m.method === "initialize") {
      return peer.reply(m.id, {
        protocolVersion: "2025-11-25",
        capabilities: CAPABILITIES,
        serverInfo: { name: "s", version: "1" },
      });
    }
    if (m.id === undefined) return;
    if (m.method === "tools/list") {
      return peer.reply(
        m.id,
        m.params?.cursor === undefined
          ? { tools: [WEATHER], nextCursor: "2" }
          : { tools: [{ name: "free", inputSchema: { type: "object" } }] },
      );
    }
    if (m.method === "tools/call") {
      const token = m.params._meta?.progressToken;
      if (token !== undefined) {
        peer.send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 1 },
        });
      }
      return peer.reply(m.id, {
        content: [],
        structuredContent: { temp: m.params.arguments.bad ? "warm" : 20 },
      });
    }
    if (m.method === "subscriptions/listen") return onListen(m, peer);
    peer.reply(m.id, {});
  });
}

/** Registers the suite on `api`; `runtime` names the runtime in the test names. */
export function clientFeaturesSuite(api: TestApi, runtime: string): void {
  for (const era of ["modern", "legacy"] as const) {
    api.test(`ContextClient features on ${runtime} (${era}): lists follow cursors, callTool feeds progress and checks structuredContent`, async () => {
      const client = await ContextClient.connect(server(era), { era, eraCache: null });
      const tools = await client.listTools();
      assertEquals(tools.map((t) => t.name), ["weather", "free"]);
      const progress: number[] = [];
      const result = await client.callTool("weather", {}, { onProgress: (p) => progress.push(p.progress) });
      assertEquals(result.structuredContent, { temp: 20 });
      assertEquals(progress, [1]);
      const error = await client.callTool("weather", { bad: true }).catch((e) => e);
      assert(error instanceof StructuredContentError, `Expected a StructuredContentError, got ${error}`);
      await client.close();
    });
  }

  api.test(`ContextClient listen on ${runtime} (modern): acknowledged, events by subscription id, cancelled by return()`, async () => {
    let listen: Message | undefined;
    let listenPeer: Peer | undefined;
    const transport = server("modern", (m, peer) => {
      listen = m;
      listenPeer = peer;
      const meta = { [MetaKeys.subscriptionId]: m.id };
      peer.send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: meta, notifications: { toolsListChanged: true } },
      });
      peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: meta } });
    });
    const client = await ContextClient.connect(transport, { era: "modern", eraCache: null });
    const changes = client.listen({ tools: true });
    assertEquals(await changes.ready, { toolsListChanged: true });
    for await (const change of changes) {
      assertEquals(change, { type: "toolsListChanged" });
      break;
    }
    assert(listen !== undefined && listenPeer !== undefined, "The server got no listen request");
    for (
      let i = 0;
      i < 100 && !transport.peers[0].received.some((m) => m.method === "notifications/cancelled");
      i++
    ) await new Promise((r) => setTimeout(r, 0));
    assertEquals(
      transport.peers[0].received.find((m) => m.method === "notifications/cancelled")?.params.requestId,
      listen.id,
    );
    await client.close();
  });

  api.test(`ContextClient listen on ${runtime} (legacy): resources/subscribe, the update, resources/unsubscribe on close`, async () => {
    const transport = server("legacy");
    const client = await ContextClient.connect(transport, { era: "legacy", eraCache: null });
    const changes = client.listen({ resourceUris: ["file:///a"] });
    assertEquals(await changes.ready, { resourceSubscriptions: ["file:///a"] });
    transport.peers[0].send({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "file:///a" },
    });
    assertEquals((await changes.next()).value, { type: "resourceUpdated", uri: "file:///a" });
    await changes.close();
    assertEquals(
      transport.peers[0].received.filter((m) => m.method?.startsWith("resources/")).map((m) => m.method),
      ["resources/subscribe", "resources/unsubscribe"],
    );
    await client.close();
  });
}
