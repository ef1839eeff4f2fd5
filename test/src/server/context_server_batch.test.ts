/** ContextServer and JSON-RPC batches: served on a 2025-03-26 session only (issue 12 item 10). */
import { describe, expect, it } from "vitest";
import { initializeParams, type Json, setup } from "./context_server_helpers.ts";

async function initialized(version: string) {
  const s = setup();
  s.server.handle("tools/list", () => ({ tools: [] }));
  const init = await s.peer.call(0, "initialize", initializeParams(version));
  expect(init.result.protocolVersion).toBe(version);
  await s.peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return s;
}

describe("ContextServer batches", () => {
  it("serves a batch on a session that negotiated 2025-03-26: each request answered in one array", async () => {
    const { peer, clientSide } = await initialized("2025-03-26");
    await peer.send([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
      { jsonrpc: "2.0", id: 3, method: "initialize", params: initializeParams("2025-03-26") },
    ]);
    const replies: Json[] = await peer.next();
    expect(Array.isArray(replies)).toBe(true);
    expect(replies).toHaveLength(3);
    expect(replies).toContainEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(replies).toContainEqual({ jsonrpc: "2.0", id: 2, result: { tools: [] } });
    expect(replies.find((r) => r.id === 3).error.code).toBe(-32600);
    await clientSide.writable.close().catch(() => {});
  });

  it("sends nothing for an all-notification batch on 2025-03-26, and one -32600 for an empty one", async () => {
    const { peer, clientSide } = await initialized("2025-03-26");
    await peer.send([{ jsonrpc: "2.0", method: "notifications/roots/list_changed" }]);
    await peer.send([]);
    const empty = await peer.next();
    expect(empty.error.code).toBe(-32600);
    expect("id" in empty).toBe(false);
    expect(await peer.call(5, "ping")).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
    await clientSide.writable.close().catch(() => {});
  });

  it("rejects a batch with one -32600 naming the rule on a 2025-06-18 session, and before initialize", async () => {
    const { peer, clientSide } = await initialized("2025-06-18");
    await peer.send([{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: 2, method: "ping" }]);
    const rejected = await peer.next();
    expect(rejected.error.code).toBe(-32600);
    expect(rejected.error.message).toMatch(/only protocol version 2025-03-26/);
    expect(await peer.call(5, "ping")).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
    await clientSide.writable.close().catch(() => {});

    const fresh = setup();
    await fresh.peer.send([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    expect((await fresh.peer.next()).error.code).toBe(-32600);
    await fresh.clientSide.writable.close().catch(() => {});
  });
});
