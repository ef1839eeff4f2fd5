/** The server's message-level seam, driven directly: one message and a DispatchContext in, one reply out, no stream. */
import { describe, expect, it } from "vitest";
import { ContextServer, type ContextServerOptions } from "../../../src/server/context_server.ts";
import type { DispatchContext, ServerSession } from "../../../src/server/dispatch_context.ts";
import type { ServerRequestContext } from "../../../src/server/server_request_context.ts";
import { JsonRpcError, TransportError } from "../../../src/wire/errors.ts";
import { MetaKeys } from "../../../src/wire/protocol_versions.ts";
import { CLIENT_INFO, envelope, initializeParams, type Json } from "./context_server_helpers.ts";

function server(options: Partial<ContextServerOptions> = {}) {
  const reports: Error[] = [];
  const s = new ContextServer({
    name: "seam",
    version: "1",
    capabilities: { tools: {} },
    onReport: (e) => void reports.push(e),
    ...options,
  });
  return { server: s, reports };
}

/** A context as a transport would build it; `sent` collects the related notifications. */
function context(extra: Partial<DispatchContext> & { session?: ServerSession } = {}) {
  const sent: Array<[string, unknown]> = [];
  const controller = new AbortController();
  const ctx: DispatchContext = {
    signal: controller.signal,
    notify: async (method, params) => void sent.push([method, params]),
    ...extra,
  };
  return { ctx, sent, controller };
}

const request = (id: number | string, method: string, params?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

describe("ServerDispatch (through ContextServer.dispatch)", () => {
  it("answers a modern request from its _meta envelope alone: era, version, client and log level reach the handler", async () => {
    const { server: s } = server();
    let seen: ServerRequestContext | undefined;
    s.handle("tools/list", (_p, ctx) => ((seen = ctx), { tools: [] }));
    const { ctx } = context();
    const reply: Json = await s.dispatch(
      request(1, "tools/list", { _meta: envelope("2026-07-28", { [MetaKeys.logLevel]: "warning" }) }),
      ctx,
    );
    expect(reply).toMatchObject({ jsonrpc: "2.0", id: 1, result: { tools: [], resultType: "complete" } });
    expect(seen).toMatchObject({
      era: "modern",
      protocolVersion: "2026-07-28",
      clientInfo: CLIENT_INFO,
      clientCapabilities: { elicitation: {} },
      logLevel: "warning",
      requestId: 1,
      method: "tools/list",
    });
  });

  it("learns a legacy session from initialize into the session object the transport holds, and serves later requests from it", async () => {
    const { server: s } = server();
    s.handle(
      "tools/list",
      (_p, ctx) => ({
        era: ctx.era,
        v: ctx.protocolVersion,
        caps: ctx.clientCapabilities,
        level: ctx.logLevel ?? null,
      }),
    );
    const session: ServerSession = { legacy: undefined };
    const { ctx } = context({ session });
    const init: Json = await s.dispatch(request(1, "initialize", initializeParams("2025-06-18")), ctx);
    expect(init.result).toMatchObject({ protocolVersion: "2025-06-18", serverInfo: { name: "seam" } });
    expect(session.legacy).toMatchObject({
      protocolVersion: "2025-06-18",
      clientInfo: CLIENT_INFO,
      clientCapabilities: { roots: {} },
    });
    session.legacy!.logLevel = "error"; // what logging/setLevel will set
    const reply: Json = await s.dispatch(request(2, "tools/list", {}), ctx);
    expect(reply.result).toEqual({ era: "legacy", v: "2025-06-18", caps: { roots: {} }, level: "error" });
  });

  it("keeps two sessions apart: each transport's session object is its own", async () => {
    const { server: s } = server();
    s.handle("tools/list", (_p, ctx) => ({ v: ctx.protocolVersion }));
    const a = context({ session: { legacy: undefined } });
    const b = context({ session: { legacy: undefined } });
    await s.dispatch(request(1, "initialize", initializeParams("2025-03-26")), a.ctx);
    await s.dispatch(request(1, "initialize", initializeParams("2025-11-25")), b.ctx);
    expect(((await s.dispatch(request(2, "tools/list", {}), a.ctx)) as Json).result).toEqual({
      v: "2025-03-26",
    });
    expect(((await s.dispatch(request(2, "tools/list", {}), b.ctx)) as Json).result).toEqual({
      v: "2025-11-25",
    });
  });

  it("with no session (stateless), answers initialize but remembers nothing: the next unenveloped request is rejected", async () => {
    const { server: s } = server();
    s.handle("tools/list", () => ({ tools: [] }));
    const { ctx } = context();
    expect(((await s.dispatch(request(1, "initialize", initializeParams()), ctx)) as Json).result)
      .toMatchObject({ protocolVersion: "2025-06-18" });
    expect(((await s.dispatch(request(1, "initialize", initializeParams()), ctx)) as Json).result)
      .toBeDefined(); // no "already answered"
    const reply: Json = await s.dispatch(request(2, "tools/list", {}), ctx);
    expect(reply.error).toMatchObject({ code: -32602 });
    expect(reply.error.message).toMatch(/before initialize/);
  });

  it("serves a stateless legacy request from a fresh session built from its version (what an HTTP header gives)", async () => {
    const { server: s } = server();
    s.handle("tools/list", (_p, ctx) => ({ era: ctx.era, v: ctx.protocolVersion }));
    const session: ServerSession = {
      legacy: { protocolVersion: "2025-03-26", clientInfo: undefined, clientCapabilities: {} },
    };
    const reply: Json = await s.dispatch(request(1, "tools/list", {}), context({ session }).ctx);
    expect(reply.result).toEqual({ era: "legacy", v: "2025-03-26" });
  });

  it("with no session and unenvelopedRequests: legacy, serves an unenveloped request at the newest legacy version", async () => {
    const { server: s } = server({ unenvelopedRequests: "legacy" });
    s.handle("tools/list", (_p, ctx) => ({ era: ctx.era, v: ctx.protocolVersion }));
    const reply: Json = await s.dispatch(request(1, "tools/list", {}), context().ctx);
    expect(reply.result).toEqual({ era: "legacy", v: "2025-11-25" });
  });

  it("sends related notifications through the context's sink and waits for it: the reply is not produced while the sink is full", async () => {
    const { server: s } = server();
    s.handle("tools/call", async (_p, ctx) => {
      await ctx.sendProgress(1, { total: 2, message: "half" });
      await ctx.notify("notifications/message", { level: "info", data: "x" });
      return { content: [] };
    });
    const sent: Array<[string, unknown]> = [];
    let release!: () => void;
    const room = new Promise<void>((resolve) => (release = resolve));
    const ctx: DispatchContext = {
      signal: new AbortController().signal,
      notify: async (method, params) => {
        sent.push([method, params]);
        await room; // a full output: backpressure reaches the handler
      },
    };
    let replied = false;
    const replying = s.dispatch(
      request(5, "tools/call", { _meta: envelope("2026-07-28", { progressToken: "p" }) }),
      ctx,
    ).then((r) => ((replied = true), r));
    for (let i = 0; i < 20; i++) await Promise.resolve(); // let the handler run up to its first wait
    expect(sent).toEqual([["notifications/progress", {
      progressToken: "p",
      progress: 1,
      total: 2,
      message: "half",
    }]]);
    expect(replied).toBe(false);
    release();
    const reply: Json = await replying;
    expect(sent.map(([m]) => m)).toEqual(["notifications/progress", "notifications/message"]);
    expect(reply).toMatchObject({ id: 5, result: { content: [], resultType: "complete" } });
  });

  it("hands the handler the context's signal", async () => {
    const { server: s } = server({ unenvelopedRequests: "legacy" });
    let signal: AbortSignal | undefined;
    s.handle("x", (_p, ctx) => ((signal = ctx.signal), {}));
    const { ctx, controller } = context();
    await s.dispatch(request(1, "x"), ctx);
    expect(signal).toBe(controller.signal);
  });

  it("fails a server-to-client request at once when the transport has no way back (stateless HTTP), never hangs", async () => {
    const { server: s } = server({ unenvelopedRequests: "legacy" });
    s.handle("ask", async (_p, ctx) => {
      const error = (await ctx.request("roots/list", {}).catch((e: unknown) => e)) as TransportError;
      return { code: error.code, message: error.message, isTransportError: error instanceof TransportError };
    });
    const reply: Json = await s.dispatch(request(1, "ask"), context().ctx);
    expect(reply.result).toEqual({
      code: "protocol",
      message: expect.stringMatching(/roots\/list.*no server-to-client requests \(stateless HTTP\)/),
      isTransportError: true,
    });
  });

  it("sends a server-to-client request through the context on a legacy session, and refuses one on a modern request", async () => {
    const { server: s } = server();
    s.handle(
      "ask",
      async (_p, ctx) => ({
        roots: await ctx.request("roots/list", { x: 1 }).catch((e: Error) => e.message),
      }),
    );
    const asked: unknown[] = [];
    const session: ServerSession = {
      legacy: { protocolVersion: "2025-06-18", clientInfo: undefined, clientCapabilities: { roots: {} } },
    };
    const { ctx } = context({
      session,
      request: async (method, params) => (asked.push([method, params]), { roots: ["file:///a"] }),
    });
    expect(((await s.dispatch(request(1, "ask", {}), ctx)) as Json).result).toEqual({
      roots: { roots: ["file:///a"] },
    });
    expect(asked).toEqual([["roots/list", { x: 1 }]]);
    const modern: Json = await s.dispatch(request(2, "ask", { _meta: envelope() }), ctx);
    expect(modern.result.roots).toMatch(/modern era has no server-to-client requests/);
    expect(asked).toHaveLength(1);
  });

  it("turns a JsonRpcError into its error reply without a report, and any other throw into a generic -32603 with the exception reported", async () => {
    const { server: s, reports } = server({ unenvelopedRequests: "legacy" });
    s.handle("typed", () => {
      throw new JsonRpcError(-32002, "No such thing", { uri: "x" });
    });
    s.handle("boom", async () => {
      throw new Error("Kaboom: password=hunter2 at /srv/app/db.ts");
    });
    s.handle("sync", () => {
      throw "a bare string from /srv/app";
    });
    const { ctx } = context();
    expect(await s.dispatch(request(1, "typed"), ctx)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32002, message: "No such thing", data: { uri: "x" } },
    });
    expect(await s.dispatch(request(2, "boom"), ctx)).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32603, message: "Internal error" },
    });
    expect(await s.dispatch(request(3, "sync"), ctx)).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32603, message: "Internal error" },
    });
    expect(reports.map((e) => e.message)).toEqual([
      "Kaboom: password=hunter2 at /srv/app/db.ts",
      "a bare string from /srv/app",
    ]);
    expect(reports[0].stack).toContain("dispatch.test.ts");
  });

  it("with exposeInternalErrors: true, sends an unexpected exception's message, and still reports it", async () => {
    const { server: s, reports } = server({ unenvelopedRequests: "legacy", exposeInternalErrors: true });
    s.handle("boom", async () => {
      throw new Error("Kaboom");
    });
    s.handle("empty", () => {
      throw new Error("");
    });
    const { ctx } = context();
    expect(await s.dispatch(request(1, "boom"), ctx)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Kaboom" },
    });
    expect(await s.dispatch(request(2, "empty"), ctx)).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32603, message: "Internal error" },
    });
    expect(reports.map((e) => e.message)).toEqual(["Kaboom", ""]);
  });

  it("rejects a non-boolean exposeInternalErrors by name", () => {
    expect(() => server({ exposeInternalErrors: "yes" as never })).toThrow(
      /exposeInternalErrors must be a boolean, got string/,
    );
  });

  it("does not report the exception of a handler whose request was aborted, and still answers it generically", async () => {
    const { server: s, reports } = server({ unenvelopedRequests: "legacy" });
    s.handle(
      "slow",
      (_p, c) =>
        new Promise((_r, reject) =>
          c.signal.addEventListener("abort", () => reject(new Error("Aborted inside /srv/app")))
        ),
    );
    const { ctx, controller } = context();
    const pending = s.dispatch(request(1, "slow"), ctx);
    controller.abort();
    expect(await pending).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Internal error" },
    });
    expect(reports).toEqual([]);
  });

  it("answers an unknown method with -32601 and an invalid message with -32600", async () => {
    const { server: s } = server({ unenvelopedRequests: "legacy" });
    const { ctx } = context();
    expect(((await s.dispatch(request(1, "nope"), ctx)) as Json).error).toEqual({
      code: -32601,
      message: 'Method not found: "nope"',
    });
    expect((await s.dispatch({ jsonrpc: "1.0", id: 7, method: "x" }, ctx)) as Json).toMatchObject({
      id: 7,
      error: { code: -32600 },
    });
  });

  it("runs a notification's handler and produces no reply; a failing one is reported", async () => {
    const { server: s, reports } = server();
    const got: unknown[] = [];
    s.onNotification("notifications/roots/list_changed", (p) => void got.push(p));
    s.onNotification("notifications/bad", async () => {
      throw new Error("Bad handler");
    });
    const { ctx } = context();
    expect(
      await s.dispatch({ jsonrpc: "2.0", method: "notifications/roots/list_changed", params: { a: 1 } }, ctx),
    ).toBeUndefined();
    expect(await s.dispatch({ jsonrpc: "2.0", method: "notifications/bad" }, ctx)).toBeUndefined();
    expect(got).toEqual([{ a: 1 }]);
    expect(reports.map((e) => e.message)).toEqual(["Bad handler"]);
  });

  it("answers nothing to a response and reports it: replies belong to the transport that sent the request", async () => {
    const { server: s, reports } = server();
    expect(await s.dispatch({ jsonrpc: "2.0", id: 3, result: {} }, context().ctx)).toBeUndefined();
    expect(reports[0]!.message).toMatch(/response \(id 3\) reached dispatch/);
  });

  it("answers server/discover and ping itself, in both eras", async () => {
    const { server: s } = server();
    const { ctx } = context();
    expect(((await s.dispatch(request(1, "server/discover", { _meta: envelope() }), ctx)) as Json).result)
      .toMatchObject({ supportedVersions: ["2026-07-28"] });
    expect(((await s.dispatch(request(2, "ping"), ctx)) as Json).result).toEqual({});
  });
});
