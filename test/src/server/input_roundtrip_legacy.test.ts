/** The same asking handlers in a legacy session: real server-to-client requests, bounded. */
import { describe, expect, it } from "vitest";
import { ClientInputs } from "../../../src/client/client_inputs.ts";
import { ContextClient } from "../../../src/client/context_client.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { JsonRpcError } from "../../../src/wire/errors.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/fake_time_provider.ts";

function setup(inputs: ClientInputs) {
  const time = new FakeTimeProvider();
  const server = new ContextServer({
    name: "s",
    version: "1",
    capabilities: { tools: {} },
    timeProvider: time,
  });
  let calls = 0;
  server.handle("tools/list", () => ({ tools: [] }));
  server.handle("tools/call", async (_params, ctx) => {
    calls++;
    const confirm = await ctx.elicit({
      message: "Go?",
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
    });
    const summary = await ctx.sample({
      messages: [{ role: "user", content: { type: "text", text: "Summarise" } }],
      maxTokens: 100,
    });
    const roots = ctx.canListRoots() ? (await ctx.listRoots()).roots.length : -1;
    return {
      content: [{
        type: "text",
        text: `${ctx.era} ${confirm.action} ${JSON.stringify(summary.content)} roots=${roots}`,
      }],
    };
  });
  const [serverSide, clientSide] = createDuplexPair();
  const served = server.serve(serverSide);
  const connect = async () => {
    return ContextClient.connect(clientSide, { era: "legacy", timeProvider: time, eraCache: null, inputs });
  };
  return { server, served, connect, time, calls: () => calls };
}

describe("input requests in a legacy session", () => {
  it("the handler's asks travel as JSON-RPC requests and the one call completes", async () => {
    const inputs = new ClientInputs()
      .onElicit(() => ({ action: "accept", content: { ok: true } }))
      .onSample(() => ({ role: "assistant", content: { type: "text", text: "short" }, model: "m" }))
      .setRoots([{ uri: "file:///a" }, { uri: "file:///b" }]);
    const { connect, calls, server } = setup(inputs);
    const client = await connect();
    const result = await client.request("tools/call", { name: "t", arguments: {} });
    expect(result).toEqual({
      content: [{ type: "text", text: 'legacy accept {"type":"text","text":"short"} roots=2' }],
    });
    expect(calls()).toBe(1);
    await client.close();
    await server.close();
  });

  it("a client that never answers: the call fails after 60 s with a clear error, the client's handler is cancelled, other requests flow", async () => {
    let handlerSignal: AbortSignal | undefined;
    const inputs = new ClientInputs().onElicit((_p, ctx) => {
      handlerSignal = ctx.signal;
      return new Promise(() => {}); // never answers
    });
    const { connect, time, server } = setup(inputs);
    const client = await connect();
    const call = client.request("tools/call", { name: "t", arguments: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    let settled = false;
    void call.then(() => (settled = true));
    await flushMicrotasks();
    expect(await client.request("tools/list", {})).toEqual({ tools: [] });
    await time.advance(59_999);
    expect(settled).toBe(false);
    await time.advance(1);
    const error = await call;
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).message).toMatch(/did not answer elicitation\/create within 60000 ms/);
    await flushMicrotasks();
    expect(handlerSignal?.aborted).toBe(true); // the server sent notifications/cancelled
    expect(await client.request("tools/list", {})).toEqual({ tools: [] });
    // The client's handler ignores its signal and never settles: closing waits its bounded grace.
    const closing = Promise.all([client.close(), server.close()]);
    await time.advance(10_000);
    await closing;
  });

  it("a missing capability is -32021 at once, without a request to the client", async () => {
    const inputs = new ClientInputs().onElicit(() => ({ action: "accept", content: { ok: true } }));
    const { connect, server } = setup(inputs);
    const client = await connect();
    const error = await client.request("tools/call", { name: "t" }).then(() => undefined, (e: unknown) => e);
    expect((error as JsonRpcError).code).toBe(-32021);
    expect((error as JsonRpcError).data).toEqual({ requiredCapabilities: { sampling: {} } });
    await client.close();
    await server.close();
  });
});
