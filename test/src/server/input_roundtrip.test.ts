/** One handler that asks the client, served by ContextServer to ContextClient + ClientInputs over an in-memory pair. */
import { describe, expect, it } from "vitest";
import { ClientInputs } from "../../../src/client/client_inputs.ts";
import { ContextClient } from "../../../src/client/context_client.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import type { InputContext } from "../../../src/server/input/input_rounds.ts";
import { JsonRpcError } from "../../../src/wire/errors.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

const KEY = "a1".repeat(32);

type Ctx = InputContext & { era: string };

/** Asks for a confirmation and a sampled summary; the same code in both eras. */
async function confirmAndSummarise(params: { arguments?: { topic?: string } }, ctx: Ctx) {
  const topic = params.arguments?.topic ?? "nothing";
  const confirm = await ctx.elicit(
    {
      message: `Summarise ${topic}?`,
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
    },
    { key: "confirm" },
  );
  if (confirm.action !== "accept" || confirm.content?.ok !== true) {
    return { content: [{ type: "text", text: "Not confirmed" }] };
  }
  const summary = await ctx.sample({
    messages: [{ role: "user", content: { type: "text", text: `Summarise ${topic}` } }],
    maxTokens: 100,
  });
  const text = Array.isArray(summary.content)
    ? ""
    : summary.content.type === "text"
    ? summary.content.text
    : "";
  return { content: [{ type: "text", text: `Summary (${ctx.era}): ${text}` }] };
}

function setup(options: { era: "modern" | "legacy"; clientInputs?: ClientInputs }) {
  const time = new FakeTimeProvider();
  const server = new ContextServer({
    name: "s",
    version: "1",
    capabilities: { tools: {} },
    timeProvider: time,
    requestState: { key: KEY },
  });
  const ids: unknown[] = [];
  server.handle("tools/call", (params: Record<string, unknown>, ctx) => {
    ids.push(ctx.requestId);
    if (params.name === "multi") return multiRound(ctx);
    return confirmAndSummarise(params, ctx);
  });
  const inputs = options.clientInputs ??
    new ClientInputs()
      .onElicit(() => ({ action: "accept", content: { ok: true } }))
      .onSample((p) => ({
        role: "assistant",
        content: { type: "text", text: `short ${JSON.stringify(p.maxTokens)}` },
        model: "m",
        stopReason: "endTurn",
      }));
  const [serverSide, clientSide] = createDuplexPair();
  const served = server.serve(serverSide);
  const connect = async () => {
    return ContextClient.connect(clientSide, {
      era: options.era,
      timeProvider: time,
      eraCache: null,
      inputs,
    });
  };
  return { server, served, connect, inputs, ids, time };
}

async function multiRound(ctx: Ctx) {
  const schema = { type: "object" as const, properties: { v: { type: "string" as const } } };
  const a = await ctx.elicit({ message: "one", requestedSchema: schema }, { key: "step1" });
  const b = await ctx.elicit({ message: "two", requestedSchema: schema }, { key: "step2" });
  return { content: [{ type: "text", text: `${a.content?.v}+${b.content?.v} in round ${ctx.round}` }] };
}

describe("input rounds end to end, modern era", () => {
  it("the handler asks, the client fulfils and retries with new ids, the call completes", async () => {
    const { connect, ids, server } = setup({ era: "modern" });
    const client = await connect();
    const result = await client.request("tools/call", { name: "summarise", arguments: { topic: "MCP" } });
    expect(result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "Summary (modern): short 100" }],
    });
    expect(ids).toHaveLength(3); // ask confirm, ask summary, complete
    expect(new Set(ids).size).toBe(3);
    await client.close();
    await server.close();
  });

  it("manual mode shows the wire: keys, state, and a tampered state refused with -32602", async () => {
    const { connect } = setup({ era: "modern" });
    const client = await connect();
    const params = { name: "multi" };
    const first = (await client.request("tools/call", params, { inputRequired: "manual" })) as Record<
      string,
      unknown
    >;
    expect(first.resultType).toBe("input_required");
    expect(Object.keys(first.inputRequests as object)).toEqual(["step1"]);
    expect(typeof first.requestState).toBe("string");
    const tampered = await client
      .request("tools/call", {
        ...params,
        requestState: `${first.requestState}-TAMPERED`,
        inputResponses: { step1: { action: "accept", content: { v: "x" } } },
      }, { inputRequired: "manual" })
      .then(() => undefined, (e: unknown) => e);
    expect(tampered).toBeInstanceOf(JsonRpcError);
    expect((tampered as JsonRpcError).code).toBe(-32602);
    expect((tampered as JsonRpcError).message).toMatch(/requestState/);
    const done = await client.request("tools/call", params);
    expect(done).toMatchObject({ content: [{ type: "text", text: "undefined+undefined in round 2" }] });
    await client.close();
  });

  it("parallel calls are isolated, and an unrelated call in between carries no input fields", async () => {
    let n = 0;
    const inputs = new ClientInputs().onElicit((p) => ({
      action: "accept",
      content: { v: `${p.message}#${++n}` },
    }));
    const { connect } = setup({ era: "modern", clientInputs: inputs });
    const client = await connect();
    const [a, b] = await Promise.all([
      client.request("tools/call", { name: "multi", arguments: { run: "a" } }),
      client.request("tools/call", { name: "multi", arguments: { run: "b" } }),
    ]);
    const texts = [a, b].map((r) => ((r as { content: { text: string }[] }).content[0].text));
    for (const text of texts) expect(text).toMatch(/^one#\d\+two#\d in round 2$/);
    expect(new Set(texts).size).toBe(2);
    await client.close();
  });

  it("a client without the capabilities gets -32021 naming them", async () => {
    const { connect } = setup({ era: "modern", clientInputs: new ClientInputs() });
    const client = await connect();
    const error = await client.request("tools/call", { name: "summarise" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32021);
    expect((error as JsonRpcError).data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
    await client.close();
  });

  it("handlers registered on the client after connect are declared on later modern requests", async () => {
    const { connect } = setup({ era: "modern", clientInputs: new ClientInputs() });
    const client = await connect();
    const before = await client.request("tools/call", { name: "multi" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((before as JsonRpcError).code).toBe(-32021);
    client.onElicit(() => ({ action: "accept", content: { v: "late" } }));
    expect(client.inputs.capabilities()).toEqual({ elicitation: { form: {} } });
    expect(await client.request("tools/call", { name: "multi" })).toMatchObject({
      content: [{ type: "text", text: "late+late in round 2" }],
    });
    await client.close();
  });
});

describe("roots in a legacy session", () => {
  it("setRoots tells the server with notifications/roots/list_changed; roots/list answers the new roots", async () => {
    const time = new FakeTimeProvider();
    const server = new ContextServer({
      name: "s",
      version: "1",
      capabilities: { tools: {} },
      timeProvider: time,
    });
    let changed = 0;
    server.onNotification("notifications/roots/list_changed", () => void changed++);
    server.handle(
      "tools/call",
      async (_p, ctx) => ({
        content: [{ type: "text", text: (await ctx.listRoots()).roots.map((r) => r.uri).join(",") }],
      }),
    );
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);
    const inputs = new ClientInputs().setRoots([{ uri: "file:///one" }]);
    const client = await ContextClient.connect(clientSide, {
      era: "legacy",
      timeProvider: time,
      eraCache: null,
      inputs,
    });
    expect(await client.request("tools/call", { name: "r" })).toEqual({
      content: [{ type: "text", text: "file:///one" }],
    });
    client.setRoots([{ uri: "file:///two" }, { uri: "file:///three" }]);
    expect(await client.request("tools/call", { name: "r" })).toEqual({
      content: [{ type: "text", text: "file:///two,file:///three" }],
    });
    expect(changed).toBe(1);
    await client.close();
    await server.close();
  });
});
