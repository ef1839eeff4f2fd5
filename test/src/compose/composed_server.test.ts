/**
 * ComposedServer: in-process servers mounted under names, reached by our client in both eras:
 * names, filters, resources, prompts and completions, progress, cancellation, log messages,
 * list changes, what an upstream asks its client, bounded list fan-out, and the plain proxy.
 */
import { describe, expect, it } from "vitest";
import { ClientInputs } from "../../../src/client/client_inputs.ts";
import { ContextClient } from "../../../src/client/context_client.ts";
import { ComposedServer, createProxy } from "../../../src/compose/composed_server.ts";
import { ConcurrencyLimit } from "../../../src/compose/concurrency_limit.ts";
import { inProcessTransport } from "../../../src/compose/in_process_transport.ts";
import { ContextServer } from "../../../src/server/context_server.ts";

// deno-lint-ignore no-explicit-any
type Loose = any;

function weather(): ContextServer {
  const server = new ContextServer({ name: "weather", version: "1" });
  server.tool("forecast", {
    description: "Forecast",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  }, async (args: Loose, ctx) => {
    await ctx.sendProgress(1, { total: 2, message: "looking" });
    await ctx.log("info", `forecast for ${args.city}`);
    return `sunny in ${args.city}`;
  });
  server.tool("secret", {}, () => "hidden");
  server.tool("wait", {}, (_args, ctx) =>
    new Promise((resolve) => {
      waitStarted();
      ctx.signal.addEventListener("abort", () => {
        aborted = true;
        resolve("aborted");
      });
    }));
  server.tool("ask", {}, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    return `hello ${(answer.content as Loose)?.name}`;
  });
  server.resource("weather://today", { name: "today", mimeType: "text/plain", text: "rain" });
  server.resourceTemplate("weather://city/{name}", {
    name: "city",
    complete: { name: (v) => [`${v}aris`, `${v}rague`] },
  }, (_uri, { name }) => ({ text: `city ${name}` }));
  server.prompt("brief", {
    arguments: [{ name: "city", required: true }],
    complete: { city: (v) => [`${v}erlin`] },
  }, (args: Loose) => `Brief for ${args.city}`);
  return server;
}
let aborted = false;
let waitStarted: () => void = () => {};

function mathServer(): ContextServer {
  const server = new ContextServer({ name: "math", version: "1" });
  server.tool("add", { inputSchema: { type: "object" } }, (args: Loose) => String(args.a + args.b));
  return server;
}

async function clientOf(server: ContextServer, era: "modern" | "legacy", inputs?: ClientInputs) {
  return await ContextClient.connect(inProcessTransport(server), {
    era,
    eraCache: null,
    ...(inputs ? { inputs } : {}),
  });
}

async function composed(options: { maxConcurrentLists?: number } = {}) {
  const reports: Error[] = [];
  const gateway = new ComposedServer({
    name: "gw",
    version: "1",
    onReport: (e) => reports.push(e),
    ...options,
  });
  const w = weather();
  const m = mathServer();
  await gateway.mount("weather", w, { tools: { exclude: ["secret"] } });
  await gateway.mount("math", m);
  return { gateway, w, m, reports };
}

describe.each(["modern", "legacy"] as const)("ComposedServer (%s client)", (era) => {
  it("shows tools and prompts as {name}_{tool}, filtered, and forwards calls", async () => {
    const { gateway } = await composed();
    const client = await clientOf(gateway, era);
    const tools = (await client.request("tools/list", {}) as Loose).tools.map((t: Loose) => t.name).sort();
    expect(tools).toEqual(["math_add", "weather_ask", "weather_forecast", "weather_wait"]);
    const listed = (await client.request("tools/list", {}) as Loose).tools.find((t: Loose) =>
      t.name === "weather_forecast"
    );
    expect(listed.description).toBe("Forecast");
    expect(listed.inputSchema.required).toEqual(["city"]);
    expect(await client.request("tools/call", { name: "math_add", arguments: { a: 2, b: 3 } })).toMatchObject(
      {
        content: [{ type: "text", text: "5" }],
      },
    );
    const unknown = await client.request("tools/call", { name: "weather_secret", arguments: {} }).catch((e) =>
      e
    );
    expect(JSON.stringify(unknown)).toMatch(/weather_secret/);
    const prompt = await client.request("prompts/get", {
      name: "weather_brief",
      arguments: { city: "Oslo" },
    });
    expect(JSON.stringify(prompt)).toContain("Brief for Oslo");
    await client.close();
    await gateway.close();
  });

  it("keeps resource URIs, reads them and completes template variables and prompt arguments", async () => {
    const { gateway } = await composed();
    const client = await clientOf(gateway, era);
    const resources = (await client.request("resources/list", {}) as Loose).resources.map((r: Loose) =>
      r.uri
    );
    expect(resources).toEqual(["weather://today"]);
    const templates = (await client.request("resources/templates/list", {}) as Loose).resourceTemplates;
    expect(templates.map((t: Loose) => t.uriTemplate)).toEqual(["weather://city/{name}"]);
    expect(JSON.stringify(await client.request("resources/read", { uri: "weather://today" }))).toContain(
      "rain",
    );
    expect(JSON.stringify(await client.request("resources/read", { uri: "weather://city/Rome" }))).toContain(
      "city Rome",
    );
    const completed = await client.request("completion/complete", {
      ref: { type: "ref/resource", uri: "weather://city/{name}" },
      argument: { name: "name", value: "P" },
    }) as Loose;
    expect(completed.completion.values).toEqual(["Paris", "Prague"]);
    const argument = await client.request("completion/complete", {
      ref: { type: "ref/prompt", name: "weather_brief" },
      argument: { name: "city", value: "B" },
    }) as Loose;
    expect(argument.completion.values).toEqual(["Berlin"]);
    await client.close();
    await gateway.close();
  });

  it("passes progress back under the client's token, and log messages of a lone request", async () => {
    const { gateway } = await composed();
    const client = await clientOf(gateway, era);
    const progress: Loose[] = [];
    const logs: Loose[] = [];
    client.onNotification("notifications/message" as never, (p: Loose) => void logs.push(p));
    await client.request("tools/call", {
      name: "weather_forecast",
      arguments: { city: "Oslo" },
      _meta: { progressToken: "mine", "io.modelcontextprotocol/logLevel": "debug" },
    }, { onNotification: (_m, p) => void progress.push(p) });
    expect(progress).toEqual([{ progressToken: "mine", progress: 1, total: 2, message: "looking" }]);
    if (era === "legacy") expect(logs.map((l) => l.data)).toEqual(["forecast for Oslo"]);
    await client.close();
    await gateway.close();
  });

  it("cancels the upstream call when the client cancels", async () => {
    const { gateway } = await composed();
    const client = await clientOf(gateway, era);
    aborted = false;
    const started = new Promise<void>((resolve) => (waitStarted = resolve));
    const stop = new AbortController();
    const call = client.request("tools/call", { name: "weather_wait", arguments: {} }, {
      signal: stop.signal,
    });
    await started;
    stop.abort();
    await call.catch(() => {});
    while (!aborted) await new Promise((r) => setTimeout(r, 5));
    expect(aborted).toBe(true);
    await client.close();
    await gateway.close();
  });

  it("follows the upstream's list changes and tells its own clients", async () => {
    const { gateway, m } = await composed();
    const client = await clientOf(gateway, era);
    const changes = client.listen({ tools: true });
    await changes.ready;
    const iterator = changes[Symbol.asyncIterator]();
    m.tool("mul", {}, () => "mul");
    let names: string[] = [];
    while (!names.includes("math_mul")) {
      await iterator.next();
      names = (await client.request("tools/list", {}) as Loose).tools.map((t: Loose) => t.name);
    }
    expect(names).toContain("math_mul");
    await changes.close();
    await client.close();
    await gateway.close();
  });
});

describe("ComposedServer", () => {
  it("asks a legacy client what an upstream asks (elicitation)", async () => {
    const { gateway } = await composed();
    const inputs = new ClientInputs().onElicit(() => ({ action: "accept", content: { name: "Ada" } }));
    const client = await clientOf(gateway, "legacy", inputs);
    const result = await client.request("tools/call", { name: "weather_ask", arguments: {} });
    expect(JSON.stringify(result)).toContain("hello Ada");
    await client.close();
    await gateway.close();
  });

  it("tells a legacy upstream when the downstream client's roots change", async () => {
    const upstream = mathServer();
    let told = 0;
    let wake: () => void = () => {};
    upstream.onNotification("notifications/roots/list_changed", () => {
      told++;
      wake();
    });
    const gateway = new ComposedServer({ name: "gw", version: "1", client: { era: "legacy" } });
    await gateway.mount("math", upstream);
    const inputs = new ClientInputs().setRoots([{ uri: "file:///a" }]);
    const client = await clientOf(gateway, "legacy", inputs);
    const arrived = new Promise<void>((resolve) => (wake = resolve));
    inputs.setRoots([{ uri: "file:///b" }]);
    await arrived;
    expect(told).toBe(1);
    await client.close();
    await gateway.close();
  });

  it("prefixes resource URIs on request and unmounts cleanly", async () => {
    const gateway = new ComposedServer({ name: "gw", version: "1" });
    await gateway.mount("weather", weather(), { prefixResources: true });
    const client = await clientOf(gateway, "modern");
    const resources = (await client.request("resources/list", {}) as Loose).resources.map((r: Loose) =>
      r.uri
    );
    expect(resources).toEqual(["weather+weather://today"]);
    expect(JSON.stringify(await client.request("resources/read", { uri: "weather+weather://today" })))
      .toContain("rain");
    await gateway.unmount("weather");
    expect((await client.request("tools/list", {}) as Loose).tools).toEqual([]);
    await client.close();
    await gateway.close();
  });

  it("refuses bad and duplicate mount names", async () => {
    const gateway = new ComposedServer({ name: "gw", version: "1" });
    await expect(gateway.mount("a_b", mathServer())).rejects.toThrow(/letters, digits/);
    await gateway.mount("a", mathServer());
    await expect(gateway.mount("a", mathServer())).rejects.toThrow(/already mounted/);
    await gateway.close();
  });

  it("bounds the list calls pending at once across mounts (holds at the limit, not hit early)", async () => {
    let pending = 0;
    let most = 0;
    const counting = async () => {
      const client = await clientOf(mathServer(), "modern");
      const original = client.request.bind(client) as Loose;
      client.request = (async (method: string, params: Loose, options: Loose) => {
        if (!method.endsWith("/list")) return original(method, params, options);
        most = Math.max(most, ++pending);
        await new Promise((r) => setTimeout(r, 0));
        try {
          return await original(method, params, options);
        } finally {
          pending--;
        }
      }) as never;
      return client;
    };
    for (const [limit, expected] of [[1, 1], [3, 3]] as const) {
      most = 0;
      const gateway = new ComposedServer({ name: "gw", version: "1", maxConcurrentLists: limit });
      const sources = await Promise.all([1, 2, 3].map(() => counting()));
      await Promise.all(sources.map((source, i) => gateway.mount(`m${i}`, source)));
      expect(most).toBe(expected);
      await gateway.close();
    }
  });

  it("the plain proxy renames nothing", async () => {
    const proxy = await createProxy(mathServer(), { name: "proxy", version: "1" });
    const client = await clientOf(proxy, "modern");
    expect((await client.request("tools/list", {}) as Loose).tools.map((t: Loose) => t.name)).toEqual([
      "add",
    ]);
    await client.close();
    await proxy.close();
  });
});

describe("ConcurrencyLimit", () => {
  it("runs at most its limit at once, in order, and refuses a bad limit", async () => {
    const limit = new ConcurrencyLimit(2);
    const gates: Array<() => void> = [];
    const order: number[] = [];
    const tasks = [0, 1, 2].map((i) =>
      limit.run(() =>
        new Promise<void>((resolve) => {
          order.push(i);
          gates.push(resolve);
        })
      )
    );
    await new Promise((r) => setTimeout(r, 0));
    expect(order).toEqual([0, 1]);
    expect(limit.running).toBe(2);
    gates[0]!();
    await tasks[0];
    await new Promise((r) => setTimeout(r, 0));
    expect(order).toEqual([0, 1, 2]);
    gates[1]!();
    gates[2]!();
    await Promise.all(tasks);
    expect(limit.running).toBe(0);
    expect(() => new ConcurrencyLimit(0)).toThrow(/at least 1/);
  });
});
