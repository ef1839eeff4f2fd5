/** Method-map generics: a map types handle()/request()/onNotification() end to end; unknown methods stay allowed as `unknown`. */
import { describe, expect, expectTypeOf, it } from "vitest";
import { ContextClient } from "../../../src/client/context_client.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import type { MethodMap, ParamsOf, ResultOf } from "../../../src/wire/method_map.ts";
import type {
  ClientNotificationMap,
  ClientRequestMap,
  ServerNotificationMap,
  ServerRequestMap,
} from "../../../src/wire/protocol/method_maps.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

/** A map in the shape the generated protocol maps use: an interface, no index signature. */
interface Requests {
  "tools/call": {
    params: { name: string; arguments?: Record<string, unknown> };
    result: { content: Array<{ type: "text"; text: string }> };
  };
  "ping": { params?: Record<string, never>; result: Record<string, never> };
}
/** Notification maps are method → params, as in onemodelcontext/protocol. */
interface Notifications {
  "notifications/progress": { progressToken: string | number; progress: number };
}

describe("method maps", () => {
  it("derive params and results, and unknown for methods the map does not name", () => {
    expectTypeOf<ParamsOf<Requests, "tools/call">>().toEqualTypeOf<
      { name: string; arguments?: Record<string, unknown> }
    >();
    expectTypeOf<ResultOf<Requests, "tools/call">>().toEqualTypeOf<
      { content: Array<{ type: "text"; text: string }> }
    >();
    expectTypeOf<ParamsOf<Requests, "made/up">>().toBeUnknown();
    expectTypeOf<ResultOf<Requests, "made/up">>().toBeUnknown();
    expectTypeOf<Requests>().toExtend<MethodMap<Requests>>();
  });

  it("type a server's handlers and a client's requests end to end over a real pair", async () => {
    const time = new FakeTimeProvider();
    const server = new ContextServer<Requests, Notifications>({
      name: "typed",
      version: "1",
      capabilities: { tools: {} },
      timeProvider: time,
    });
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
    server.onNotification(
      "notifications/progress",
      (params) => void expectTypeOf(params.progress).toBeNumber(),
    );
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);

    const client = await ContextClient.connect<Requests>(clientSide, {
      era: "legacy",
      timeProvider: time,
      eraCache: null,
    });
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
    void new ContextServer({ name: "free", version: "1", capabilities: {}, timeProvider: time }).handle(
      "x/y",
      () => ({ free: true }),
    ).serve(s2);
    const untyped = await ContextClient.connect(c2, { era: "legacy", timeProvider: time, eraCache: null });
    const asserted = await untyped.request<{ free: boolean }>("x/y", {});
    expect(asserted.free).toBe(true);
    await untyped.close();
  });

  it("plug in the generated MCP maps: tools/call is typed end to end, and a wrong shape does not compile", async () => {
    const time = new FakeTimeProvider();
    const server = new ContextServer<ClientRequestMap, ClientNotificationMap>({
      name: "mcp",
      version: "1",
      capabilities: { tools: {} },
      timeProvider: time,
    });
    server.handle("tools/call", (params) => {
      expectTypeOf(params.name).toBeString();
      return { content: [{ type: "text", text: `called ${params.name}` }] };
    });
    // @ts-expect-error: a tools/list result needs tools
    server.handle("tools/list", () => ({ nope: true }));
    server.handle("tools/list", () => ({ tools: [] }));
    server.onNotification(
      "notifications/roots/list_changed",
      (params) => void expectTypeOf(params).not.toBeUnknown(),
    );
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);

    for (const era of ["legacy", "modern"] as const) {
      const [s2, c2] = era === "legacy" ? [serverSide, clientSide] : createDuplexPair();
      if (era === "modern") void server.serve(s2);
      const client = await ContextClient.connect<ClientRequestMap, ServerNotificationMap, ServerRequestMap>(
        c2,
        { era, timeProvider: time, eraCache: null },
      );
      client.handle("roots/list", () => ({ roots: [{ uri: "file:///w" }] }));
      client.onNotification(
        "notifications/progress",
        (params) => void expectTypeOf(params.progress).toBeNumber(),
      );
      const result = await client.request("tools/call", { name: "echo", arguments: { text: "hi" } });
      expectTypeOf(result).toEqualTypeOf<ResultOf<ClientRequestMap, "tools/call">>();
      expect(result).toMatchObject({ content: [{ type: "text", text: "called echo" }] });
      // @ts-expect-error: tools/call params need a name
      await client.request("tools/call", { arguments: {} }).catch(() => undefined);
      await client.close();
    }
  });
});
