/**
 * The gateway's modern child is shared by every HTTP client: what the child sends about one
 * request reaches that request only. Progress tokens and listen request ids are rewritten per
 * downstream request (issue 25, item 12), and `subscriptions/listen` is acknowledged first and then
 * carries the stream's notifications (item 13). The gateway's HTTP handler accepts requests to its
 * own URL when bound beyond loopback (item 14).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ensureDist } from "../fixtures/ours/build_dist.ts";

type Mod = typeof import("../../src/mod.ts");
type Testing = typeof import("../../testing/mod.ts");
type Gateway = typeof import("../../cli/gateway.ts");

let mod: Mod;
let testing: Testing;
let gateway: Gateway;

// deno-lint-ignore no-explicit-any
type Loose = any;

beforeAll(async () => {
  ensureDist(); // cli/gateway.ts imports the built package
  mod = await import("onemodelcontext") as unknown as Mod;
  testing = await import("onemodelcontext/testing") as unknown as Testing;
  gateway = await import("../../cli/gateway.ts");
}, 120_000);

/** A context that records what the gateway sends on the downstream request's response stream. */
function recordingContext(signal = new AbortController().signal) {
  const sent: Array<{ method: string; params: Loose }> = [];
  let wake: () => void = () => {};
  const context = {
    signal,
    notify(method: string, params?: unknown) {
      sent.push({ method, params });
      wake();
      return Promise.resolve();
    },
  };
  const until = async (count: number): Promise<void> => {
    while (sent.length < count) await new Promise<void>((resolve) => (wake = resolve));
  };
  return { context, sent, until };
}

/** A gateway whose child is an in-process server (over an in-memory duplex pair). */
function gatewayOver(server: InstanceType<Mod["ContextServer"]>) {
  const dispatcher = new gateway.GatewayDispatcher(() => {
    const [mine, theirs] = testing.createDuplexPair();
    void server.serve(theirs);
    return mine as never;
  }, (text) => {
    throw new Error(`unexpected report: ${text}`);
  });
  return dispatcher;
}

describe("the gateway's shared modern child", () => {
  it("sends each request's progress to that request only, under its own token (item 12)", async () => {
    const server = new mod.ContextServer({ name: "progress", version: "1" });
    let started = 0;
    let bothStarted: () => void = () => {};
    const allStarted = new Promise<void>((resolve) => (bothStarted = resolve));
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    server.tool("step", {
      inputSchema: { type: "object", properties: { who: { type: "string" } } },
    }, async (args: Loose, ctx) => {
      if (++started === 2) bothStarted();
      await gate;
      await ctx.sendProgress(1, { total: 2, message: args.who });
      await ctx.sendProgress(2, { total: 2, message: args.who });
      return args.who;
    });
    const dispatcher = gatewayOver(server);
    await dispatcher.start();
    const a = recordingContext();
    const b = recordingContext();
    const call = (who: string, context: Loose) =>
      dispatcher.dispatch({
        jsonrpc: "2.0",
        id: 1, // both clients chose the same request id and the same token
        method: "tools/call",
        params: { name: "step", arguments: { who }, _meta: { progressToken: "same" } },
      }, context);
    const replies = [call("a", a.context), call("b", b.context)];
    await allStarted;
    release();
    const [ra, rb] = await Promise.all(replies);
    expect((ra as Loose).result.content[0].text).toBe("a");
    expect((rb as Loose).result.content[0].text).toBe("b");
    for (const [who, rec] of [["a", a], ["b", b]] as const) {
      expect(rec.sent.map((n) => [n.method, n.params.progressToken, n.params.message])).toEqual([
        ["notifications/progress", "same", who],
        ["notifications/progress", "same", who],
      ]);
    }
    await dispatcher.close();
    await server.close();
  });

  it("acknowledges subscriptions/listen first, then carries the stream's notifications (item 13)", async () => {
    const server = new mod.ContextServer({ name: "listen", version: "1" });
    server.tool("noop", {}, () => "ok");
    const dispatcher = gatewayOver(server);
    await dispatcher.start();
    const stop = new AbortController();
    const rec = recordingContext(stop.signal);
    const other = recordingContext();
    const listen = dispatcher.dispatch({
      jsonrpc: "2.0",
      id: "mine",
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true } },
    }, rec.context);
    const otherListen = dispatcher.dispatch({
      jsonrpc: "2.0",
      id: "mine", // the same id from another HTTP client
      method: "subscriptions/listen",
      params: { notifications: { promptsListChanged: true } },
    }, other.context);
    await rec.until(1);
    await other.until(1);
    expect(rec.sent[0]).toEqual({
      method: "notifications/subscriptions/acknowledged",
      params: {
        _meta: { "io.modelcontextprotocol/subscriptionId": "mine" },
        notifications: { toolsListChanged: true },
      },
    });
    server.tool("added", {}, () => "ok");
    await rec.until(2);
    expect(rec.sent[1]).toEqual({
      method: "notifications/tools/list_changed",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "mine" } },
    });
    expect(other.sent.map((n) => n.method)).toEqual(["notifications/subscriptions/acknowledged"]);
    stop.abort();
    await listen;
    await dispatcher.close();
    await otherListen;
    await server.close();
  });
});

describe("the gateway's HTTP handler", () => {
  it("answers requests to its own URL when bound to a non-loopback address (item 14)", async () => {
    const server = new mod.ContextServer({ name: "bound", version: "1" });
    const dispatcher = gatewayOver(server);
    const http = { port: 8123, host: "192.0.2.2", maxSessions: 1, idleSeconds: 60 };
    const handler = gateway.gatewayHandler(dispatcher, http);
    const ping = (url: string) =>
      handler(
        new Request(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-06-18",
              capabilities: {},
              clientInfo: { name: "t", version: "1" },
            },
          }),
        }),
      );
    expect((await ping("http://192.0.2.2:8123/mcp")).status).toBe(200);
    expect((await ping("http://evil.example:8123/mcp")).status).toBe(403); // other hosts stay refused
    await handler.close();
    await dispatcher.close();
    await server.close();
  });
});
