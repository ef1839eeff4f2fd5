// The client feature API against the official TypeScript SDK servers, as real child processes:
// @modelcontextprotocol/sdk@1.32.2 (legacy era) and @modelcontextprotocol/server@2.4.0 serveStdio (both
// eras), each registering tools with output schemas, progress, logging, resources, a template with
// list/complete callbacks, a prompt with a completable argument (test/fixtures/sdk/feature_peers/).
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { spawnProcess } from "../../adapters/node/mod.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import type { ChangeEvent, LogEntry, ProgressUpdate } from "../../src/client/features/feature_types.ts";

const SDK1 = fileURLToPath(new URL("../fixtures/sdk/feature_peers/sdk1_server.mjs", import.meta.url));
const SDK2 = fileURLToPath(new URL("../fixtures/sdk/feature_peers/sdk2_server.mjs", import.meta.url));

const PEERS = [
  { name: "SDK 1.32 McpServer", era: "legacy", script: SDK1 },
  { name: "SDK 2.4 serveStdio", era: "modern", script: SDK2 },
  { name: "SDK 2.4 serveStdio", era: "legacy", script: SDK2 },
] as const;

const open: ContextClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect(script: string, era: "modern" | "legacy"): Promise<ContextClient> {
  const client = await ContextClient.connect(spawnProcess(process.execPath, [script]), {
    era,
    eraCache: null,
    clientInfo: { name: "interop", version: "1.0.0" },
  });
  open.push(client);
  return client;
}

async function nextChange(iterator: AsyncIterator<ChangeEvent>): Promise<ChangeEvent> {
  const next = await iterator.next();
  if (next.done) throw new Error("The listen stream ended");
  return next.value;
}

describe.each(PEERS)("our client against $name ($era era)", ({ script, era }) => {
  it("lists tools, resources, resource templates and prompts", async () => {
    const client = await connect(script, era);
    expect(client.era).toBe(era);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["weather", "slow", "chatty", "grow"]));
    expect(tools.find((t) => t.name === "weather")?.outputSchema).toMatchObject({
      type: "object",
      required: ["city", "temp"],
    });
    expect((await client.listResources()).map((r) => r.uri)).toEqual(
      expect.arrayContaining(["config://app", "notes://alpha", "notes://beta"]),
    );
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(["notes://{name}"]);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(["greet"]);
    const names: string[] = [];
    for await (const tool of client.iterateTools()) names.push(tool.name);
    expect(names).toEqual(tools.map((t) => t.name));
  });

  it("calls a tool with an output schema; its structuredContent passes the check", async () => {
    const client = await connect(script, era);
    await client.listTools();
    const result = await client.callTool("weather", { city: "Oslo" });
    expect(result.structuredContent).toEqual({ city: "Oslo", temp: 4 });
    expect(result.isError).toBeFalsy();
  });

  it("a tool's arguments error comes back as a tool error or a JSON-RPC error, never a hang", async () => {
    const client = await connect(script, era);
    const outcome = await client.callTool("weather", { city: 7 }).then((r) => r.isError, (e) => e.code);
    expect([true, -32602]).toContain(outcome);
  });

  it("feeds onProgress from the tool's progress notifications", async () => {
    const client = await connect(script, era);
    const updates: ProgressUpdate[] = [];
    const result = await client.callTool("slow", {}, { onProgress: (p) => updates.push(p) });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(updates).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` })));
  });

  it("reads a static resource and a template resource", async () => {
    const client = await connect(script, era);
    expect((await client.readResource("config://app")).contents).toEqual([
      expect.objectContaining({ uri: "config://app", text: "app config" }),
    ]);
    expect((await client.readResource("notes://beta")).contents).toEqual([
      expect.objectContaining({ uri: "notes://beta", text: "note beta" }),
    ]);
  });

  it("gets a prompt with arguments", async () => {
    const client = await connect(script, era);
    const prompt = await client.getPrompt("greet", { who: "Ada" });
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "Hello, Ada!" } }]);
  });

  it("completes a prompt argument and a template variable", async () => {
    const client = await connect(script, era);
    expect(
      (await client.complete({ type: "ref/prompt", name: "greet" }, { name: "who", value: "Al" })).completion
        .values,
    ).toEqual(["Alan"]);
    expect(
      (await client.complete({ type: "ref/resource", uri: "notes://{name}" }, { name: "name", value: "g" }))
        .completion.values,
    ).toEqual(["gamma"]);
  });

  it("setLogLevel('info') then a logging tool: onLog gets the info entry and not the debug one", async () => {
    const client = await connect(script, era);
    const entries: LogEntry[] = [];
    client.onLog((entry) => entries.push(entry));
    await client.setLogLevel("info");
    await client.callTool("chatty");
    await expect.poll(() => entries.length).toBeGreaterThan(0);
    expect(entries).toEqual([{ level: "info", logger: "chatty", data: { said: "hello" } }]);
  });

  it("listen reports the tools, prompts and resources list changes caused by a tool call", async () => {
    const client = await connect(script, era);
    const changes = client.listen({ tools: true, prompts: true, resources: true });
    expect(await changes.ready).toMatchObject({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
    });
    await client.callTool("grow");
    const seen = [await nextChange(changes), await nextChange(changes), await nextChange(changes)].map((c) =>
      c.type
    ).sort();
    expect(seen).toEqual(["promptsListChanged", "resourcesListChanged", "toolsListChanged"]);
    await changes.close();
    expect((await client.listTools()).some((t) => t.name.startsWith("extra-"))).toBe(true);
    expect((await client.listPrompts()).some((p) => p.name.startsWith("extra-"))).toBe(true);
  });
});

describe("list caching against SDK 2.4 (modern: tools/list carries ttlMs 60 000)", () => {
  it("a second listTools is served from the cache; cache: false asks the server", async () => {
    const client = await connect(SDK2, "modern");
    const before = await client.listTools();
    await client.callTool("grow");
    expect(await client.listTools()).toEqual(before);
    const fresh = await client.listTools({ cache: false });
    expect(fresh.length).toBe(before.length + 1);
  });
});

describe("legacy resource subscriptions against SDK 1.32", () => {
  it("listen({ resourceUris }) subscribes, reports the update, and unsubscribes on close", async () => {
    const client = await connect(SDK1, "legacy");
    const changes = client.listen({ resourceUris: ["notes://alpha"] });
    expect(await changes.ready).toEqual({ resourceSubscriptions: ["notes://alpha"] });
    expect((await client.callTool("touch", { uri: "notes://alpha" })).content).toEqual([{
      type: "text",
      text: "sent",
    }]);
    expect(await nextChange(changes)).toEqual({ type: "resourceUpdated", uri: "notes://alpha" });
    await changes.close();
    expect((await client.callTool("touch", { uri: "notes://alpha" })).content).toEqual([{
      type: "text",
      text: "not subscribed",
    }]);
  });
});

describe("resource updates through listen against SDK 2.4 (both eras)", () => {
  it.each(["modern", "legacy"] as const)(
    "%s: listen({ resourceUris }) reports the update of a subscribed URI only",
    async (era) => {
      const client = await connect(SDK2, era);
      const changes = client.listen({ resourceUris: ["notes://alpha"] });
      expect(await changes.ready).toEqual({ resourceSubscriptions: ["notes://alpha"] });
      await client.callTool("touch", { uri: "notes://beta" });
      await client.callTool("touch", { uri: "notes://alpha" });
      expect(await nextChange(changes)).toEqual({ type: "resourceUpdated", uri: "notes://alpha" });
      expect(changes.pending).toBe(0);
      await changes.close();
    },
  );
});
