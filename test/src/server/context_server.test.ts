import { describe, expect, it } from "vitest";
import { ContextServer } from "../../../src/server/context_server.ts";
import { ClosedError, InvalidOptionError, JsonRpcError } from "../../../src/wire/errors.ts";
import { NewlineChannel } from "../../../src/stream/newline_channel.ts";
import { LEGACY_VERSIONS, MetaKeys } from "../../../src/wire/protocol_versions.ts";
import { delay } from "../../../src/stream/time_kit.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/fake_time_provider.ts";
import { CLIENT_INFO, envelope, initializeParams, type Json, Peer, setup } from "./context_server_helpers.ts";

const SERVER_INFO = { name: "test-server", version: "1.2.3" };

describe("ContextServer legacy era", () => {
  it("answers initialize with the exact InitializeResult and echoes a supported version", async () => {
    const { peer } = setup();
    for (const [id, version] of LEGACY_VERSIONS.entries()) {
      const { peer: p } = setup();
      expect(await p.call(id, "initialize", initializeParams(version))).toEqual({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: version,
          capabilities: { tools: {} },
          serverInfo: SERVER_INFO,
          instructions: "Be kind",
        },
      });
    }
    const reply = await peer.call(1, "initialize", initializeParams("2025-06-18"));
    expect(reply.result.resultType).toBeUndefined();
    expect(reply.result._meta).toBeUndefined();
  });

  it("offers its newest legacy version for an unknown one, and never a modern version", async () => {
    const { peer } = setup();
    expect((await peer.call(1, "initialize", initializeParams("2099-01-01"))).result.protocolVersion).toBe(
      "2025-11-25",
    );
    const second = setup();
    expect((await second.peer.call(1, "initialize", initializeParams("2026-07-28"))).result.protocolVersion)
      .toBe("2025-11-25");
  });

  it("offers the newest legacy version it was configured with", async () => {
    const { peer } = setup({ supportedVersions: ["2025-03-26", "2025-06-18", "2026-07-28"] });
    const reply = await peer.call(1, "initialize", initializeParams("2025-11-25"));
    expect(reply.result.protocolVersion).toBe("2025-06-18");
  });

  it("leaves instructions and title out or in as declared", async () => {
    const { peer } = setup({ instructions: undefined, title: "Test Server" });
    const reply = await peer.call(1, "initialize", initializeParams());
    expect(reply.result).toEqual({
      protocolVersion: "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { ...SERVER_INFO, title: "Test Server" },
    });
  });

  it("a modern-only server answers initialize with -32022 naming its versions", async () => {
    const { peer } = setup({ supportedVersions: ["2026-07-28"] });
    const reply = await peer.call(1, "initialize", initializeParams("2025-06-18"));
    expect(reply.error.code).toBe(-32022);
    expect(reply.error.data).toEqual({ supported: ["2026-07-28"], requested: "2025-06-18" });
  });

  it("rejects initialize without a protocolVersion (-32602) and a second initialize (-32600)", async () => {
    const { peer } = setup();
    expect((await peer.call(1, "initialize", { capabilities: {} })).error.code).toBe(-32602);
    expect((await peer.call(2, "initialize", initializeParams())).result.protocolVersion).toBe("2025-06-18");
    const again = await peer.call(3, "initialize", initializeParams());
    expect(again.error.code).toBe(-32600);
    expect(again.id).toBe(3);
  });

  it("answers ping with {} before and after initialize", async () => {
    const { peer } = setup();
    expect(await peer.call("p1", "ping")).toEqual({ jsonrpc: "2.0", id: "p1", result: {} });
    await peer.call(1, "initialize", initializeParams());
    await peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(await peer.call(2, "ping", {})).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it("serves requests after initialize in the legacy era with the negotiated version and the client's identity", async () => {
    const { server, peer } = setup();
    const seen: Json[] = [];
    server.handle("tools/list", (params, ctx) => {
      seen.push({
        params,
        era: ctx.era,
        v: ctx.protocolVersion,
        info: ctx.clientInfo,
        caps: ctx.clientCapabilities,
        id: ctx.requestId,
        method: ctx.method,
      });
      return { tools: [] };
    });
    await peer.call(1, "initialize", initializeParams("2025-03-26"));
    await peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(await peer.call(2, "tools/list", {})).toEqual({ jsonrpc: "2.0", id: 2, result: { tools: [] } });
    expect(seen).toEqual([{
      params: {},
      era: "legacy",
      v: "2025-03-26",
      info: CLIENT_INFO,
      caps: { roots: {} },
      id: 2,
      method: "tools/list",
    }]);
  });

  it("rejects a request with neither envelope nor initialize with -32602 by default", async () => {
    const { server, peer } = setup();
    let called = false;
    server.handle("tools/list", () => (called = true));
    const reply = await peer.call(7, "tools/list", {});
    expect(reply.id).toBe(7);
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).toMatch(/before initialize/);
    expect(called).toBe(false);
  });

  it("serves such a request in the legacy era with unenvelopedRequests: legacy", async () => {
    const { server, peer } = setup({ unenvelopedRequests: "legacy" });
    server.handle(
      "tools/list",
      (_p, ctx) => ({
        era: ctx.era,
        v: ctx.protocolVersion,
        info: ctx.clientInfo ?? null,
        caps: ctx.clientCapabilities,
      }),
    );
    expect((await peer.call(1, "tools/list")).result).toEqual({
      era: "legacy",
      v: "2025-11-25",
      info: null,
      caps: {},
    });
  });

  it("answers -32601 for a method without a handler", async () => {
    const { peer } = setup();
    await peer.call(1, "initialize", initializeParams());
    expect((await peer.call(2, "resources/list", {})).error.code).toBe(-32601);
  });
});

describe("ContextServer admission barrier", () => {
  it("dispatches neither a request nor a notification sent right after initialize before its reply is queued", async () => {
    const time = new FakeTimeProvider();
    const log: string[] = [];
    const server = new ContextServer({
      name: "s",
      version: "1",
      capabilities: { tools: {} },
      timeProvider: time,
    });
    server.handle("tools/list", () => {
      log.push("dispatch tools/list");
      return { tools: [] };
    });
    server.onNotification(
      "notifications/initialized",
      () => void log.push("dispatch notifications/initialized"),
    );
    const [serverSide, clientSide] = createDuplexPair();
    const channel = new NewlineChannel(serverSide, { timeProvider: time });
    const send = channel.send.bind(channel);
    // The initialize reply takes 1 s of fake time to enter the output queue.
    channel.send = async (message: Json, signal?: AbortSignal) => {
      if (message.id === 1) await delay(time, 1_000);
      await send(message, signal);
      log.push(`queued reply ${message.id ?? message.method}`);
    };
    void server.serve(channel);
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: initializeParams() },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
    ].map((m) => JSON.stringify(m) + "\n").join("");
    const writer = clientSide.writable.getWriter();
    await writer.write(new TextEncoder().encode(lines)); // all three in one chunk
    for (let i = 0; i < 20; i++) await flushMicrotasks();
    expect(log).toEqual([]);
    await time.advance(1_000);
    for (let i = 0; i < 20; i++) await flushMicrotasks();
    expect(log).toEqual([
      "queued reply 1",
      "dispatch notifications/initialized",
      "dispatch tools/list",
      "queued reply 2",
    ]);
    const peer = new Peer({ readable: clientSide.readable, writable: new WritableStream() }, time);
    expect((await peer.next()).id).toBe(1);
    expect((await peer.next()).id).toBe(2);
    await server.close();
  });

  it("keeps ordinary requests concurrent: replies leave in completion order", async () => {
    const { server, peer, time } = setup();
    server.handle("slow", async (_p, ctx) => {
      await delay(time, 500, ctx.signal);
      return { which: "slow" };
    });
    server.handle("fast", () => ({ which: "fast" }));
    await peer.call(1, "initialize", initializeParams());
    await peer.send({ jsonrpc: "2.0", id: 2, method: "slow" });
    await peer.send({ jsonrpc: "2.0", id: 3, method: "fast" });
    expect((await peer.next()).id).toBe(3);
    await time.advance(500);
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: 2, result: { which: "slow" } });
  });
});

describe("ContextServer server/discover", () => {
  it("answers before any initialize with the exact DiscoverResult", async () => {
    const { peer } = setup({ title: "Test" });
    expect(await peer.call("discover-1", "server/discover", { _meta: envelope() })).toEqual({
      jsonrpc: "2.0",
      id: "discover-1",
      result: {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        instructions: "Be kind",
        ttlMs: 0,
        cacheScope: "private",
        _meta: { [MetaKeys.serverInfo]: { ...SERVER_INFO, title: "Test" } },
      },
    });
  });

  it("uses discoverTtlMs and cacheScope, and omits instructions when none were declared", async () => {
    const { peer } = setup({ discoverTtlMs: 60_000, cacheScope: "public", instructions: undefined });
    const { result } = await peer.call(1, "server/discover", { _meta: envelope() });
    expect(result.ttlMs).toBe(60_000);
    expect(result.cacheScope).toBe("public");
    expect("instructions" in result).toBe(false);
  });

  it("answers a discover without the envelope with -32602", async () => {
    const { peer } = setup();
    const reply = await peer.call(1, "server/discover", {});
    expect(reply.error.code).toBe(-32602);
  });

  it("still serves initialize after a discover on the same stream", async () => {
    const { peer } = setup();
    await peer.call(1, "server/discover", { _meta: envelope() });
    expect((await peer.call(2, "initialize", initializeParams())).result.protocolVersion).toBe("2025-06-18");
  });

  it("a legacy-only server answers discover with -32022 listing only legacy versions", async () => {
    const { peer } = setup({ supportedVersions: [...LEGACY_VERSIONS] });
    const reply = await peer.call(1, "server/discover", { _meta: envelope() });
    expect(reply.error).toEqual({
      code: -32022,
      message: expect.stringContaining("2026-07-28"),
      data: { supported: ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"], requested: "2026-07-28" },
    });
  });
});

describe("ContextServer modern era", () => {
  it("serves a session whose first message is an ordinary modern request", async () => {
    const { server, peer } = setup();
    const seen: Json[] = [];
    server.handle("tools/list", (params, ctx) => {
      seen.push({
        era: ctx.era,
        v: ctx.protocolVersion,
        info: ctx.clientInfo,
        caps: ctx.clientCapabilities,
        level: ctx.logLevel,
        params,
      });
      return { tools: [{ name: "echo", inputSchema: { type: "object" } }] };
    });
    const params = { _meta: envelope("2026-07-28", { [MetaKeys.logLevel]: "info" }) };
    expect(await peer.call(1, "tools/list", params)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        tools: [{ name: "echo", inputSchema: { type: "object" } }],
        resultType: "complete",
        _meta: { [MetaKeys.serverInfo]: SERVER_INFO },
        ttlMs: 0,
        cacheScope: "private",
      },
    });
    expect(seen).toEqual([{
      era: "modern",
      v: "2026-07-28",
      info: CLIENT_INFO,
      caps: { elicitation: {} },
      level: "info",
      params,
    }]);
  });

  it("keeps a resultType and _meta set by the handler, adding serverInfo", async () => {
    const { server, peer } = setup();
    server.handle(
      "tools/call",
      () => ({ resultType: "input_required", requestState: "s", _meta: { trace: 1 } }),
    );
    server.handle("empty", () => undefined);
    const reply = await peer.call(1, "tools/call", { name: "x", _meta: envelope() });
    expect(reply.result).toEqual({
      resultType: "input_required",
      requestState: "s",
      _meta: { trace: 1, [MetaKeys.serverInfo]: SERVER_INFO },
    });
    expect((await peer.call(2, "empty", { _meta: envelope() })).result).toEqual({
      resultType: "complete",
      _meta: { [MetaKeys.serverInfo]: SERVER_INFO },
    });
  });

  it("gives cacheable results (tools/list, resources/read, …) a default cache hint unless the handler set one", async () => {
    const { server, peer } = setup();
    server.handle("resources/read", () => ({ contents: [], ttlMs: 5_000, cacheScope: "public" }));
    server.handle("prompts/list", () => ({ prompts: [] }));
    server.handle("tools/call", () => ({ content: [] }));
    server.handle("resources/list", () => ({ resultType: "input_required", requestState: "x" }));
    expect((await peer.call(1, "resources/read", { uri: "a", _meta: envelope() })).result).toMatchObject({
      ttlMs: 5_000,
      cacheScope: "public",
    });
    expect((await peer.call(2, "prompts/list", { _meta: envelope() })).result).toMatchObject({
      ttlMs: 0,
      cacheScope: "private",
    });
    expect("ttlMs" in (await peer.call(3, "tools/call", { _meta: envelope() })).result).toBe(false);
    expect("ttlMs" in (await peer.call(4, "resources/list", { _meta: envelope() })).result).toBe(false);
    await peer.call(5, "initialize", initializeParams());
    expect((await peer.call(6, "prompts/list", {})).result).toEqual({ prompts: [] });
  });

  it("decorates the result of an async handler too", async () => {
    const { server, peer } = setup();
    server.handle("prompts/list", async () => ({ prompts: [] }));
    expect((await peer.call(1, "prompts/list", { _meta: envelope() })).result.resultType).toBe("complete");
  });

  it("answers a missing or malformed envelope with -32602, exactly shaped", async () => {
    const { server, peer } = setup();
    server.handle("tools/list", () => ({ tools: [] }));
    const cases: Json[] = [
      { _meta: { [MetaKeys.protocolVersion]: "2026-07-28" } },
      { _meta: { [MetaKeys.clientCapabilities]: {} } },
      { _meta: { [MetaKeys.protocolVersion]: 20260728, [MetaKeys.clientCapabilities]: {} } },
      { _meta: { ...envelope(), [MetaKeys.clientCapabilities]: [] } },
      { _meta: { ...envelope(), [MetaKeys.clientInfo]: { name: "x" } } },
      { _meta: { ...envelope(), [MetaKeys.logLevel]: "loud" } },
      { _meta: { ...envelope(), progressToken: { t: 1 } } },
      { _meta: "2026-07-28" },
    ];
    for (const [i, params] of cases.entries()) {
      const reply = await peer.call(i, "tools/list", params);
      expect(Object.keys(reply).sort()).toEqual(["error", "id", "jsonrpc"]);
      expect(reply.id).toBe(i);
      expect(Object.keys(reply.error).sort()).toEqual(["code", "message"]);
      expect(reply.error.code).toBe(-32602);
      expect(reply.error.message).toMatch(/^Invalid params\._meta/);
    }
  });

  it("answers an unsupported version with -32022, data.supported and data.requested", async () => {
    const { server, peer } = setup();
    server.handle("tools/list", () => ({ tools: [] }));
    for (const version of ["2025-11-25", "DRAFT-2026-v1", "2099-01-01"]) {
      const reply = await peer.call(version, "tools/list", { _meta: envelope(version) });
      expect(reply).toEqual({
        jsonrpc: "2.0",
        id: version,
        error: {
          code: -32022,
          message: expect.stringContaining(JSON.stringify(version)),
          data: { supported: ["2026-07-28"], requested: version },
        },
      });
    }
  });

  it("prefers -32022 over -32602 when the version is readable but unsupported", async () => {
    const { peer } = setup();
    const reply = await peer.call(1, "server/discover", {
      _meta: { [MetaKeys.protocolVersion]: "2099-01-01" },
    });
    expect(reply.error.code).toBe(-32022);
    expect(reply.error.data).toEqual({ supported: ["2026-07-28"], requested: "2099-01-01" });
  });

  it("answers -32601 for a modern method without a handler, after checking the envelope", async () => {
    const { peer } = setup();
    expect((await peer.call(1, "resources/list", { _meta: envelope() })).error.code).toBe(-32601);
    expect((await peer.call(2, "resources/list", { _meta: envelope("1999-01-01") })).error.code).toBe(-32022);
  });

  it("serves both eras on one stream after initialize, each request in its own era", async () => {
    const { server, peer } = setup();
    server.handle("tools/list", (_p, ctx) => ({ era: ctx.era, v: ctx.protocolVersion }));
    await peer.call(1, "initialize", initializeParams("2025-06-18"));
    expect((await peer.call(2, "tools/list", {})).result).toEqual({ era: "legacy", v: "2025-06-18" });
    expect((await peer.call(3, "tools/list", { _meta: envelope() })).result).toEqual({
      era: "modern",
      v: "2026-07-28",
      resultType: "complete",
      _meta: { [MetaKeys.serverInfo]: SERVER_INFO },
      ttlMs: 0,
      cacheScope: "private",
    });
  });

  it("answers a modern ping with a complete result", async () => {
    const { peer } = setup();
    expect((await peer.call(1, "ping", { _meta: envelope() })).result).toEqual({
      resultType: "complete",
      _meta: { [MetaKeys.serverInfo]: SERVER_INFO },
    });
  });
});

describe("ContextServer handlers", () => {
  it('turns a handler\'s JsonRpcError into that error reply, and another throw into -32603 "Internal error" reported in full', async () => {
    const reports: Error[] = [];
    const { server, peer } = setup({ onReport: (e) => void reports.push(e) });
    server.handle("tools/call", () => {
      throw new JsonRpcError(-32602, "Unknown tool: nope", { tool: "nope" });
    });
    server.handle("boom", async () => {
      throw new Error("Kaput");
    });
    expect(await peer.call(1, "tools/call", { _meta: envelope() })).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "Unknown tool: nope", data: { tool: "nope" } },
    });
    const reply = await peer.call(2, "boom", { _meta: envelope() });
    expect(reply).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32603, message: "Internal error" } });
    expect(reports.map((e) => e.message)).toEqual(["Kaput"]);
    expect(reports[0].stack).toMatch(/context_server\.test\.ts/);
  });

  it("sends an unexpected exception's message on the stream with exposeInternalErrors: true", async () => {
    const { server, peer } = setup({ exposeInternalErrors: true });
    server.handle("boom", () => {
      throw new Error("Kaput at /srv/app");
    });
    expect(await peer.call(1, "boom", { _meta: envelope() })).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Kaput at /srv/app" },
    });
  });

  it("sends progress tied to the request's progressToken before its reply, in both eras", async () => {
    const { server, peer } = setup();
    server.handle("tools/call", async (_p, ctx) => {
      await ctx.sendProgress(1, { total: 3, message: "first" });
      await ctx.sendProgress(2);
      return { content: [] };
    });
    const modern = await peer.call(1, "tools/call", {
      _meta: envelope("2026-07-28", { progressToken: "tok" }),
    });
    expect(modern).toEqual({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "tok", progress: 1, total: 3, message: "first" },
    });
    expect(await peer.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "tok", progress: 2 },
    });
    expect((await peer.next()).id).toBe(1);
    await peer.call(2, "initialize", initializeParams());
    expect((await peer.call(3, "tools/call", { _meta: { progressToken: 42 } })).params).toEqual({
      progressToken: 42,
      progress: 1,
      total: 3,
      message: "first",
    });
    await peer.next();
    expect((await peer.next()).id).toBe(3);
  });

  it("makes sendProgress a no-op without a progressToken", async () => {
    const { server, peer } = setup();
    server.handle("tools/call", async (_p, ctx) => {
      await ctx.sendProgress(1, { total: 2 });
      return { ok: true };
    });
    expect((await peer.call(1, "tools/call", { _meta: envelope() })).result.ok).toBe(true);
  });

  it("rejects sendProgress's old positional form and bad options with InvalidOptionError", async () => {
    const { server, peer } = setup();
    const outcomes: unknown[] = [];
    server.handle("tools/call", async (_p, ctx) => {
      const progress = ctx.sendProgress as (progress: number, ...rest: unknown[]) => Promise<void>;
      for (const rest of [[2, "half"], [{ total: "2" }], [{ message: 5 }], [null]]) {
        outcomes.push(await progress(1, ...rest).then(() => "sent", (error: Error) => error));
      }
      outcomes.push(await ctx.sendProgress(1, { total: 2, message: "half" }).then(() => "sent"));
      return { content: [] };
    });
    // No progressToken: the options are checked before the token is looked for.
    expect((await peer.call(1, "tools/call", { _meta: envelope() })).id).toBe(1);
    expect(outcomes.slice(0, 4).map((o) => o instanceof InvalidOptionError)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect((outcomes[0] as Error).message).toMatch(
      /second argument of sendProgress\(progress, \{ total, message \}\) must be an object/,
    );
    expect(outcomes[4]).toBe("sent");
  });

  it("sends notifications tied to a request with ctx.notify", async () => {
    const { server, peer } = setup();
    server.handle("tools/call", async (_p, ctx) => {
      await ctx.notify("notifications/message", { level: "info", data: "hello" });
      return {};
    });
    expect(await peer.call(1, "tools/call", { _meta: envelope() })).toEqual({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: "hello" },
    });
    expect((await peer.next()).id).toBe(1);
  });

  it("aborts the handler's signal on notifications/cancelled and sends no reply", async () => {
    const { server, peer } = setup();
    let reason: unknown;
    server.handle("tools/call", (_p, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          reason = ctx.signal.reason;
          reject(ctx.signal.reason);
        });
      }));
    await peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: envelope() } });
    await peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    expect(await peer.call(2, "ping")).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect(reason).toBeInstanceOf(Error);
  });

  it("delivers client notifications to onNotification handlers and ignores others", async () => {
    const { server, peer } = setup();
    const got: Json[] = [];
    server.onNotification("notifications/initialized", (p) => void got.push(["initialized", p ?? null]));
    server.onNotification("notifications/roots/list_changed", (p) => void got.push(["roots", p]));
    await peer.call(1, "initialize", initializeParams());
    await peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await peer.send({ jsonrpc: "2.0", method: "notifications/unknown", params: {} });
    await peer.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed", params: { x: 1 } });
    await peer.call(2, "ping");
    expect(got).toEqual([["initialized", null], ["roots", { x: 1 }]]);
  });

  it("refuses handlers for the built-in methods", () => {
    const server = new ContextServer({ name: "s", version: "1", capabilities: {} });
    for (const method of ["initialize", "server/discover", "ping"]) {
      expect(() => server.handle(method, () => ({}))).toThrow(InvalidOptionError);
    }
  });
});

describe("ContextServer options", () => {
  it("rejects bad options with InvalidOptionError naming the option", () => {
    const base = { name: "s", version: "1", capabilities: {} };
    expect(() => new ContextServer({ ...base, name: "" })).toThrow(/name/);
    expect(() => new ContextServer({ ...base, capabilities: null as never })).toThrow(/capabilities/);
    expect(() => new ContextServer({ ...base, supportedVersions: [] })).toThrow(/supportedVersions/);
    expect(() => new ContextServer({ ...base, supportedVersions: ["DRAFT-2026-v1"] })).toThrow(
      /DRAFT-2026-v1/,
    );
    expect(() => new ContextServer({ ...base, discoverTtlMs: -1 })).toThrow(/discoverTtlMs/);
    expect(() => new ContextServer({ ...base, cacheScope: "shared" as never })).toThrow(/cacheScope/);
    expect(() => new ContextServer({ ...base, connection: { maxConcurrentRequests: 0 } })).toThrow(
      /maxConcurrentRequests/,
    );
    expect(() => new ContextServer({ ...base, unenvelopedRequests: "maybe" as never })).toThrow(
      /unenvelopedRequests/,
    );
  });

  it("exposes the versions it speaks, newest first, by era", () => {
    const server = new ContextServer({ name: "s", version: "1", capabilities: {} });
    expect(server.versions.modern).toEqual(["2026-07-28"]);
    expect(server.versions.legacy).toEqual(["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
  });
});

describe("ContextServer lifecycle", () => {
  it("resolves serve() on input EOF after an admitted handler finishes and its reply drains", async () => {
    const { server, served, peer, time } = setup();
    server.handle("slow", async () => {
      await delay(time, 1_000);
      return { done: true };
    });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "slow", params: { _meta: envelope() } });
    await peer.channel.closeOutput();
    let settled = false;
    void served.then(() => (settled = true));
    await time.advance(999);
    expect(settled).toBe(false);
    await time.advance(1);
    expect((await peer.next()).result.done).toBe(true);
    expect(await peer.next()).toBeUndefined();
    expect((await served).reason).toBe("eof");
    expect(server.connectionCount).toBe(0);
  });

  it("cancels a handler still running endOfStreamTimeout after EOF", async () => {
    const { server, served, peer, time } = setup({
      connection: { endOfStreamTimeout: 100, shutdownTimeout: 100 },
    });
    let aborted = false;
    server.handle(
      "forever",
      (_p, ctx) =>
        new Promise((_r, reject) =>
          ctx.signal.addEventListener("abort", () => ((aborted = true), reject(ctx.signal.reason)))
        ),
    );
    await peer.send({ jsonrpc: "2.0", id: 1, method: "forever", params: { _meta: envelope() } });
    await peer.channel.closeOutput();
    await time.advance(99);
    expect(aborted).toBe(false);
    await time.advance(1);
    expect(aborted).toBe(true);
    await time.runAll();
    expect((await served).reason).toBe("eof");
  });

  it("takes a probe followed by the peer vanishing calmly", async () => {
    const reports: Error[] = [];
    const { served, peer, clientSide } = setup({ onReport: (e) => void reports.push(e) });
    expect((await peer.call(1, "server/discover", { _meta: envelope() })).result.resultType).toBe("complete");
    // The process is killed: both pipes end abruptly.
    await Promise.all([
      peer.channel.abort(new Error("SIGTERM")),
      clientSide.readable.cancel().catch(() => {}),
    ]);
    const outcome = await served;
    expect(["eof", "fault"]).toContain(outcome.reason);
  });

  it("passes connection options through: maxConcurrentRequests holds further requests back", async () => {
    const { server, peer, time } = setup({ connection: { maxConcurrentRequests: 1 } });
    const started: number[] = [];
    server.handle("slow", async (p: Json) => {
      started.push(p.n);
      await delay(time, 100);
      return { n: p.n };
    });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "slow", params: { n: 1, _meta: envelope() } });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "slow", params: { n: 2, _meta: envelope() } });
    for (let i = 0; i < 10; i++) await flushMicrotasks();
    expect(started).toEqual([1]);
    await time.advance(100);
    expect((await peer.next()).id).toBe(1);
    for (let i = 0; i < 10; i++) await flushMicrotasks();
    expect(started).toEqual([1, 2]);
    await time.advance(100);
    expect((await peer.next()).id).toBe(2);
  });

  it("close() closes every live connection and refuses new ones", async () => {
    const time = new FakeTimeProvider();
    const server = new ContextServer({ name: "s", version: "1", capabilities: {}, timeProvider: time });
    const pairs = [createDuplexPair(), createDuplexPair()];
    const serving = pairs.map(([s]) => server.serve(s));
    const peers = pairs.map(([, c]) => new Peer(c, time));
    for (const p of peers) expect((await p.call(1, "ping")).result).toEqual({});
    expect(server.connectionCount).toBe(2);
    let closed = false;
    void server.closed.then(() => (closed = true));
    await server.close();
    expect(closed).toBe(true);
    for (const s of serving) expect((await s).reason).toBe("closed");
    for (const p of peers) expect(await p.next()).toBeUndefined();
    await expect(server.serve(createDuplexPair()[0])).rejects.toBeInstanceOf(ClosedError);
  });
});
