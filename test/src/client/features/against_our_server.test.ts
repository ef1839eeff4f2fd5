/** The client feature API against our own ContextServer feature layer, both eras, over an in-memory duplex. */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { ContextClient } from "../../../../src/client/context_client.ts";
import type { ChangeEvent, LogEntry, ProgressUpdate } from "../../../../src/client/features/feature_types.ts";
import { ContextServer } from "../../../../src/server/context_server.ts";
import { createDuplexPair } from "../../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../../testing/fake_time_provider.ts";
import { until } from "./helpers.ts";

async function setup(era: "modern" | "legacy") {
  const time = new FakeTimeProvider();
  const server = new ContextServer({
    name: "ours",
    version: "1.0.0",
    timeProvider: time,
    features: { pageSize: 2, listCache: { ttlMs: 30_000 } },
  });
  server.tool("add", {
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
  }, async ({ a, b }, ctx) => {
    await ctx.log("info", `adding ${a} and ${b}`, "math");
    await ctx.sendProgress(1, { total: 1, message: "added" });
    return { structuredContent: { sum: a + b } };
  });
  for (const name of ["b", "c", "d"]) server.tool(name, {}, () => name);
  server.resource("test://static", { name: "static", mimeType: "text/plain", text: "hello" });
  server.resourceTemplate(
    "test://item/{id}",
    { name: "item", complete: { id: (v) => [`${v}1`, `${v}2`] } },
    (_uri, { id }) => ({ text: `id=${id}` }),
  );
  server.prompt("greet", { argsSchema: z.object({ name: z.string() }) }, ({ name }) => `Hello ${name}`);
  const [serverSide, clientSide] = createDuplexPair();
  const served = server.serve(serverSide);
  const client = await ContextClient.connect(clientSide, { era, timeProvider: time, eraCache: null });
  return { server, client, time, served };
}

describe.each(["modern", "legacy"] as const)("our client against our server (%s era)", (era) => {
  it("lists every page, calls a tool with progress, a log and a checked structuredContent", async () => {
    const { client } = await setup(era);
    expect((await client.listTools()).map((t) => t.name)).toEqual(["add", "b", "c", "d"]);
    const progress: ProgressUpdate[] = [];
    const logs: LogEntry[] = [];
    client.onLog((entry) => logs.push(entry));
    await client.setLogLevel("info");
    const result = await client.callTool("add", { a: 2, b: 3 }, { onProgress: (p) => progress.push(p) });
    expect(result.structuredContent).toEqual({ sum: 5 });
    expect(progress).toEqual([{ progress: 1, total: 1, message: "added" }]);
    await until(() => logs.length === 1);
    expect(logs[0]).toMatchObject({ level: "info", logger: "math", data: "adding 2 and 3" });
    await client.close();
  });

  it("reads resources, gets a prompt, completes a template variable", async () => {
    const { client } = await setup(era);
    expect((await client.listResources()).map((r) => r.uri)).toEqual(["test://static"]);
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(["test://item/{id}"]);
    expect((await client.readResource("test://item/7")).contents).toEqual([{
      uri: "test://item/7",
      text: "id=7",
    }]);
    expect((await client.getPrompt("greet", { name: "Ada" })).messages).toEqual([{
      role: "user",
      content: { type: "text", text: "Hello Ada" },
    }]);
    expect(
      (await client.complete({ type: "ref/resource", uri: "test://item/{id}" }, { name: "id", value: "x" }))
        .completion.values,
    ).toEqual(["x1", "x2"]);
    await client.close();
  });

  it("listen reports a tool registered at run time; the cached listing is dropped", async () => {
    const { client, server } = await setup(era);
    await client.listTools();
    const changes = client.listen({ tools: true });
    expect(await changes.ready).toMatchObject({ toolsListChanged: true });
    server.tool("late", {}, () => "late");
    const next = await changes.next();
    expect(next.value as ChangeEvent).toEqual({ type: "toolsListChanged" });
    expect((await client.listTools()).map((t) => t.name)).toContain("late");
    await changes.close();
    await client.close();
  });
});

describe("our client against our server: the modern list TTL", () => {
  it("the listing is served from the cache until ttlMs (30 000) has passed", async () => {
    const { client, server, time } = await setup("modern");
    await client.listTools();
    server.tool("late", {}, () => "late"); // no listen stream: the client is not told
    await time.advance(29_999);
    expect((await client.listTools()).map((t) => t.name)).not.toContain("late");
    await time.advance(1);
    expect((await client.listTools()).map((t) => t.name)).toContain("late");
    await client.close();
  });
});
