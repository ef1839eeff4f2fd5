import { describe, expect, it } from "vitest";
import { ServerFeatures } from "../../../../src/server/features/server_features.ts";
import { MetaKeys } from "../../../../src/wire/protocol_versions.ts";
import { FakeHost, FakeSession, legacyContext, modernContext } from "./helpers.ts";

const tick = () => new Promise<void>((resolve) => queueMicrotask(resolve));
const SUB = MetaKeys.subscriptionId;

function setup() {
  const host = new FakeHost();
  const features = new ServerFeatures(host);
  features.tool("first", {}, () => "x");
  features.resource("test://watched", { text: "w" });
  features.prompt("p", {}, () => "x");
  return { host, features };
}

describe("list-changed notifications and subscriptions", () => {
  it("tells initialized legacy sessions once per run of registrations, and not sessions still initializing", async () => {
    const { host, features } = setup();
    const ready = new FakeSession();
    const early = new FakeSession();
    early.initialized = false;
    host.live.add(ready).add(early);
    await tick();
    ready.sent.length = 0;
    features.tool("a", {}, () => "x");
    features.tool("b", {}, () => "x");
    features.prompt("q", {}, () => "x");
    await tick();
    expect(ready.sent).toEqual([{ method: "notifications/tools/list_changed", params: undefined }, {
      method: "notifications/prompts/list_changed",
      params: undefined,
    }]);
    expect(early.sent).toEqual([]);
  });

  it("sends resources/updated only to legacy sessions subscribed to that URI, until they unsubscribe", async () => {
    const { host, features } = setup();
    await tick();
    const subscribed = new FakeSession();
    const other = new FakeSession();
    host.live.add(subscribed).add(other);
    expect(await host.call("resources/subscribe", { uri: "test://watched" }, legacyContext(subscribed)))
      .toEqual({});
    features.resourceUpdated("test://watched");
    features.resourceUpdated("test://elsewhere");
    expect(subscribed.sent).toEqual([{
      method: "notifications/resources/updated",
      params: { uri: "test://watched" },
    }]);
    expect(other.sent).toEqual([]);
    await host.call("resources/unsubscribe", { uri: "test://watched" }, legacyContext(subscribed));
    features.resourceUpdated("test://watched");
    expect(subscribed.sent).toHaveLength(1);
  });

  it("answers resources/subscribe in the modern era with -32601 and without a uri with -32602", async () => {
    const { host } = setup();
    await expect(host.call("resources/subscribe", { uri: "test://watched" }, modernContext())).rejects
      .toMatchObject({ code: -32601 });
    await expect(host.call("resources/subscribe", {}, legacyContext())).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("subscriptions/listen acknowledges first with the honoured subset, then sends only requested types stamped with the listen id", async () => {
    const host = new FakeHost();
    const features = new ServerFeatures(host);
    features.tool("t", {}, () => "x");
    features.resource("test://watched", { text: "w" });
    await tick();
    const context = modernContext({ requestId: 42 });
    const listening = host.call("subscriptions/listen", {
      notifications: {
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: false,
        resourceSubscriptions: ["test://watched"],
      },
    }, context);
    await tick();
    expect(context.sent[0]).toEqual({
      method: "notifications/subscriptions/acknowledged",
      params: {
        _meta: { [SUB]: 42 },
        notifications: { toolsListChanged: true, resourceSubscriptions: ["test://watched"] },
      },
    });
    expect(features.listenStreams).toBe(1);
    features.tool("u", {}, () => "x");
    features.resource("test://other", { text: "o" });
    await tick();
    features.resourceUpdated("test://watched");
    features.resourceUpdated("test://other");
    expect(context.sent.slice(1)).toEqual([
      { method: "notifications/tools/list_changed", params: { _meta: { [SUB]: 42 } } },
      { method: "notifications/resources/updated", params: { uri: "test://watched", _meta: { [SUB]: 42 } } },
    ]);
    context.controller.abort();
    expect(await listening).toEqual({ _meta: { [SUB]: 42 } });
    expect(features.listenStreams).toBe(0);
    features.tool("v", {}, () => "x");
    await tick();
    expect(context.sent).toHaveLength(3);
  });

  it("keeps several listen streams apart, each with its own id and filter", async () => {
    const { host, features } = setup();
    await tick();
    const tools = modernContext({ requestId: "a" });
    const prompts = modernContext({ requestId: "b" });
    void host.call("subscriptions/listen", { notifications: { toolsListChanged: true } }, tools);
    void host.call("subscriptions/listen", { notifications: { promptsListChanged: true } }, prompts);
    await tick();
    features.prompt("q", {}, () => "x");
    await tick();
    expect(tools.sent.map((m) => m.method)).toEqual(["notifications/subscriptions/acknowledged"]);
    expect(prompts.sent.slice(1)).toEqual([{
      method: "notifications/prompts/list_changed",
      params: { _meta: { [SUB]: "b" } },
    }]);
    tools.controller.abort();
    prompts.controller.abort();
  });

  it("answers subscriptions/listen in the legacy era with -32601 and a malformed filter with -32602", async () => {
    const { host } = setup();
    await expect(host.call("subscriptions/listen", { notifications: {} }, legacyContext())).rejects
      .toMatchObject({ code: -32601 });
    await expect(host.call("subscriptions/listen", {}, modernContext())).rejects.toMatchObject({
      code: -32602,
    });
    await expect(
      host.call("subscriptions/listen", { notifications: { toolsListChanged: "yes" } }, modernContext()),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      host.call("subscriptions/listen", { notifications: { resourceSubscriptions: [1] } }, modernContext()),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("derives capabilities from what is registered", () => {
    const host = new FakeHost();
    const features = new ServerFeatures(host);
    expect(features.capabilities()).toEqual({});
    features.tool("t", {}, () => "x");
    expect(features.capabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
    features.resource("test://r", { text: "r" });
    features.prompt("p", {}, () => "x");
    expect(features.capabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    });
    expect(host.capabilityChanges).toBeGreaterThanOrEqual(3);
  });
});
