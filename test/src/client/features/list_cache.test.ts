import { describe, expect, it } from "vitest";
import { connectScripted, type Handler, page, until } from "./helpers.ts";

/** Answers every list with one page per `ttl` entry (a cursor chain), each page carrying that `ttlMs`. */
function withTtl(ttls: Array<number | undefined>): Handler {
  return (m, peer) => {
    if (m.id === undefined) return;
    const key = m.method === "tools/list"
      ? "tools"
      : m.method === "prompts/list"
      ? "prompts"
      : m.method === "resources/list"
      ? "resources"
      : "resourceTemplates";
    const n = m.params?.cursor === undefined ? 0 : Number(String(m.params.cursor).slice(1));
    const ttl = ttls[n];
    peer.reply(m.id, {
      ...page(key, n, 1),
      ...(ttl === undefined ? {} : { ttlMs: ttl, cacheScope: "private" }),
      ...(n + 1 < ttls.length ? { nextCursor: `c${n + 1}` } : {}),
    });
  };
}

describe("client list cache (ttlMs)", () => {
  it("keeps a listing for its ttlMs: asked again at ttl-1 from the cache, at ttl from the server", async () => {
    const s = await connectScripted("modern", withTtl([5_000]));
    await s.client.listTools();
    await s.time.advance(4_999);
    expect(await s.client.listTools()).toHaveLength(1);
    expect(s.requests("tools/list")).toHaveLength(1);
    await s.time.advance(1);
    await s.client.listTools();
    expect(s.requests("tools/list")).toHaveLength(2);
    await s.client.close();
  });

  it("a multi-page listing is kept for the smallest ttlMs of its pages", async () => {
    const s = await connectScripted("modern", withTtl([10_000, 2_000, 7_000]));
    expect(await s.client.listTools()).toHaveLength(3);
    await s.time.advance(1_999);
    await s.client.listTools();
    expect(s.requests("tools/list")).toHaveLength(3);
    await s.time.advance(1);
    await s.client.listTools();
    expect(s.requests("tools/list")).toHaveLength(6);
    await s.client.close();
  });

  it("ttlMs 0, or a page without ttlMs, is not cached", async () => {
    const zero = await connectScripted("modern", withTtl([0]));
    await zero.client.listTools();
    await zero.client.listTools();
    expect(zero.requests("tools/list")).toHaveLength(2);
    const partial = await connectScripted("modern", withTtl([5_000, undefined]));
    await partial.client.listTools();
    await partial.client.listTools();
    expect(partial.requests("tools/list")).toHaveLength(4);
    await zero.client.close();
    await partial.client.close();
  });

  it("a legacy server sends no ttlMs, so nothing is cached", async () => {
    const s = await connectScripted("legacy", withTtl([undefined]));
    await s.client.listPrompts();
    await s.client.listPrompts();
    expect(s.requests("prompts/list")).toHaveLength(2);
    await s.client.close();
  });

  it("a list-changed notification drops the cached listing of its kind only", async () => {
    const s = await connectScripted("modern", withTtl([60_000]));
    await s.client.listTools();
    await s.client.listPrompts();
    await s.client.listResources();
    await s.client.listResourceTemplates();
    let landed = 0;
    s.client.onNotification("notifications/tools/list_changed", () => void landed++);
    s.peer.send({ jsonrpc: "2.0", method: "notifications/resources/list_changed" });
    s.peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await until(() => landed === 1, "the notifications");
    await s.client.listTools();
    await s.client.listPrompts();
    await s.client.listResources();
    await s.client.listResourceTemplates();
    expect(s.requests("tools/list")).toHaveLength(2);
    expect(s.requests("prompts/list")).toHaveLength(1);
    expect(s.requests("resources/list")).toHaveLength(2);
    expect(s.requests("resources/templates/list")).toHaveLength(2);
    await s.client.close();
  });

  it("cache: false asks the server and refreshes the cache", async () => {
    const s = await connectScripted("modern", withTtl([60_000]));
    await s.client.listTools();
    await s.client.listTools({ cache: false });
    expect(s.requests("tools/list")).toHaveLength(2);
    await s.client.listTools();
    expect(s.requests("tools/list")).toHaveLength(2);
    await s.client.close();
  });

  it("the client option listCache: false turns caching off", async () => {
    const s = await connectScripted("modern", withTtl([60_000]), {
      client: { features: { listCache: false } },
    });
    await s.client.listTools();
    await s.client.listTools();
    expect(s.requests("tools/list")).toHaveLength(2);
    await s.client.close();
  });

  it("iterateTools serves a fresh cached listing without asking", async () => {
    const s = await connectScripted("modern", withTtl([60_000, 60_000]));
    await s.client.listTools();
    const names: string[] = [];
    for await (const tool of s.client.iterateTools()) names.push(tool.name);
    expect(names).toEqual(["t0", "t1"]);
    expect(s.requests("tools/list")).toHaveLength(2);
    await s.client.close();
  });

  it("a listing that began before a list-changed notification is not cached", async () => {
    let hold: (() => void) | undefined;
    const s = await connectScripted("modern", (m, peer) => {
      if (m.method !== "tools/list") return;
      hold = () => peer.reply(m.id, { ...page("tools", 0, 1), ttlMs: 60_000, cacheScope: "private" });
    });
    const first = s.client.listTools();
    await until(() => hold !== undefined);
    let landed = 0;
    s.client.onNotification("notifications/tools/list_changed", () => void landed++);
    s.peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await until(() => landed === 1, "the notification");
    hold!();
    await first;
    hold = undefined;
    const second = s.client.listTools();
    await until(() => hold !== undefined, "a second tools/list");
    hold!();
    await second;
    expect(s.requests("tools/list")).toHaveLength(2);
    await s.client.close();
  });
});
