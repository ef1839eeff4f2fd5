/** Method-map generics: a map types handle()/request()/onNotification() end to end; unknown methods stay allowed as `unknown`. */
import { describe, expect, expectTypeOf, it } from "vitest";
import { ContextClient } from "../../../src/client/context_client.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import type { MethodMap, ParamsOf, ResultOf } from "../../../src/wire/method_map.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

/** A map in the shape the generated protocol maps use: an interface, no index signature. */
interface Requests {
  "tools/call": { params: { name: string; arguments?: Record<string, unknown> }; result: { content: Array<{ type: "text"; text: string }> } };
  "ping": { params?: Record<string, never>; result: Record<string, never> };
}
interface Notifications {
  "notifications/progress": { params: { progressToken: string | number; progress: number } };
}

describe("method maps", () => {
  it("derive params and results, and unknown for methods the map does not name", () => {
    expectTypeOf<ParamsOf<Requests, "tools/call">>().toEqualTypeOf<{ name: string; arguments?: Record<string, unknown> }>();
    expectTypeOf<ResultOf<Requests, "tools/call">>().toEqualTypeOf<{ content: Array<{ type: "text"; text: string }> }>();
    expectTypeOf<ParamsOf<Requests, "made/up">>().toBeUnknown();
    expectTypeOf<ResultOf<Requests, "made/up">>().toBeUnknown();
    expectTypeOf<Requests>().toExtend<MethodMap<Requests>>();
  });

  it("type a server's handlers and a client's requests end to end over a real pair", async () => {
    const time = new FakeTimeProvider();
    const server = new ContextServer<Requests, Notifications>({ name: "typed", version: "1", capabilities: { tools: {} }, timeProvider: time });
    server.handle("tools/call", (params) => {
      expectTypeOf(params).toEqualTypeOf<{ name: string; arguments?: Record<string, unknown> }>();
      return { content: [{ type: "text" as const, text: params.name }] };
    });
    // @ts-expect-error: the result must match the map's result type
    server.handle("tools/call", () => ({ content: 42 }));
    server.handle("tools/call", (params) => ({ content: [{ type: "text" as const, text: params.name }] }));
    server.handle("anything/else", (params) => {
      expectTypeOf(params).toBeUnknown();
      return { free: true };
    });
    server.onNotification("notifications/progress", (params) => void expectTypeOf(params.progress).toBeNumber());
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);

    const client = await ContextClient.connect<Requests>(clientSide, { era: "legacy", timeProvider: time, eraCache: null });
    const result = await client.request("tools/call", { name: "hello" });
    expectTypeOf(result).toEqualTypeOf<{ content: Array<{ type: "text"; text: string }> }>();
    expect(result.content[0]!.text).toBe("hello");
    // @ts-expect-error: tools/call needs a name
    await client.request("tools/call", { arguments: {} }).catch(() => undefined);
    const free = await client.request("anything/else", {});
    expectTypeOf(free).toBeUnknown();
    expect(free).toEqual({ free: true });
    // @ts-expect-error: with a map, an explicit result type cannot bypass it
    await client.request<{ content: number }>("tools/call", { name: "x" });
    await client.close();
    // Without a map, the caller may assert a result type (the form earlier code uses).
    const [s2, c2] = createDuplexPair();
    void new ContextServer({ name: "free", version: "1", capabilities: {}, timeProvider: time }).handle("x/y", () => ({ free: true })).serve(s2);
    const untyped = await ContextClient.connect(c2, { era: "legacy", timeProvider: time, eraCache: null });
    const asserted = await untyped.request<{ free: boolean }>("x/y", {});
    expect(asserted.free).toBe(true);
    await untyped.close();
  });
});
