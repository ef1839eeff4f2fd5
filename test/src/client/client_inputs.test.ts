import { describe, expect, it } from "vitest";
import { ClientInputs, isInputRequiredResult, retryParams } from "../../../src/client/client_inputs.ts";
import { applyElicitationDefaults } from "../../../src/client/elicitation_defaults.ts";
import { InvalidOptionError, JsonRpcError, ProtocolError } from "../../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/fake_time_provider.ts";

const FORM = {
  message: "Name?",
  requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } } },
};

function inputs() {
  return new ClientInputs({ stateOnlyRetryDelay: 0 })
    .onElicit(() => ({ action: "accept", content: { name: "Alice" } }))
    .onSample((params) => ({
      role: "assistant",
      content: { type: "text", text: `re: ${JSON.stringify(params.messages[0]?.content)}` },
      model: "m",
    }))
    .setRoots([{ uri: "file:///test/root", name: "Test Root" }]);
}

/** A fake server: answers each send from `script` (by call index) and records what was sent. */
function scripted(script: ((params: Record<string, unknown>) => unknown)[]) {
  const sent: Record<string, unknown>[] = [];
  const send = async (_method: string, params: Record<string, unknown>) => {
    sent.push(params);
    const step = script[Math.min(sent.length - 1, script.length - 1)];
    return step(params);
  };
  return { send, sent };
}

describe("ClientInputs", () => {
  it("declares capabilities from the registered handlers", () => {
    expect(new ClientInputs().capabilities()).toEqual({});
    expect(inputs().capabilities()).toEqual({
      elicitation: { form: {} },
      sampling: {},
      roots: { listChanged: true },
    });
    const full = new ClientInputs().onElicit(() => ({ action: "cancel" }), { modes: ["form", "url"] })
      .onSample(() => ({}) as never, { tools: true, context: true });
    expect(full.capabilities()).toEqual({
      elicitation: { form: {}, url: {} },
      sampling: { tools: {}, context: {} },
    });
    expect(() => new ClientInputs().onElicit(() => ({ action: "cancel" }), { modes: [] })).toThrow(
      InvalidOptionError,
    );
  });

  it("fulfils input_required and retries with the answers and the state echoed exactly", async () => {
    const state = 'opaque "state" \u00e9 \u2028 with escapes';
    const { send, sent } = scripted([
      () => ({
        resultType: "input_required",
        inputRequests: {
          user_name: { method: "elicitation/create", params: FORM },
          r: { method: "roots/list" },
        },
        requestState: state,
      }),
      () => ({ resultType: "complete", content: [] }),
    ]);
    const result = await inputs().request(send, "tools/call", {
      name: "t",
      arguments: { a: 1 },
      _meta: { k: 1 },
    });
    expect(result).toEqual({ resultType: "complete", content: [] });
    expect(sent).toHaveLength(2);
    expect(sent[0]).toEqual({ name: "t", arguments: { a: 1 }, _meta: { k: 1 } });
    expect(sent[1]).toEqual({
      name: "t",
      arguments: { a: 1 },
      _meta: { k: 1 },
      inputResponses: {
        user_name: { action: "accept", content: { name: "Alice" } },
        r: { roots: [{ uri: "file:///test/root", name: "Test Root" }] },
      },
      requestState: state,
    });
    expect(sent[1].requestState).toBe(state);
  });

  it("omits requestState when the server sent none, and retries at once when only state was sent", async () => {
    const { send, sent } = scripted([
      () => ({
        resultType: "input_required",
        inputRequests: { s: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } } },
      }),
      () => ({ resultType: "input_required", requestState: "only-state" }),
      () => ({ content: [] }),
    ]);
    expect(await inputs().request(send, "tools/call", { name: "t" })).toEqual({ content: [] }); // no resultType: complete
    expect("requestState" in sent[1]).toBe(false);
    expect(Object.keys(sent[1].inputResponses as object)).toEqual(["s"]);
    expect(sent[2]).toEqual({ name: "t", requestState: "only-state" });
  });

  it("gives up after maxInputRounds retries (default 10), not before", async () => {
    const forever = () => ({ resultType: "input_required", requestState: "again" });
    const ten = scripted([...Array.from({ length: 10 }, () => forever), () => ({ content: [] })]);
    expect(await inputs().request(ten.send, "tools/call", {})).toEqual({ content: [] });
    expect(ten.sent).toHaveLength(11);
    const eleven = scripted([forever]);
    await expect(inputs().request(eleven.send, "tools/call", {})).rejects.toThrow(/after 10 retries/);
    expect(eleven.sent).toHaveLength(11);
    const two = scripted([forever]);
    await expect(
      new ClientInputs({ maxInputRounds: 2, stateOnlyRetryDelay: 0 }).request(two.send, "tools/call", {}),
    ).rejects.toBeInstanceOf(ProtocolError);
    expect(two.sent).toHaveLength(3);
  });

  it("waits stateOnlyRetryDelay (default 250 ms) before retrying a result that asks for nothing, not before", async () => {
    const time = new FakeTimeProvider();
    const client = new ClientInputs({ timeProvider: time });
    expect(client.stateOnlyRetryDelay).toBe(250);
    const { send, sent } = scripted([
      () => ({ resultType: "input_required", requestState: "later" }),
      () => ({ content: [] }),
    ]);
    const done = client.request(send, "tools/call", {});
    await flushMicrotasks();
    await time.advance(249);
    expect(sent).toHaveLength(1);
    await time.advance(1);
    await expect(done).resolves.toEqual({ content: [] });
    expect(sent).toHaveLength(2);
  });

  it("manual mode hands the input_required result to the caller; retryParams builds the retry", async () => {
    const first = {
      resultType: "input_required",
      inputRequests: { k: { method: "roots/list" } },
      requestState: "s1",
    };
    const { send } = scripted([() => first]);
    const result = await inputs().request(send, "tools/call", { name: "t" }, { inputRequired: "manual" });
    expect(isInputRequiredResult(result)).toBe(true);
    expect(
      retryParams({ name: "t", requestState: "old", inputResponses: { old: 1 } }, first as never, {
        k: { roots: [] },
      }),
    ).toEqual({
      name: "t",
      inputResponses: { k: { roots: [] } },
      requestState: "s1",
    });
  });

  it("parallel requests never share answers or state", async () => {
    const sent: Record<string, unknown>[] = [];
    const send = async (_m: string, params: Record<string, unknown>) => {
      sent.push(params);
      if (params.requestState === undefined) {
        return {
          resultType: "input_required",
          inputRequests: { k: { method: "roots/list" } },
          requestState: `state-of-${params.name}`,
        };
      }
      return { content: [{ type: "text", text: `${params.name}:${params.requestState}` }] };
    };
    const client = inputs();
    const [a, b, unrelated] = await Promise.all([
      client.request(send, "tools/call", { name: "a" }),
      client.request(send, "tools/call", { name: "b" }),
      Promise.resolve().then(() =>
        send("tools/call", { name: "plain" }).then(() => sent.find((p) => p.name === "plain"))
      ),
    ]);
    expect(a).toEqual({ content: [{ type: "text", text: "a:state-of-a" }] });
    expect(b).toEqual({ content: [{ type: "text", text: "b:state-of-b" }] });
    expect(unrelated).toEqual({ name: "plain" });
  });

  it("refuses malformed results and input methods it cannot answer", async () => {
    const noHandlers = new ClientInputs();
    const cases: [unknown, RegExp][] = [
      [{ resultType: "input_required" }, /neither inputRequests nor requestState/],
      [{ resultType: "input_required", requestState: 5 }, /not a string/],
      [{ resultType: "input_required", inputRequests: [] }, /not an object/],
      [
        { resultType: "input_required", inputRequests: { k: { method: "tools/call" } } },
        /not an input request method/,
      ],
      [{
        resultType: "input_required",
        inputRequests: { k: { method: "sampling/createMessage", params: {} } },
      }, /cannot answer/],
      [{ resultType: "input_required", inputRequests: { k: "x" } }, /not a \{method, params\}/],
    ];
    for (const [result, message] of cases) {
      await expect(noHandlers.request(async () => result, "tools/call", {})).rejects.toThrow(message);
    }
  });

  it("answers legacy server requests, with JSON-RPC errors for what it does not support", async () => {
    const ctx = { era: "legacy" as const, key: "1", signal: new AbortController().signal };
    const client = inputs();
    expect(await client.answer("roots/list", undefined, ctx)).toEqual({
      roots: [{ uri: "file:///test/root", name: "Test Root" }],
    });
    const missing = async (fn: () => Promise<unknown>, code: number) => {
      const error = await fn().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(JsonRpcError);
      expect((error as JsonRpcError).code).toBe(code);
    };
    await missing(() => new ClientInputs().answer("roots/list", undefined, ctx), -32601);
    await missing(() => new ClientInputs().answer("sampling/createMessage", {}, ctx), -32601);
    await missing(
      () =>
        client.answer("elicitation/create", {
          mode: "url",
          message: "m",
          url: "https://x",
          elicitationId: "e",
        }, ctx),
      -32602,
    );
    await missing(() => client.answer("ping/other", {}, ctx), -32601);
  });

  it("URL elicitation: completion notifications reach listeners once, for known ids only", async () => {
    const client = new ClientInputs().onElicit(() => ({ action: "accept" }), { modes: ["url"] });
    const done: string[] = [];
    client.onElicitationComplete((id) => done.push(id));
    const ctx = { era: "legacy" as const, key: "1", signal: new AbortController().signal };
    expect(
      await client.answer("elicitation/create", {
        mode: "url",
        message: "m",
        url: "https://x",
        elicitationId: "e1",
      }, ctx),
    ).toEqual({ action: "accept" });
    client.elicitationComplete({ elicitationId: "unknown" });
    client.elicitationComplete({ elicitationId: "e1" });
    client.elicitationComplete({ elicitationId: "e1" });
    client.elicitationComplete(null);
    expect(done).toEqual(["e1"]);
  });

  it("applies schema defaults to accepted forms (opt-out per handler)", async () => {
    const schema = {
      type: "object",
      properties: {
        name: { type: "string", default: "John Doe" },
        age: { type: "integer", default: 30 },
        score: { type: "number", default: 95.5 },
        status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
        verified: { type: "boolean", default: true },
        noDefault: { type: "string" },
      },
    };
    const params = { message: "m", requestedSchema: schema };
    const ctx = { era: "modern" as const, key: "k", signal: new AbortController().signal };
    const withDefaults = new ClientInputs().onElicit(() => ({ action: "accept", content: { name: "Jane" } }));
    expect(await withDefaults.answer("elicitation/create", params, ctx)).toEqual({
      action: "accept",
      content: { name: "Jane", age: 30, score: 95.5, status: "active", verified: true },
    });
    const without = new ClientInputs().onElicit(() => ({ action: "accept", content: {} }), {
      applyDefaults: false,
    });
    expect(await without.answer("elicitation/create", params, ctx)).toEqual({
      action: "accept",
      content: {},
    });
    expect(applyElicitationDefaults(params, { action: "decline" })).toEqual({ action: "decline" });
    expect(
      applyElicitationDefaults({
        message: "m",
        requestedSchema: { type: "object", properties: { a: { type: "integer", default: "x" } } },
      }, { action: "accept" }),
    ).toEqual({
      action: "accept",
    });
  });

  it("setRoots tells listeners the roots changed", () => {
    const client = new ClientInputs();
    let changes = 0;
    const stop = client.onRootsChanged(() => changes++);
    client.setRoots([]);
    client.setRoots([{ uri: "file:///a" }]);
    stop();
    client.setRoots([]);
    expect(changes).toBe(2);
  });
});
