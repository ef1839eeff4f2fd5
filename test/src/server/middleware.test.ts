/** ContextServer.use(): the pipeline, and the built-ins (rate limit, response cache, request log). */
import { describe, expect, it } from "vitest";
import { ContextClient } from "../../../src/client/context_client.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import {
  logRequests,
  MemoryRateLimitStore,
  RATE_LIMITED_CODE,
  rateLimit,
  type RequestLogEntry,
  responseCache,
} from "../../../src/middleware.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import type { MiddlewareContext } from "../../../src/server/middleware.ts";
import { JsonRpcError } from "../../../src/wire/errors.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function makeServer() {
  const server = new ContextServer({ name: "mw", version: "1.0.0", capabilities: { tools: {} } });
  let listed = 0;
  server.handle("tools/list", () => ({ tools: [], listed: ++listed }));
  server.handle(
    "tools/call",
    (params: { name: string }) => ({ content: [{ type: "text", text: params.name }] }),
  );
  return server;
}

const signal = new AbortController().signal;
const notify = () => Promise.resolve();

/** A JSON-RPC reply as these tests read it. */
interface Reply {
  result?: { listed?: number; content?: unknown; [key: string]: unknown };
  error?: { code: number; message: string; data?: unknown };
}

function call(server: ContextServer, id: number, method: string, params: unknown, principal?: string) {
  return server.dispatch({ jsonrpc: "2.0", id, method, params }, { signal, notify, principal }) as Promise<
    Reply
  >;
}

async function streamClient(server: ContextServer, era: "legacy" | "modern") {
  const [serverSide, clientSide] = createDuplexPair();
  void server.serve(serverSide);
  return await ContextClient.connect(clientSide, { era, eraCache: null });
}

describe("server.use()", () => {
  it("runs middleware in order around the handler, each seeing method, params, era and principal", async () => {
    const server = makeServer();
    const seen: Partial<MiddlewareContext>[] = [];
    const order: string[] = [];
    server.use(async (ctx, next) => {
      order.push("a>");
      seen.push({ method: ctx.method, era: ctx.era, principal: ctx.principal, clientKey: ctx.clientKey });
      const result = await next();
      order.push("<a");
      return result;
    });
    server.use(async (ctx, next) => {
      order.push("b>");
      ctx.params = { ...(ctx.params as object), name: "rewritten" }; // transform the request
      const result = (await next()) as Record<string, unknown>;
      order.push("<b");
      return { ...result, touched: true }; // transform the result
    });
    const reply = await call(server, 1, "tools/call", { name: "x", _meta: MODERN_META }, "alice");
    expect(reply.result).toMatchObject({ content: [{ text: "rewritten" }], touched: true });
    expect(order).toEqual(["a>", "b>", "<b", "<a"]);
    expect(seen).toEqual([{
      method: "tools/call",
      era: "modern",
      principal: "alice",
      clientKey: "principal:alice",
    }]);
  });

  it("lets a middleware answer or reject without the handler, on a stream in both eras", async () => {
    for (const era of ["legacy", "modern"] as const) {
      const server = makeServer();
      server.use((ctx, next) => {
        if (ctx.method !== "tools/call") return next();
        if ((ctx.params as { name: string }).name === "cached") {
          return { content: [], fromMiddleware: ctx.era };
        }
        throw new JsonRpcError(-32001, `Refused in the ${ctx.era} era`);
      });
      const client = await streamClient(server, era);
      expect(await client.request("tools/call", { name: "cached" })).toMatchObject({ fromMiddleware: era });
      await expect(client.request("tools/call", { name: "other" })).rejects.toMatchObject({
        code: -32001,
        message: `Refused in the ${era} era`,
      });
      await client.close();
    }
  });

  it("answers -32603 to a middleware's unexpected exception and reports it; next() twice is refused", async () => {
    const reports: Error[] = [];
    const server = new ContextServer({ name: "mw", version: "1", onReport: (e) => void reports.push(e) });
    server.handle("a", () => "a");
    server.use(async (ctx, next) => {
      if (ctx.method === "a") {
        await next();
        return await next();
      }
      throw new Error("boom");
    });
    expect((await call(server, 1, "b", { _meta: MODERN_META })).error).toEqual({
      code: -32603,
      message: "Internal error",
    });
    expect((await call(server, 2, "a", { _meta: MODERN_META })).error?.code).toBe(-32603);
    expect(reports.map((e) => e.message)).toEqual(["boom", "A middleware called next() twice"]);
    expect(() => server.use("nope" as never)).toThrow(/use\(\) takes a function/);
  });
});

describe("rateLimit()", () => {
  it("lets `limit` through per key, refuses the next with -32029 and retryAfterMs, and refills over time", async () => {
    const time = new FakeTimeProvider();
    const server = makeServer();
    server.use(
      rateLimit({ limit: 3, intervalMs: 3_000, store: new MemoryRateLimitStore({ timeProvider: time }) }),
    );
    const results = [];
    for (let i = 0; i < 4; i++) {
      results.push(await call(server, i, "tools/call", { name: "t", _meta: MODERN_META }, "bob"));
    }
    expect(results.slice(0, 3).every((r) => "result" in r)).toBe(true); // not hit early
    expect(results[3]!.error).toMatchObject({ code: RATE_LIMITED_CODE, data: { retryAfterMs: 1_000 } });
    // another principal has its own bucket; ping is exempt
    expect("result" in await call(server, 9, "tools/call", { name: "t", _meta: MODERN_META }, "carol")).toBe(
      true,
    );
    expect("result" in await call(server, 10, "ping", {}, "bob")).toBe(true);
    await time.advance(999);
    expect((await call(server, 11, "tools/call", { name: "t", _meta: MODERN_META }, "bob")).error?.code).toBe(
      RATE_LIMITED_CODE,
    );
    await time.advance(1);
    expect("result" in await call(server, 12, "tools/call", { name: "t", _meta: MODERN_META }, "bob")).toBe(
      true,
    );
  });

  it("refill: interval gives back limit tokens at once per interval, never more than limit in one", async () => {
    const time = new FakeTimeProvider();
    const store = new MemoryRateLimitStore({ timeProvider: time });
    const bucket = { capacity: 2, refillTokens: 2, refillMs: 1_000, refill: "interval" as const };
    expect(store.take("k", bucket).allowed).toBe(true);
    await time.advance(600);
    expect(store.take("k", bucket).allowed).toBe(true);
    expect(store.take("k", bucket)).toEqual({ allowed: false, retryAfterMs: 400 });
    await time.advance(399);
    expect(store.take("k", bucket).allowed).toBe(false);
    await time.advance(1);
    expect(store.take("k", bucket).allowed).toBe(true);
    expect(store.take("k", bucket).allowed).toBe(true);
    expect(store.take("k", bucket).allowed).toBe(false);
    expect(() => rateLimit({ limit: 1, refill: "bursty" as never })).toThrow(/refill/);
  });

  it("on a stream: a bucket per connection, a refusal is the JSON-RPC error -32029", async () => {
    const server = makeServer();
    const store = new MemoryRateLimitStore({ timeProvider: new FakeTimeProvider() });
    server.use(rateLimit({ limit: 1, intervalMs: 60_000, store }));
    const a = await streamClient(server, "legacy");
    const b = await streamClient(server, "modern");
    await a.request("tools/call", { name: "t" });
    await expect(a.request("tools/call", { name: "t" })).rejects.toMatchObject({
      code: RATE_LIMITED_CODE,
      data: { retryAfterMs: 60_000 },
    });
    expect(await b.request("tools/call", { name: "t" })).toMatchObject({ content: [{ text: "t" }] });
    await a.close();
    await b.close();
  });

  it("answers a refused HTTP request with 429 and Retry-After", async () => {
    const server = makeServer();
    server.use(rateLimit({ limit: 1, intervalMs: 60_000 }));
    const handler = createHttpHandler(server, { keepAliveInterval: 0 });
    const post = (id: number) =>
      handler(
        new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "t",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "t", _meta: MODERN_META },
          }),
        }),
      );
    expect((await post(1)).status).toBe(200);
    const refused = await post(2);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toMatchObject({ id: 2, error: { code: RATE_LIMITED_CODE } });
  });

  it("keeps at most maxKeys buckets, dropping the least recently used", () => {
    const store = new MemoryRateLimitStore({ maxKeys: 2, timeProvider: new FakeTimeProvider() });
    const bucket = { capacity: 1, refillTokens: 1, refillMs: 60_000, refill: "smooth" as const };
    expect(store.take("a", bucket).allowed).toBe(true);
    expect(store.take("b", bucket).allowed).toBe(true);
    expect(store.take("a", bucket).allowed).toBe(false); // a is used again: b is now the oldest
    expect(store.size).toBe(2); // not hit early
    expect(store.take("c", bucket).allowed).toBe(true);
    expect(store.size).toBe(2);
    expect(store.take("a", bucket).allowed).toBe(false); // a survived
    expect(store.take("b", bucket).allowed).toBe(true); // b was dropped: it starts again full
    expect(() => new MemoryRateLimitStore({ maxKeys: 0 })).toThrow(/maxKeys/);
    expect(() => rateLimit({} as never)).toThrow(/limit/);
    expect(() => rateLimit({ limit: 0 })).toThrow(/limit/);
  });
});

describe("responseCache()", () => {
  it("answers a list request from the cache for the result's ttlMs, then asks the handler again", async () => {
    const time = new FakeTimeProvider();
    const server = new ContextServer({ name: "c", version: "1", timeProvider: time });
    let listed = 0;
    server.handle("tools/list", () => ({ tools: [], listed: ++listed, ttlMs: 1_000 }));
    server.use(responseCache({ timeProvider: time }));
    const list = (id: number) => call(server, id, "tools/list", { _meta: MODERN_META });
    expect((await list(1)).result?.listed).toBe(1);
    expect((await list(2)).result?.listed).toBe(1);
    await time.advance(999);
    expect((await list(3)).result?.listed).toBe(1);
    await time.advance(1);
    expect((await list(4)).result?.listed).toBe(2);
    // a different cursor is a different entry
    expect((await call(server, 5, "tools/list", { cursor: "x", _meta: MODERN_META })).result?.listed).toBe(3);
  });

  it("caches legacy results only with a ttlMs option, and keeps at most maxEntries", async () => {
    const time = new FakeTimeProvider();
    const server = makeServer();
    server.use(responseCache({ timeProvider: time, ttlMs: 500, maxEntries: 2 }));
    const client = await streamClient(server, "legacy");
    const list = async (cursor?: string) =>
      ((await client.request("tools/list", cursor === undefined ? {} : { cursor })) as { listed: number })
        .listed;
    expect(await list()).toBe(1);
    expect(await list()).toBe(1);
    expect(await list("b")).toBe(2);
    expect(await list()).toBe(1); // two entries held: not hit early
    expect(await list("c")).toBe(3); // a third: the oldest ("") goes
    expect(await list()).toBe(4);
    await client.close();
    const uncached = makeServer();
    uncached.use(responseCache());
    const c2 = await streamClient(uncached, "legacy");
    expect(((await c2.request("tools/list", {})) as { listed: number }).listed).toBe(1);
    expect(((await c2.request("tools/list", {})) as { listed: number }).listed).toBe(2);
    await c2.close();
  });
});

describe("logRequests()", () => {
  it("reports each request's method, era, outcome, error code and duration", async () => {
    const time = new FakeTimeProvider();
    const server = new ContextServer({ name: "l", version: "1" });
    server.handle("slow", async () => {
      await new Promise<void>((resolve) => time.setTimer(resolve, 25));
      return {};
    });
    const entries: RequestLogEntry[] = [];
    server.use(logRequests((e) => void entries.push(e), { timeProvider: time }));
    server.use(logRequests(() => {
      throw new Error("a broken sink");
    }));
    const slow = call(server, 1, "slow", { _meta: MODERN_META });
    await time.advance(25);
    expect("result" in await slow).toBe(true);
    await call(server, 2, "missing", {});
    expect(entries).toEqual([
      { method: "slow", era: "modern", principal: undefined, durationMs: 25, outcome: "ok" },
      {
        method: "missing",
        era: "legacy",
        principal: undefined,
        durationMs: 0,
        outcome: "error",
        errorCode: -32602,
      },
    ]);
  });
});
