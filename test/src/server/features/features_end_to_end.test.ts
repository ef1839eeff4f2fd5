/** The feature layer end to end: ContextServer with tools, resources, prompts, against our ContextClient (raw requests) in both eras. */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { ContextClient } from "../../../../src/client/context_client.ts";
import { ContextServer } from "../../../../src/server/context_server.ts";
import { MetaKeys } from "../../../../src/wire/protocol_versions.ts";
import { createDuplexPair } from "../../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../../testing/fake_time_provider.ts";
import type { Json } from "./helpers.ts";

/** A raw request whose result the test reads untyped. */
function ask(
  client: ContextClient,
  method: string,
  params?: Record<string, unknown>,
  options?: { signal?: AbortSignal },
): Promise<Json> {
  return client.request(method, params, options) as Promise<Json>;
}

function serverWithFeatures() {
  const time = new FakeTimeProvider();
  const server = new ContextServer({
    name: "features",
    version: "1.0.0",
    timeProvider: time,
    features: { listCache: { ttlMs: 60000, cacheScope: "public" } },
  });
  server.tool("add", {
    description: "Adds",
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
  }, async ({ a, b }, ctx) => {
    await ctx.log("info", `adding ${a} and ${b}`, "math");
    await ctx.sendProgress(1, { total: 1 });
    return { structuredContent: { sum: a + b } };
  });
  server.tool(
    "wait",
    {},
    (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("aborted"))),
  );
  server.resource("test://static-text", { name: "static-text", mimeType: "text/plain", text: "hello" });
  server.resourceTemplate("test://template/{id}/data", {
    name: "template",
    complete: { id: (v) => [`${v}1`, `${v}2`] },
  }, (_uri, { id }) => ({ text: `id=${id}` }));
  server.prompt("greet", { argsSchema: z.object({ name: z.string() }) }, ({ name }) => `Hello ${name}`);
  const [serverSide, clientSide] = createDuplexPair();
  const served = server.serve(serverSide);
  const connect = (era: "legacy" | "modern") =>
    ContextClient.connect(clientSide, {
      era,
      timeProvider: time,
      eraCache: null,
      clientInfo: { name: "e2e", version: "1" },
    });
  return { server, served, connect, time };
}

function collect(client: ContextClient, method: string): Json[] {
  const seen: Json[] = [];
  client.onNotification(method, (params) => void seen.push(params));
  return seen;
}

async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => queueMicrotask(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

const EXPECTED_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
};

describe("server features end to end", () => {
  for (const era of ["legacy", "modern"] as const) {
    it(`${era}: capabilities are derived, and tools, resources, templates, prompts and completions answer`, async () => {
      const { connect, served } = serverWithFeatures();
      const client = await connect(era);
      expect(client.serverCapabilities).toEqual(EXPECTED_CAPABILITIES);
      const tools = await ask(client, "tools/list", {});
      expect(tools.tools.map((t: Json) => t.name)).toEqual(["add", "wait"]);
      expect(tools.tools[0].inputSchema).toMatchObject({
        type: "object",
        properties: { a: { type: "number" } },
      });
      if (era === "modern") {
        expect(tools).toMatchObject({ resultType: "complete", ttlMs: 60000, cacheScope: "public" });
      } else expect(tools).not.toHaveProperty("ttlMs");
      expect(await ask(client, "tools/call", { name: "add", arguments: { a: 2, b: 3 } })).toMatchObject({
        structuredContent: { sum: 5 },
        content: [{ type: "text", text: '{"sum":5}' }],
      });
      expect(await ask(client, "tools/call", { name: "add", arguments: { a: "2" } })).toMatchObject({
        isError: true,
      });
      expect((await ask(client, "resources/read", { uri: "test://static-text" })).contents).toEqual([{
        uri: "test://static-text",
        mimeType: "text/plain",
        text: "hello",
      }]);
      expect((await ask(client, "resources/read", { uri: "test://template/7/data" })).contents).toEqual([{
        uri: "test://template/7/data",
        text: "id=7",
      }]);
      await expect(ask(client, "resources/read", { uri: "test://missing" })).rejects.toMatchObject({
        code: era === "modern" ? -32602 : -32002,
        data: { uri: "test://missing" },
      });
      expect((await ask(client, "prompts/get", { name: "greet", arguments: { name: "Ada" } })).messages)
        .toEqual([{ role: "user", content: { type: "text", text: "Hello Ada" } }]);
      expect(
        (await ask(client, "completion/complete", {
          ref: { type: "ref/resource", uri: "test://template/{id}/data" },
          argument: { name: "id", value: "x" },
        })).completion,
      ).toEqual({
        values: ["x1", "x2"],
        total: 2,
        hasMore: false,
      });
      await client.close();
      await served;
    });
  }

  it("legacy: logging/setLevel filters ctx.log for the session, and progress reaches the client", async () => {
    const { connect } = serverWithFeatures();
    const client = await connect("legacy");
    const messages = collect(client, "notifications/message");
    const progress = collect(client, "notifications/progress");
    await ask(client, "tools/call", {
      name: "add",
      arguments: { a: 1, b: 1 },
      _meta: { progressToken: "tok" },
    });
    expect(messages).toEqual([{ level: "info", data: "adding 1 and 1", logger: "math" }]);
    expect(progress).toEqual([{ progressToken: "tok", progress: 1, total: 1 }]);
    await ask(client, "logging/setLevel", { level: "error" });
    await ask(client, "tools/call", { name: "add", arguments: { a: 1, b: 1 } });
    expect(messages).toHaveLength(1);
    await client.close();
  });

  it("modern: ctx.log sends only for a request with a _meta log level", async () => {
    const { connect } = serverWithFeatures();
    const client = await connect("modern");
    const messages = collect(client, "notifications/message");
    await ask(client, "tools/call", { name: "add", arguments: { a: 1, b: 1 } });
    expect(messages).toEqual([]);
    await ask(client, "tools/call", {
      name: "add",
      arguments: { a: 1, b: 1 },
      _meta: { [MetaKeys.logLevel]: "debug" },
    });
    expect(messages).toEqual([{ level: "info", data: "adding 1 and 1", logger: "math" }]);
    await expect(ask(client, "logging/setLevel", { level: "info" })).rejects.toMatchObject({ code: -32601 });
    await client.close();
  });

  it("legacy: registrations at run time send list_changed, and resourceUpdated reaches subscribers", async () => {
    const { connect, server } = serverWithFeatures();
    const client = await connect("legacy");
    const toolChanges = collect(client, "notifications/tools/list_changed");
    const updates = collect(client, "notifications/resources/updated");
    await ask(client, "resources/subscribe", { uri: "test://static-text" });
    const late = server.tool("late", {}, () => "late");
    await settle();
    expect(toolChanges).toHaveLength(1);
    expect((await ask(client, "tools/list", {})).tools.map((t: Json) => t.name)).toContain("late");
    late.remove();
    server.resourceUpdated("test://static-text");
    await settle();
    expect(toolChanges).toHaveLength(2);
    expect(updates).toEqual([{ uri: "test://static-text" }]);
    await client.close();
  });

  it("modern: a listen stream is acknowledged, carries list_changed with its id, and ends with a result when the server closes", async () => {
    const { connect, server } = serverWithFeatures();
    const client = await connect("modern");
    const acks = collect(client, "notifications/subscriptions/acknowledged");
    const toolChanges = collect(client, "notifications/tools/list_changed");
    const updates = collect(client, "notifications/resources/updated");
    const listening = ask(client, "subscriptions/listen", {
      notifications: { toolsListChanged: true, resourceSubscriptions: ["test://static-text"] },
    });
    await settle();
    expect(acks).toHaveLength(1);
    const id = acks[0]._meta[MetaKeys.subscriptionId];
    expect(acks[0].notifications).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ["test://static-text"],
    });
    server.tool("late", {}, () => "late");
    server.prompt("late", {}, () => "late");
    server.resourceUpdated("test://static-text");
    await settle();
    expect(toolChanges).toEqual([{ _meta: { [MetaKeys.subscriptionId]: id } }]);
    expect(updates).toEqual([{ uri: "test://static-text", _meta: { [MetaKeys.subscriptionId]: id } }]);
    await server.close();
    const ended = await listening;
    expect(ended).toMatchObject({ resultType: "complete", _meta: { [MetaKeys.subscriptionId]: id } });
    await client.close();
  });

  it("modern: cancelling a listen stream stops its notifications", async () => {
    const { connect, server } = serverWithFeatures();
    const client = await connect("modern");
    const toolChanges = collect(client, "notifications/tools/list_changed");
    const abort = new AbortController();
    const listening = ask(client, "subscriptions/listen", { notifications: { toolsListChanged: true } }, {
      signal: abort.signal,
    });
    await settle();
    expect(server.features.listenStreams).toBe(1);
    abort.abort(new Error("done listening"));
    await expect(listening).rejects.toThrow(/done listening/);
    await settle();
    expect(server.features.listenStreams).toBe(0);
    server.tool("late", {}, () => "late");
    await settle();
    expect(toolChanges).toEqual([]);
    await client.close();
  });

  it("a tool handler sees cancellation through ctx.signal", async () => {
    const { connect } = serverWithFeatures();
    const client = await connect("modern");
    const abort = new AbortController();
    const call = ask(client, "tools/call", { name: "wait" }, { signal: abort.signal });
    await settle();
    abort.abort(new Error("stop"));
    await expect(call).rejects.toThrow(/stop/);
    await client.close();
  });

  it("the capabilities option is merged over the derived ones, and discover follows registrations", async () => {
    const time = new FakeTimeProvider();
    const server = new ContextServer({
      name: "s",
      version: "1",
      timeProvider: time,
      capabilities: { experimental: { x: {} } },
    });
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);
    server.tool("t", {}, () => "x");
    const client = await ContextClient.connect(clientSide, {
      era: "modern",
      timeProvider: time,
      eraCache: null,
    });
    expect(client.serverCapabilities).toEqual({
      tools: { listChanged: true },
      logging: {},
      experimental: { x: {} },
    });
    server.prompt("p", {}, () => "x");
    expect((await ask(client, "server/discover", {})).capabilities).toMatchObject({
      prompts: { listChanged: true },
    });
    await client.close();
  });
});
