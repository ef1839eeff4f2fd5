import { describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../../../src/client/features/feature_types.ts";
import { MetaKeys } from "../../../../src/wire/protocol_versions.ts";
import { connectScripted, type Message, settle, track, until } from "./helpers.ts";

const sub = (id: unknown) => ({ _meta: { [MetaKeys.subscriptionId]: id } });

async function take(iterator: AsyncIterator<ChangeEvent>, count: number): Promise<ChangeEvent[]> {
  const out: ChangeEvent[] = [];
  while (out.length < count) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe("listen (modern era): one subscriptions/listen request", () => {
  async function modern() {
    const listens: Message[] = [];
    const s = await connectScripted("modern", (m) => {
      if (m.method === "subscriptions/listen") listens.push(m);
    });
    const notify = (method: string, params: Record<string, unknown>) =>
      s.peer.send({ jsonrpc: "2.0", method, params });
    return { ...s, listens, notify };
  }

  it("sends the filter, resolves ready with the acknowledged subset, and reports events of its own subscription id only", async () => {
    const s = await modern();
    const changes = s.client.listen({ tools: true, prompts: true, resourceUris: ["file:///a", "file:///a"] });
    await until(() => s.listens.length === 1);
    const listen = s.listens[0];
    expect(listen.params.notifications).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ["file:///a"],
    });
    s.notify("notifications/subscriptions/acknowledged", {
      ...sub(listen.id),
      notifications: { toolsListChanged: true, resourceSubscriptions: ["file:///a"] },
    });
    expect(await changes.ready).toEqual({ toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
    s.notify("notifications/tools/list_changed", sub("someone-else"));
    s.notify("notifications/tools/list_changed", sub(listen.id));
    s.notify("notifications/resources/updated", { ...sub(listen.id), uri: "file:///b" });
    s.notify("notifications/resources/updated", { ...sub(listen.id), uri: "file:///a" });
    s.notify("notifications/prompts/list_changed", sub(listen.id));
    expect(await take(changes, 3)).toEqual([
      { type: "toolsListChanged" },
      { type: "resourceUpdated", uri: "file:///a" },
      { type: "promptsListChanged" },
    ]);
    await changes.close();
    await s.client.close();
  });

  it("two listen streams on one connection are demultiplexed by subscription id", async () => {
    const s = await modern();
    const a = s.client.listen({ tools: true });
    const b = s.client.listen({ tools: true });
    await until(() => s.listens.length === 2);
    expect(s.listens[0].id).not.toEqual(s.listens[1].id);
    s.notify("notifications/tools/list_changed", sub(s.listens[1].id));
    await until(() => b.pending === 1);
    expect(a.pending).toBe(0);
    await a.close();
    await b.close();
    await s.client.close();
  });

  it("return() from for-await cancels the listen request on the wire", async () => {
    const s = await modern();
    const changes = s.client.listen({ tools: true });
    await until(() => s.listens.length === 1);
    s.notify("notifications/tools/list_changed", sub(s.listens[0].id));
    for await (const change of changes) {
      expect(change.type).toBe("toolsListChanged");
      break;
    }
    await until(() => s.received().some((m) => m.method === "notifications/cancelled"));
    expect(s.received().find((m) => m.method === "notifications/cancelled").params.requestId).toBe(
      s.listens[0].id,
    );
    expect(await changes.next()).toEqual({ done: true, value: undefined });
    expect(changes.endReason).toBeUndefined();
    await s.client.close();
  });

  it("an AbortSignal ends the stream like close()", async () => {
    const s = await modern();
    const controller = new AbortController();
    const changes = s.client.listen({ tools: true, signal: controller.signal });
    await until(() => s.listens.length === 1);
    const next = track(changes.next());
    controller.abort();
    await until(() => next.settled);
    expect(next.value).toEqual({ done: true, value: undefined });
    await until(() => s.received().some((m) => m.method === "notifications/cancelled"));
    await s.client.close();
  });

  it("a graceful result from the server ends the stream after the queued events", async () => {
    const s = await modern();
    const changes = s.client.listen({ tools: true });
    await until(() => s.listens.length === 1);
    const id = s.listens[0].id;
    s.notify("notifications/tools/list_changed", sub(id));
    s.peer.reply(id, { resultType: "complete", ...sub(id) });
    expect(await take(changes, 5)).toEqual([{ type: "toolsListChanged" }]);
    expect(changes.endReason).toBe("result");
    await expect(changes.ready).rejects.toThrow(/before the server acknowledged/);
    expect(s.received().some((m) => m.method === "notifications/cancelled")).toBe(false);
    await s.client.close();
  });

  it("notifications/cancelled from the server for the listen id ends the stream after the queued events; endReason says why", async () => {
    const s = await modern();
    const changes = s.client.listen({ tools: true });
    await until(() => s.listens.length === 1);
    s.notify("notifications/tools/list_changed", sub(s.listens[0].id));
    s.notify("notifications/cancelled", { requestId: s.listens[0].id, reason: "Shutting down" });
    expect(await take(changes, 5)).toEqual([{ type: "toolsListChanged" }]);
    expect(changes.endReason).toBe("cancelled: Shutting down");
    await s.client.close();
  });

  it("an error reply to the listen request ends the stream with that error", async () => {
    const s = await modern();
    const changes = s.client.listen({ resources: true });
    await until(() => s.listens.length === 1);
    s.peer.error(s.listens[0].id, -32601, "Method not found");
    await expect(changes.next()).rejects.toMatchObject({ code: -32601 });
    await s.client.close();
  });

  it("a slow consumer: equal events coalesce, so the queue holds one per type and URI", async () => {
    const s = await modern();
    const changes = s.client.listen({
      tools: true,
      resources: true,
      resourceUris: ["file:///a", "file:///b"],
    });
    await until(() => s.listens.length === 1);
    const id = s.listens[0].id;
    for (let i = 0; i < 100; i++) {
      s.notify("notifications/tools/list_changed", sub(id));
      s.notify("notifications/resources/updated", { ...sub(id), uri: i % 2 ? "file:///a" : "file:///b" });
    }
    s.notify("notifications/resources/list_changed", sub(id));
    await until(() => changes.pending === 4);
    await settle();
    expect(changes.pending).toBe(4);
    expect(changes.coalesced).toBe(197);
    expect(await take(changes, 4)).toEqual([
      { type: "toolsListChanged" },
      { type: "resourceUpdated", uri: "file:///b" },
      { type: "resourceUpdated", uri: "file:///a" },
      { type: "resourcesListChanged" },
    ]);
    // once read, the same event is queued again
    s.notify("notifications/tools/list_changed", sub(id));
    expect(await take(changes, 1)).toEqual([{ type: "toolsListChanged" }]);
    await changes.close();
    await s.client.close();
  });

  it("a type the stream did not ask for is dropped", async () => {
    const s = await modern();
    const changes = s.client.listen({ tools: true });
    await until(() => s.listens.length === 1);
    s.notify("notifications/prompts/list_changed", sub(s.listens[0].id));
    s.notify("notifications/tools/list_changed", sub(s.listens[0].id));
    expect(await take(changes, 1)).toEqual([{ type: "toolsListChanged" }]);
    expect(changes.pending).toBe(0);
    await changes.close();
    await s.client.close();
  });

  it("the connection closing ends the stream with an error", async () => {
    const s = await modern();
    const changes = s.client.listen({ tools: true });
    await until(() => s.listens.length === 1);
    s.peer.exit();
    await expect(changes.next()).rejects.toBeInstanceOf(Error);
    await s.client.close();
  });
});

describe("listen (legacy era): notifications mapped onto the same events", () => {
  async function legacy(capabilities?: Record<string, unknown>, failSubscribe = false) {
    const s = await connectScripted("legacy", (m, peer) => {
      if (m.method === "resources/subscribe" || m.method === "resources/unsubscribe") {
        if (failSubscribe) return peer.error(m.id, -32602, `Unknown resource ${m.params.uri}`);
        return peer.reply(m.id, {});
      }
    }, capabilities ? { capabilities } : {});
    const notify = (method: string, params: Record<string, unknown> = {}) =>
      s.peer.send({ jsonrpc: "2.0", method, params });
    return { ...s, notify };
  }

  it("maps list_changed and resources/updated notifications; ready reflects the capabilities and subscriptions", async () => {
    const s = await legacy();
    const changes = s.client.listen({ tools: true, prompts: true, resourceUris: ["file:///a"] });
    expect(await changes.ready).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ["file:///a"],
    });
    expect(s.requests("resources/subscribe").map((m) => m.params.uri)).toEqual(["file:///a"]);
    s.notify("notifications/tools/list_changed");
    s.notify("notifications/resources/updated", { uri: "file:///other" });
    s.notify("notifications/resources/list_changed");
    s.notify("notifications/resources/updated", { uri: "file:///a" });
    s.notify("notifications/prompts/list_changed");
    expect(await take(changes, 3)).toEqual([
      { type: "toolsListChanged" },
      { type: "resourceUpdated", uri: "file:///a" },
      { type: "promptsListChanged" },
    ]);
    await changes.close();
    expect(s.requests("resources/unsubscribe").map((m) => m.params.uri)).toEqual(["file:///a"]);
    await s.client.close();
  });

  it("a server without resources.subscribe gets no resources/subscribe; ready says nothing was granted", async () => {
    const s = await legacy({ tools: {} });
    const changes = s.client.listen({ tools: true, resourceUris: ["file:///a"] });
    expect(await changes.ready).toEqual({});
    expect(s.requests("resources/subscribe")).toHaveLength(0);
    await changes.close();
    await s.client.close();
  });

  it("a failing resources/subscribe ends the stream with the server's error", async () => {
    const s = await legacy(undefined, true);
    const changes = s.client.listen({ resourceUris: ["file:///missing"] });
    await expect(changes.next()).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/missing/),
    });
    await s.client.close();
  });

  it("subscriptions are counted: two streams and subscribe() on one URI send one subscribe and, at the last release, one unsubscribe", async () => {
    const s = await legacy();
    const a = s.client.listen({ resourceUris: ["file:///a"] });
    const b = s.client.listen({ resourceUris: ["file:///a"] });
    await Promise.all([a.ready, b.ready]);
    await s.client.subscribe("file:///a");
    expect(s.requests("resources/subscribe")).toHaveLength(1);
    s.notify("notifications/resources/updated", { uri: "file:///a" });
    expect(await take(a, 1)).toEqual([{ type: "resourceUpdated", uri: "file:///a" }]);
    expect(await take(b, 1)).toEqual([{ type: "resourceUpdated", uri: "file:///a" }]);
    await a.close();
    await s.client.unsubscribe("file:///a");
    expect(s.requests("resources/unsubscribe")).toHaveLength(0);
    await b.close();
    expect(s.requests("resources/unsubscribe")).toHaveLength(1);
    await s.client.close();
  });

  it("the connection closing ends a legacy stream with listen_ended", async () => {
    const s = await legacy();
    const changes = s.client.listen({ tools: true });
    await changes.ready;
    s.peer.exit();
    await expect(changes.next()).rejects.toMatchObject({ code: "listen_ended" });
    await s.client.close();
  });

  it("after close(), notifications no longer reach the stream", async () => {
    const s = await legacy();
    const changes = s.client.listen({ tools: true });
    await changes.ready;
    await changes.close();
    s.notify("notifications/tools/list_changed");
    await settle();
    expect(changes.pending).toBe(0);
    expect(await changes.next()).toEqual({ done: true, value: undefined });
    await s.client.close();
  });
});
