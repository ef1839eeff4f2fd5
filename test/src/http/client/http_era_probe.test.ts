// The era probe over HTTP: every classification row, with a scripted fetch.
import { describe, expect, it } from "vitest";
import { ContextClient, type ContextClientOptions } from "../../../../src/client/context_client.ts";
import { EraCache } from "../../../../src/client/era_cache.ts";
import { httpTransport } from "../../../../src/http/client/http_client_transport.ts";
import { FakeTimeProvider } from "../../../../testing/fake_time_provider.ts";
import {
  DISCOVER,
  FakeFetch,
  frame,
  INITIALIZE,
  json,
  type Responder,
  result,
  rpcError,
  sseSplit,
} from "../../../helpers/fake_fetch.ts";

const URL_ = "http://127.0.0.1:9/mcp";

/** Answers the probe with `probe`, then behaves like a legacy server (initialize, initialized, GET 405). */
function server(probe: Responder): FakeFetch {
  return new FakeFetch((req, i) => {
    if (req.body?.method === "server/discover") return probe(req, i);
    if (req.body?.method === "initialize") {
      return result(req.body.id, { ...INITIALIZE, protocolVersion: req.body.params.protocolVersion });
    }
    if (req.method === "GET") return new Response(null, { status: 405 });
    if (req.body?.id === undefined) return new Response(null, { status: 202 });
    return result(req.body.id, {});
  });
}

async function connect(fake: FakeFetch, options: ContextClientOptions & { eraCache?: EraCache } = {}) {
  const eraCache = options.eraCache ?? new EraCache();
  const client = await ContextClient.connect(httpTransport(URL_, { fetch: fake.fetch }), {
    eraCache,
    ...options,
  });
  return { client, eraCache };
}

describe("era probe over HTTP", () => {
  it("sends server/discover first, with the modern headers and the _meta envelope", async () => {
    const fake = server((req) => result(req.body.id, DISCOVER));
    const { client } = await connect(fake);
    const probe = fake.calls[0];
    expect(probe.method).toBe("POST");
    expect(probe.body.method).toBe("server/discover");
    expect(probe.headers.get("mcp-protocol-version")).toBe("2026-07-28");
    expect(probe.headers.get("mcp-method")).toBe("server/discover");
    expect(probe.headers.get("accept")).toBe("application/json, text/event-stream");
    expect(probe.body.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    expect(client.era).toBe("modern");
    expect(client.negotiation).toMatchObject({ outcome: "discovered_modern", probes: 1, learned: "modern" });
    expect(client.serverInfo).toEqual(DISCOVER.serverInfo);
    expect(fake.of("initialize")).toHaveLength(0);
  });

  it("a DiscoverResult inside an SSE response is modern too", async () => {
    const fake = server((req) => sseSplit(frame({ jsonrpc: "2.0", id: req.body.id, result: DISCOVER }), 5));
    const { client } = await connect(fake);
    expect(client.era).toBe("modern");
  });

  it("400 -32022 naming a shared modern version: probes again with it (reprobed_modern)", async () => {
    const fake = server((req, i) =>
      i === 0
        ? rpcError(req.body.id, -32022, "Unsupported", 400, { supported: ["2026-07-28"], requested: "x" })
        : result(req.body.id, DISCOVER)
    );
    const { client } = await connect(fake);
    expect(client.negotiation).toMatchObject({ outcome: "reprobed_modern", probes: 2 });
    expect(fake.of("server/discover")).toHaveLength(2);
  });

  it("400 -32022 listing only legacy versions: legacy initialize with the newest of them, cache learns legacy", async () => {
    const fake = server((req) =>
      rpcError(req.body.id, -32022, "Unsupported", 400, { supported: ["2025-06-18", "2025-03-26"] })
    );
    const { client, eraCache } = await connect(fake);
    expect(client.era).toBe("legacy");
    expect(client.negotiation).toMatchObject({ outcome: "legacy_only_versions", learned: "legacy" });
    expect(fake.of("initialize")[0].body.params.protocolVersion).toBe("2025-06-18");
    expect(eraCache.get(`http://127.0.0.1:9/mcp`)).toMatchObject({
      era: "legacy",
      protocolVersion: "2025-06-18",
    });
  });

  it.each([
    [-32021, "Missing required client capability"],
    [-32020, "Header mismatch"],
  ])("400 %i is a modern answer: modern, no initialize", async (code, message) => {
    const fake = server((req) => rpcError(req.body.id, code, message, 400));
    const { client } = await connect(fake);
    expect(client.era).toBe("modern");
    expect(client.negotiation.detail).toContain(String(code));
    expect(fake.of("initialize")).toHaveLength(0);
  });

  it("400 -32000 whose text says 'unsupported protocol version' is legacy: classified by code, never by text", async () => {
    const fake = server((req) =>
      rpcError(req.body.id, -32000, "Bad Request: Unsupported protocol version: 2026-07-28", 400)
    );
    const { client, eraCache } = await connect(fake);
    expect(client.era).toBe("legacy");
    expect(client.negotiation).toMatchObject({ outcome: "fallback_rpc_error" });
    expect(eraCache.size).toBe(0);
  });

  it("404 -32601 is a definitive rejection: legacy, and the cache learns it", async () => {
    const fake = server((req) => rpcError(req.body.id, -32601, "Method not found", 404));
    const { client, eraCache } = await connect(fake);
    expect(client.negotiation).toMatchObject({ outcome: "definitive_rejection", learned: "legacy" });
    expect(eraCache.get("http://127.0.0.1:9/mcp")?.era).toBe("legacy");
  });

  it("a 200 carrying -32601 (a stateless legacy server) is a definitive rejection too", async () => {
    const fake = server((req) => rpcError(req.body.id, -32601, "Method not found", 200));
    const { client } = await connect(fake);
    expect(client.negotiation.outcome).toBe("definitive_rejection");
  });

  it.each([
    [405, ""],
    [400, ""],
    [404, "Not Found"],
    [401, "<html>login</html>"],
  ])(
    "HTTP %i without a JSON-RPC error falls back to legacy initialize without teaching the cache",
    async (status, body) => {
      const fake = server(() => new Response(body, { status }));
      const { client, eraCache } = await connect(fake);
      expect(client.era).toBe("legacy");
      expect(client.negotiation.outcome).toBe("fallback_rpc_error");
      expect(client.negotiation.detail).toContain(`HTTP ${status}`);
      expect(eraCache.size).toBe(0);
    },
  );

  it("HTTP 500 is an error, not a legacy signal", async () => {
    const fake = server(() => new Response("boom", { status: 500 }));
    const error = await connect(fake).catch((e) => e);
    expect(error.code).toBe("negotiation_failed");
    expect(error.message).toMatch(/HTTP 500/);
    expect(fake.of("initialize")).toHaveLength(0);
  });

  it("a network failure is an error, not a legacy signal", async () => {
    const fake = server(() => Promise.reject(new TypeError("fetch failed")));
    const error = await connect(fake).catch((e) => e);
    expect(error.code).toBe("negotiation_failed");
    expect(error.message).toMatch(/fetch failed/);
    expect(fake.of("initialize")).toHaveLength(0);
  });

  it("silence is a timeout error at connectTimeout, never a legacy fallback", async () => {
    const time = new FakeTimeProvider();
    const fake = server((req) =>
      new Promise<Response>((_, reject) =>
        req.signal!.addEventListener("abort", () => reject(req.signal!.reason))
      )
    );
    const connecting = connect(fake, { timeProvider: time, connectTimeout: 10_000 }).catch((e) => e);
    await time.advance(9_999);
    expect(fake.calls).toHaveLength(1);
    await time.advance(1);
    const error = await connecting;
    expect(error.code).toBe("timeout");
    expect(error.timeoutMs).toBe(10_000);
    expect(fake.of("initialize")).toHaveLength(0);
  });

  it('era "modern" refuses a legacy answer with negotiation_failed', async () => {
    const fake = server((req) => rpcError(req.body.id, -32601, "Method not found", 404));
    const error = await connect(fake, { era: "modern" }).catch((e) => e);
    expect(error.code).toBe("negotiation_failed");
    expect(error.message).toMatch(/does not speak the modern era/);
  });

  it('era "legacy" skips the probe', async () => {
    const fake = server(() => json({}, 500));
    const { client } = await connect(fake, { era: "legacy" });
    expect(client.negotiation).toMatchObject({ outcome: "requested_legacy", probes: 0 });
    expect(fake.calls[0].body.method).toBe("initialize");
  });

  it("caches the era per endpoint: the next connect to the same URL skips the probe (legacy) or confirms it (modern)", async () => {
    const legacy = server((req) => rpcError(req.body.id, -32601, "Method not found", 404));
    const eraCache = new EraCache();
    await connect(legacy, { eraCache });
    const again = server(() => json({}, 500));
    const { client } = await connect(again, { eraCache });
    expect(client.negotiation).toMatchObject({ outcome: "cached_legacy", probes: 0, fromCache: true });

    const modern = server((req) => result(req.body.id, DISCOVER));
    const cache2 = new EraCache();
    await connect(modern, { eraCache: cache2 });
    const { client: second } = await connect(modern, { eraCache: cache2 });
    expect(second.negotiation).toMatchObject({ outcome: "cached_modern", fromCache: true });
  });

  it("a cached legacy era that fails is forgotten and the server probed again", async () => {
    const eraCache = new EraCache();
    eraCache.set("http://127.0.0.1:9/mcp", { era: "legacy", learnedAt: 0 });
    const fake = new FakeFetch((req) => {
      if (req.body?.method === "initialize") return rpcError(req.body.id, -32600, "No initialize here", 400);
      return result(req.body.id, DISCOVER);
    });
    const reports: Error[] = [];
    const { client } = await connect(fake, { eraCache, onReport: (e) => reports.push(e) });
    expect(client.era).toBe("modern");
    expect(client.negotiation.forgotten).toBe(true);
    expect(reports[0].message).toMatch(/Cached legacy era failed/);
  });
});
