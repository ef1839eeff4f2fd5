import { describe, expect, it } from "vitest";
import { ContextClient, type ContextClientOptions } from "../../../src/client/context_client.ts";
import { EraCache } from "../../../src/client/era_cache.ts";
import { TransportError } from "../../../src/wire/errors.ts";
import { MetaKeys } from "../../../src/wire/protocol_versions.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/fake_time_provider.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import {
  discoverResult,
  fakeTransport,
  legacyScript,
  type Message,
  modernScript,
  type Script,
  scriptedPeer,
} from "../../fixtures/hostile/scripted_peer.ts";

const KEY = "node server.js @ /srv";

function setup(extra: ContextClientOptions = {}) {
  const time = new FakeTimeProvider();
  const eraCache = new EraCache({ timeProvider: time });
  const options: ContextClientOptions = { timeProvider: time, eraCache, ...extra };
  return { time, eraCache, options };
}

function methods(received: Message[]): string[] {
  return received.map((m) => m.method ?? `reply:${m.id}`);
}

/** Tracks a promise's state without awaiting it. */
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe("ContextClient era negotiation: the probe-outcome table", () => {
  it("DiscoverResult with a shared modern version: modern, the cache learns modern", async () => {
    const { eraCache, options } = setup();
    const transport = fakeTransport(modernScript, { cacheKey: KEY });
    const client = await ContextClient.connect(transport, options);
    expect(client.era).toBe("modern");
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(client.serverInfo).toEqual({ name: "fake-modern", version: "2.0.0" });
    expect(client.serverCapabilities).toEqual({ tools: {} });
    expect(client.instructions).toBe("be nice");
    expect(client.negotiation).toMatchObject({
      outcome: "discovered_modern",
      probes: 1,
      respawned: false,
      fromCache: false,
      learned: "modern",
    });
    expect(eraCache.get(KEY)).toMatchObject({ era: "modern", protocolVersion: "2026-07-28" });
    const probe = transport.peers[0].received[0];
    expect(probe.method).toBe("server/discover");
    expect(typeof probe.id).toBe("string");
    expect(probe.params._meta[MetaKeys.protocolVersion]).toBe("2026-07-28");
    expect(probe.params._meta[MetaKeys.clientCapabilities]).toEqual({});
    expect(probe.params._meta[MetaKeys.clientInfo]).toEqual({ name: "onemodelcontext", version: "0.1.0" });
    expect(methods(transport.peers[0].received)).not.toContain("initialize");
    await client.close();
  });

  it("accepts the older DiscoverResult shape (top-level serverInfo, no ttlMs/cacheScope, no resultType)", async () => {
    const { options } = setup();
    const old = {
      supportedVersions: ["2026-07-28"],
      capabilities: { prompts: {} },
      serverInfo: { name: "old-draft", version: "0.9" },
    };
    const client = await ContextClient.connect(
      fakeTransport((m, p) => m.id !== undefined && p.reply(m.id, old)),
      options,
    );
    expect(client.era).toBe("modern");
    expect(client.serverInfo).toEqual({ name: "old-draft", version: "0.9" });
    expect(client.serverCapabilities).toEqual({ prompts: {} });
    await client.close();
  });

  it("-32022 naming a shared modern version: re-probes once with it, then modern, cache learns modern", async () => {
    const { eraCache, options } = setup();
    let probes = 0;
    const script: Script = (m, p) => {
      if (m.method !== "server/discover") return modernScript(m, p);
      probes++;
      if (probes === 1) {
        return p.error(m.id, -32022, "Unsupported protocol version", {
          supported: ["2026-07-28"],
          requested: "x",
        });
      }
      p.reply(m.id, discoverResult());
    };
    const transport = fakeTransport(script, { cacheKey: KEY });
    const client = await ContextClient.connect(transport, options);
    expect(client.era).toBe("modern");
    expect(client.negotiation).toMatchObject({ outcome: "reprobed_modern", probes: 2, learned: "modern" });
    const [first, second] = transport.peers[0].received;
    expect(second.method).toBe("server/discover");
    expect(second.id).not.toBe(first.id);
    expect(second.params._meta[MetaKeys.protocolVersion]).toBe("2026-07-28");
    expect(eraCache.get(KEY)?.era).toBe("modern");
    await client.close();
  });

  it("-32022 re-probe happens once only: a second -32022 falls back to legacy and caches nothing", async () => {
    const { eraCache, options } = setup();
    const script = legacyScript({
      onPreInit: (m, p) => p.error(m.id, -32022, "Unsupported", { supported: ["2026-07-28"] }),
    });
    const transport = fakeTransport(script, { cacheKey: KEY });
    const client = await ContextClient.connect(transport, options);
    expect(client.era).toBe("legacy");
    expect(client.negotiation).toMatchObject({ outcome: "fallback_rpc_error", probes: 2 });
    expect(client.negotiation.learned).toBeUndefined();
    expect(methods(transport.peers[0].received)).toEqual([
      "server/discover",
      "server/discover",
      "initialize",
      "notifications/initialized",
    ]);
    expect(eraCache.get(KEY)).toBeUndefined();
    await client.close();
  });

  it("DiscoverResult listing only legacy versions: legacy via initialize at the newest listed, cache learns legacy", async () => {
    const { eraCache, options } = setup();
    const script = legacyScript({
      onPreInit: (m, p) => p.reply(m.id, discoverResult(["2025-03-26", "2025-06-18"])),
    });
    const transport = fakeTransport(script, { cacheKey: KEY });
    const client = await ContextClient.connect(transport, options);
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-06-18");
    expect(client.negotiation).toMatchObject({ outcome: "legacy_only_versions", learned: "legacy" });
    expect(eraCache.get(KEY)).toMatchObject({ era: "legacy", protocolVersion: "2025-06-18" });
    expect(transport.peers[0].received[1].params.protocolVersion).toBe("2025-06-18");
    await client.close();
  });

  it("-32022 listing only legacy versions: legacy, cache learns legacy", async () => {
    const { eraCache, options } = setup();
    const script = legacyScript({
      onPreInit: (m, p) =>
        p.error(m.id, -32022, "Unsupported", { supported: ["2025-11-25"], requested: "2026-07-28" }),
    });
    const client = await ContextClient.connect(fakeTransport(script, { cacheKey: KEY }), options);
    expect(client.era).toBe("legacy");
    expect(client.negotiation).toMatchObject({
      outcome: "legacy_only_versions",
      probes: 1,
      learned: "legacy",
    });
    expect(eraCache.get(KEY)?.era).toBe("legacy");
    await client.close();
  });

  for (const code of [-32601, -32602]) {
    it(`definitive rejection ${code}: legacy with initialize + notifications/initialized, cache learns legacy`, async () => {
      const { eraCache, time, options } = setup();
      const transport = fakeTransport(legacyScript({ preInitCode: code }), { cacheKey: KEY });
      const client = await ContextClient.connect(transport, options);
      expect(client.era).toBe("legacy");
      expect(client.protocolVersion).toBe("2025-11-25");
      expect(client.serverInfo).toEqual({ name: "fake-legacy", version: "1.0.0" });
      expect(client.instructions).toBe("legacy instructions");
      expect(client.negotiation).toMatchObject({
        outcome: "definitive_rejection",
        probes: 1,
        learned: "legacy",
        fromCache: false,
      });
      expect(eraCache.get(KEY)).toMatchObject({ era: "legacy", learnedAt: time.now() });
      const received = transport.peers[0].received;
      expect(methods(received)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
      expect(received[1].params).toEqual({
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "onemodelcontext", version: "0.1.0" },
      });
      await client.close();
    });
  }

  it("any other JSON-RPC error (-32603): legacy fallback, nothing cached", async () => {
    const { eraCache, options } = setup();
    const client = await ContextClient.connect(
      fakeTransport(legacyScript({ preInitCode: -32603 }), { cacheKey: KEY }),
      options,
    );
    expect(client.era).toBe("legacy");
    expect(client.negotiation.outcome).toBe("fallback_rpc_error");
    expect(client.negotiation.detail).toContain("-32603");
    expect(eraCache.get(KEY)).toBeUndefined();
    await client.close();
  });

  it("a malformed probe response: legacy fallback, nothing cached", async () => {
    const { eraCache, options } = setup();
    const script = legacyScript({
      onPreInit: (m, p) => p.reply(m.id, { supportedVersions: "2026-07-28", capabilities: {} }),
    });
    const client = await ContextClient.connect(fakeTransport(script, { cacheKey: KEY }), options);
    expect(client.era).toBe("legacy");
    expect(client.negotiation.outcome).toBe("fallback_malformed");
    expect(client.negotiation.detail).toContain("supportedVersions");
    expect(eraCache.get(KEY)).toBeUndefined();
    await client.close();
  });

  it("a DiscoverResult sharing no version and not legacy-only: legacy fallback, nothing cached", async () => {
    const { eraCache, options } = setup();
    const script = legacyScript({ onPreInit: (m, p) => p.reply(m.id, discoverResult(["DRAFT-2026-v1"])) });
    const client = await ContextClient.connect(fakeTransport(script, { cacheKey: KEY }), options);
    expect(client.negotiation.outcome).toBe("fallback_no_shared_version");
    expect(eraCache.get(KEY)).toBeUndefined();
    await client.close();
  });

  it("silence until the probe deadline: legacy fallback at exactly probeTimeout, nothing cached", async () => {
    const { eraCache, time, options } = setup();
    const transport = fakeTransport(legacyScript({ onPreInit: () => {} }), { cacheKey: KEY });
    const state = track(ContextClient.connect(transport, options));
    await time.advance(4_999);
    expect(methods(transport.peers[0].received)).toEqual(["server/discover"]);
    await time.advance(1);
    await flushMicrotasks();
    expect(state.settled).toBe(true);
    const client = state.value!;
    expect(client.era).toBe("legacy");
    expect(client.negotiation).toMatchObject({ outcome: "fallback_silence", elapsedMs: 5_000, probes: 1 });
    expect(eraCache.get(KEY)).toBeUndefined();
    // The unanswered probe was not cancelled on the wire.
    expect(methods(transport.peers[0].received)).toEqual([
      "server/discover",
      "initialize",
      "notifications/initialized",
    ]);
    await client.close();
  });

  it("transport failure during the probe (server exits): respawns, initializes the new process, nothing cached", async () => {
    const { eraCache, options } = setup();
    const transport = fakeTransport(legacyScript({ onPreInit: (_m, p) => p.exit() }), { cacheKey: KEY });
    const client = await ContextClient.connect(transport, options);
    expect(client.era).toBe("legacy");
    expect(client.negotiation).toMatchObject({ outcome: "fallback_respawned", respawned: true, probes: 1 });
    expect(transport.peers).toHaveLength(2);
    expect(methods(transport.peers[0].received)).toEqual(["server/discover"]);
    expect(methods(transport.peers[1].received)).toEqual(["initialize", "notifications/initialized"]);
    expect(eraCache.get(KEY)).toBeUndefined();
    expect(await client.request("tools/list", {})).toEqual({ echo: {} });
    await client.close();
    expect(transport.closes).toBe(2);
  });

  it("write failure during the probe counts as a transport failure: respawn, then initialize", async () => {
    const { options } = setup();
    let opens = 0;
    const transport = {
      canRespawn: true,
      open() {
        const [client, server] = createDuplexPair();
        if (opens++ === 0) {
          void server.readable.cancel(new Error("stdin closed"));
          return { ...client, newlySpawned: true };
        }
        scriptedPeer(server, legacyScript());
        return { ...client, newlySpawned: true };
      },
    };
    const client = await ContextClient.connect(transport, options);
    expect(client.negotiation).toMatchObject({ outcome: "fallback_respawned", respawned: true });
    expect(opens).toBe(2);
    await client.close();
  });

  it("transport failure during the probe on a bare duplex (cannot respawn): fails clearly", async () => {
    const { options } = setup();
    const [a, b] = createDuplexPair();
    scriptedPeer(b, legacyScript({ onPreInit: (_m, p) => p.exit() }));
    const error = await ContextClient.connect(a, options).catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.code).toBe("negotiation_failed");
    expect(error.message).toMatch(/during the server\/discover probe.*cannot start the server again/);
  });
});

describe("ContextClient legacy handshake", () => {
  it("accepts a lower counter-offered legacy version", async () => {
    const { options } = setup();
    const client = await ContextClient.connect(
      fakeTransport(legacyScript({ version: "2024-11-05" })),
      options,
    );
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2024-11-05");
    await client.close();
  });

  it("rejects an unknown counter-offered version clearly", async () => {
    const { options } = setup();
    const error = await ContextClient.connect(fakeTransport(legacyScript({ version: "1999-01-01" })), options)
      .catch((e) => e);
    expect(error.code).toBe("negotiation_failed");
    expect(error.message).toContain('"1999-01-01"');
    expect(error.message).toContain("2025-11-25");
  });

  it("era: legacy sends no probe", async () => {
    const { eraCache, options } = setup({ era: "legacy" });
    const transport = fakeTransport(legacyScript(), { cacheKey: KEY });
    const client = await ContextClient.connect(transport, options);
    expect(client.negotiation).toMatchObject({ outcome: "requested_legacy", probes: 0 });
    expect(methods(transport.peers[0].received)).toEqual(["initialize", "notifications/initialized"]);
    expect(eraCache.get(KEY)).toBeUndefined();
    await client.close();
  });

  it("answers legacy ping, runs registered handlers and notification handlers", async () => {
    const { options } = setup();
    const transport = fakeTransport(legacyScript(), {});
    const client = await ContextClient.connect(transport, options);
    const peer = transport.peers[0];
    const notes: unknown[] = [];
    client.onNotification("notifications/tools/list_changed", (params) => void notes.push(params ?? "none"));
    client.handle("roots/list", () => ({ roots: [{ uri: "file:///x" }] }));
    peer.send({ jsonrpc: "2.0", id: "s1", method: "ping" });
    peer.send({ jsonrpc: "2.0", id: "s2", method: "roots/list" });
    peer.send({ jsonrpc: "2.0", id: "s3", method: "sampling/createMessage" });
    peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    for (let i = 0; i < 5; i++) await flushMicrotasks();
    const replies = Object.fromEntries(
      peer.received.filter((m) => m.method === undefined).map((m) => [m.id, m]),
    );
    expect(replies.s1.result).toEqual({});
    expect(replies.s2.result).toEqual({ roots: [{ uri: "file:///x" }] });
    expect(replies.s3.error.code).toBe(-32601);
    expect(notes).toEqual(["none"]);
    await client.close();
  });
});

describe("ContextClient modern era", () => {
  it("every request carries the _meta envelope; other _meta keys are kept", async () => {
    const { options } = setup({
      clientInfo: { name: "me", version: "9" },
      capabilities: { elicitation: {} },
    });
    const client = await ContextClient.connect(fakeTransport(modernScript), options);
    const result = await client.request<{ echo: Message }>("tools/list", {
      cursor: "c",
      _meta: { progressToken: 7 },
    });
    expect(result.echo).toEqual({
      cursor: "c",
      _meta: {
        progressToken: 7,
        [MetaKeys.protocolVersion]: "2026-07-28",
        [MetaKeys.clientCapabilities]: { elicitation: {} },
        [MetaKeys.clientInfo]: { name: "me", version: "9" },
      },
    });
    const bare = await client.request<{ echo: Message }>("prompts/list");
    expect(bare.echo._meta[MetaKeys.protocolVersion]).toBe("2026-07-28");
    await client.close();
  });

  it("sends the same envelope (spliced as text) on every request, and a new one after a capability appears", async () => {
    const { options } = setup({
      clientInfo: { name: "me", version: "9" },
      capabilities: { experimental: { x: {} } },
    });
    const client = await ContextClient.connect(fakeTransport(modernScript), options);
    const expected = (capabilities: unknown) => ({
      name: "echo",
      arguments: { text: 'a"b' },
      _meta: {
        [MetaKeys.protocolVersion]: "2026-07-28",
        [MetaKeys.clientCapabilities]: capabilities,
        [MetaKeys.clientInfo]: { name: "me", version: "9" },
      },
    });
    for (let i = 0; i < 2; i++) {
      const result = await client.request<{ echo: Message }>("tools/call", {
        name: "echo",
        arguments: { text: 'a"b' },
      });
      expect(result.echo).toEqual(expected({ experimental: { x: {} } }));
    }
    client.onElicit(() => ({ action: "decline" }));
    const after = await client.request<{ echo: Message }>("tools/call", {
      name: "echo",
      arguments: { text: 'a"b' },
    });
    expect(after.echo).toEqual(expected({ elicitation: { form: {} }, experimental: { x: {} } }));
    await client.close();
  });

  it("a request's AbortSignal sends notifications/cancelled and rejects", async () => {
    const { options } = setup();
    const transport = fakeTransport((
      m,
      p,
    ) => (m.method === "server/discover" ? modernScript(m, p) : undefined));
    const client = await ContextClient.connect(transport, options);
    const controller = new AbortController();
    const pending = client.request("tools/call", { name: "slow" }, { signal: controller.signal });
    await flushMicrotasks();
    controller.abort(new Error("user gave up"));
    await expect(pending).rejects.toThrow("user gave up");
    await flushMicrotasks();
    const cancel = transport.peers[0].received.find((m) => m.method === "notifications/cancelled");
    expect(cancel.params.requestId).toBe(transport.peers[0].received[1].id);
    await client.close();
  });

  it("era: modern against a legacy-only server fails with a clear error", async () => {
    const { options, eraCache } = setup({ era: "modern" });
    const error = await ContextClient.connect(fakeTransport(legacyScript(), { cacheKey: KEY }), options)
      .catch((e) => e);
    expect(error.code).toBe("negotiation_failed");
    expect(error.message).toMatch(/does not speak the modern era.*-32601/);
    expect(eraCache.get(KEY)?.era).toBe("legacy");
  });

  it("era: modern against a silent server fails after the probe deadline", async () => {
    const { options, time } = setup({ era: "modern" });
    const state = track(ContextClient.connect(fakeTransport(() => {}), options));
    await time.advance(4_999);
    expect(state.settled).toBe(false);
    await time.advance(1);
    await flushMicrotasks();
    expect((state.error as TransportError).code).toBe("negotiation_failed");
    expect((state.error as Error).message).toContain("5000 ms");
  });

  it("a -32022 reply to a modern request forgets the cached era", async () => {
    const { eraCache, options } = setup();
    const script: Script = (
      m,
      p,
    ) => (m.method === "tools/list"
      ? p.error(m.id, -32022, "Unsupported", { supported: ["2027-01-01"] })
      : modernScript(m, p));
    const client = await ContextClient.connect(fakeTransport(script, { cacheKey: KEY }), options);
    expect(eraCache.get(KEY)?.era).toBe("modern");
    await expect(client.request("tools/list", {})).rejects.toMatchObject({ code: -32022 });
    expect(eraCache.get(KEY)).toBeUndefined();
    await client.close();
  });
});

describe("ContextClient and the EraCache", () => {
  it("a cached legacy entry goes straight to initialize", async () => {
    const { eraCache, time, options } = setup();
    eraCache.set(KEY, { era: "legacy", learnedAt: time.now() });
    const transport = fakeTransport(legacyScript(), { cacheKey: KEY });
    const client = await ContextClient.connect(transport, options);
    expect(client.negotiation).toMatchObject({ outcome: "cached_legacy", fromCache: true, probes: 0 });
    expect(methods(transport.peers[0].received)).toEqual(["initialize", "notifications/initialized"]);
    await client.close();
  });

  it("a cached modern entry is confirmed with server/discover at its version", async () => {
    const { eraCache, time, options } = setup();
    eraCache.set(KEY, { era: "modern", protocolVersion: "2026-07-28", learnedAt: time.now() });
    const client = await ContextClient.connect(fakeTransport(modernScript, { cacheKey: KEY }), options);
    expect(client.negotiation).toMatchObject({
      outcome: "cached_modern",
      fromCache: true,
      probes: 1,
      forgotten: false,
    });
    expect(eraCache.get(KEY)?.era).toBe("modern");
    await client.close();
  });

  it("a stale cached modern entry is forgotten when the server rejects the probe; the rejection teaches legacy", async () => {
    const { eraCache, time, options } = setup();
    eraCache.set(KEY, { era: "modern", protocolVersion: "2026-07-28", learnedAt: time.now() });
    const client = await ContextClient.connect(fakeTransport(legacyScript(), { cacheKey: KEY }), options);
    expect(client.negotiation).toMatchObject({
      outcome: "definitive_rejection",
      forgotten: true,
      learned: "legacy",
    });
    expect(eraCache.get(KEY)?.era).toBe("legacy");
    await client.close();
  });

  it("a stale cached modern entry is forgotten on silence and nothing new is learned", async () => {
    const { eraCache, time, options } = setup();
    eraCache.set(KEY, { era: "modern", protocolVersion: "2026-07-28", learnedAt: time.now() });
    const state = track(
      ContextClient.connect(fakeTransport(legacyScript({ onPreInit: () => {} }), { cacheKey: KEY }), options),
    );
    await time.advance(5_000);
    await flushMicrotasks();
    expect(state.value!.negotiation).toMatchObject({ outcome: "fallback_silence", forgotten: true });
    expect(eraCache.get(KEY)).toBeUndefined();
    await state.value!.close();
  });

  it("a failed cached legacy handshake forgets the entry and negotiates again", async () => {
    const { eraCache, time, options } = setup();
    eraCache.set(KEY, { era: "legacy", learnedAt: time.now() });
    const script: Script = (m, p) =>
      m.method === "initialize"
        ? p.error(m.id, -32022, "Unsupported protocol version", { supported: ["2026-07-28"] })
        : modernScript(m, p);
    const reports: Error[] = [];
    const client = await ContextClient.connect(fakeTransport(script, { cacheKey: KEY }), {
      ...options,
      onReport: (e) => reports.push(e),
    });
    expect(client.era).toBe("modern");
    expect(client.negotiation).toMatchObject({
      outcome: "discovered_modern",
      forgotten: true,
      learned: "modern",
    });
    expect(eraCache.get(KEY)?.era).toBe("modern");
    expect(reports.some((e) => /Cached legacy era failed/.test(e.message))).toBe(true);
    await client.close();
  });

  it("a cached legacy handshake that kills the server: forget, respawn, probe the new process", async () => {
    const { eraCache, time, options } = setup();
    eraCache.set(KEY, { era: "legacy", learnedAt: time.now() });
    const transport = fakeTransport(
      (spawn: number): Script => (spawn === 0 ? (_m, p) => p.exit() : modernScript),
      { cacheKey: KEY, perSpawn: true },
    );
    const client = await ContextClient.connect(transport, options);
    expect(client.era).toBe("modern");
    expect(client.negotiation).toMatchObject({
      outcome: "discovered_modern",
      respawned: true,
      forgotten: true,
      learned: "modern",
      probes: 1,
    });
    expect(methods(transport.peers[0].received)).toEqual(["initialize"]);
    expect(methods(transport.peers[1].received)).toEqual(["server/discover"]);
    await client.close();
  });

  it("a server ping during the probe window is answered and does not disturb the verdict", async () => {
    const { options } = setup();
    const [a, b] = createDuplexPair();
    const peer = scriptedPeer(b, (m, p) => {
      if (m.method !== "server/discover") return modernScript(m, p);
      p.send({ jsonrpc: "2.0", id: "srv-1", method: "ping" });
      p.reply(m.id, discoverResult());
    });
    const client = await ContextClient.connect(a, options);
    expect(client.negotiation.outcome).toBe("discovered_modern");
    await flushMicrotasks();
    expect(peer.received.find((m) => m.id === "srv-1")?.result).toEqual({});
    await client.close();
  });

  it("a cached entry is forgotten when the connect fails for any reason (here: connectTimeout)", async () => {
    const { eraCache, time, options } = setup({ connectTimeout: 3_000 });
    eraCache.set(KEY, { era: "modern", protocolVersion: "2026-07-28", learnedAt: time.now() });
    const state = track(ContextClient.connect(fakeTransport(() => {}, { cacheKey: KEY }), options));
    await time.advance(3_000);
    await flushMicrotasks();
    expect((state.error as TransportError).code).toBe("timeout");
    expect(eraCache.get(KEY)).toBeUndefined();
  });

  it("a legacy entry expires exactly 5 min after the definitive probe, even with cached connects at 1, 2 and 4 min", async () => {
    const { time, options } = setup();
    const transport = fakeTransport(() => legacyScript(), { cacheKey: KEY, perSpawn: true });
    const first = await ContextClient.connect(transport, options);
    expect(first.negotiation.outcome).toBe("definitive_rejection");
    await first.close();
    let elapsed = 0;
    for (const minute of [1, 2, 4]) {
      await time.advance(minute * 60_000 - elapsed);
      elapsed = minute * 60_000;
      const c = await ContextClient.connect(transport, options);
      expect(c.negotiation).toMatchObject({ outcome: "cached_legacy", probes: 0 });
      await c.close();
    }
    await time.advance(5 * 60_000 - 1 - elapsed);
    const justBefore = await ContextClient.connect(transport, options);
    expect(justBefore.negotiation.outcome).toBe("cached_legacy");
    await justBefore.close();
    await time.advance(1);
    const atFive = await ContextClient.connect(transport, options);
    expect(atFive.negotiation).toMatchObject({
      outcome: "definitive_rejection",
      probes: 1,
      learned: "legacy",
    });
    await atFive.close();
  });

  it("a modern entry survives an hour", async () => {
    const { time, options, eraCache } = setup();
    const transport = fakeTransport(modernScript, { cacheKey: KEY });
    await (await ContextClient.connect(transport, options)).close();
    await time.advance(3_600_000);
    expect(eraCache.get(KEY)?.era).toBe("modern");
    const later = await ContextClient.connect(transport, options);
    expect(later.negotiation.outcome).toBe("cached_modern");
    await later.close();
  });

  it("a bare duplex has no cache key, so nothing is cached; options.cacheKey overrides", async () => {
    const { eraCache, options } = setup();
    const [a, b] = createDuplexPair();
    scriptedPeer(b, modernScript);
    const client = await ContextClient.connect(a, options);
    expect(client.negotiation.learned).toBe("modern");
    expect(eraCache.size).toBe(0);
    await client.close();
    const [c, d] = createDuplexPair();
    scriptedPeer(d, modernScript);
    const keyed = await ContextClient.connect(c, { ...options, cacheKey: "mine" });
    expect(eraCache.get("mine")?.era).toBe("modern");
    await keyed.close();
  });

  it("works with an async custom store", async () => {
    const { time, options } = setup();
    const map = new Map<string, unknown>();
    const calls: string[] = [];
    const store = {
      get: (k: string) => (calls.push(`get ${k}`), Promise.resolve(map.get(k) as never)),
      set: (k: string, v: unknown) => (calls.push(`set ${k}`), map.set(k, v), Promise.resolve()),
      forget: (k: string) => (calls.push(`forget ${k}`), map.delete(k), Promise.resolve()),
    };
    const transport = fakeTransport(() => legacyScript(), { cacheKey: KEY, perSpawn: true });
    await (await ContextClient.connect(transport, { ...options, eraCache: store })).close();
    expect(map.get(KEY)).toMatchObject({ era: "legacy", learnedAt: time.now() });
    const second = await ContextClient.connect(transport, { ...options, eraCache: store });
    expect(second.negotiation.outcome).toBe("cached_legacy");
    await second.close();
    expect(calls).toEqual([`get ${KEY}`, `set ${KEY}`, `get ${KEY}`]);
  });
});

describe("ContextClient timing", () => {
  it("the startup allowance (5 + 10 s) finds a server answering after 12 s modern on a new process's first probe", async () => {
    const { time, options } = setup();
    const slow: Script = (m, p) => {
      if (m.method === "server/discover") time.setTimer(() => p.reply(m.id, discoverResult()), 12_000);
      else modernScript(m, p);
    };
    const state = track(
      ContextClient.connect(fakeTransport(slow, { newlySpawned: true }), { ...options, eraCache: null }),
    );
    await time.advance(11_999);
    expect(state.settled).toBe(false);
    await time.advance(1);
    await flushMicrotasks();
    expect(state.value!.era).toBe("modern");
    expect(state.value!.negotiation).toMatchObject({ outcome: "discovered_modern", elapsedMs: 12_000 });
    await state.value!.close();
  });

  it("the allowance is not applied to a later probe: the same 12 s server falls back at 5 s", async () => {
    const { time, options } = setup();
    const slow: Script = (m, p) => {
      if (m.method === "server/discover") time.setTimer(() => p.reply(m.id, discoverResult()), 12_000);
      else legacyScript()(m, p);
    };
    // Not newly spawned: an already running server.
    const state = track(
      ContextClient.connect(fakeTransport(slow, { newlySpawned: false }), { ...options, eraCache: null }),
    );
    await time.advance(5_000);
    await flushMicrotasks();
    expect(state.value!.negotiation).toMatchObject({ outcome: "fallback_silence", elapsedMs: 5_000 });
    await state.value!.close();
  });

  it("the allowance is not applied to the -32022 re-probe on the same new process", async () => {
    const { time, options } = setup();
    let n = 0;
    const script: Script = (m, p) => {
      if (m.method !== "server/discover") return legacyScript()(m, p);
      if (n++ === 0) return p.error(m.id, -32022, "Unsupported", { supported: ["2026-07-28"] });
      time.setTimer(() => p.reply(m.id, discoverResult()), 12_000);
    };
    const state = track(
      ContextClient.connect(fakeTransport(script, { newlySpawned: true }), { ...options, eraCache: null }),
    );
    await time.advance(4_999);
    expect(state.settled).toBe(false);
    await time.advance(1);
    await flushMicrotasks();
    expect(state.value!.negotiation).toMatchObject({ outcome: "fallback_silence", probes: 2 });
    await state.value!.close();
  });

  it("connectTimeout bounds a server that answers nothing at all", async () => {
    const { time, options } = setup();
    const transport = fakeTransport(() => {}, { newlySpawned: true, cacheKey: KEY });
    const state = track(ContextClient.connect(transport, options));
    await time.advance(15_000); // probe (5 + 10 s) falls back; initialize is sent
    expect(methods(transport.peers[0].received)).toEqual(["server/discover", "initialize"]);
    await time.advance(14_999);
    expect(state.settled).toBe(false);
    await time.advance(1);
    await flushMicrotasks();
    const error = state.error as TransportError;
    expect(error.code).toBe("timeout");
    expect(error.message).toMatch(/connectTimeout \(30000 ms\) while waiting for the initialize reply/);
    expect(transport.closes).toBe(1);
  });

  it("rejects bad options by name", async () => {
    await expect(ContextClient.connect(fakeTransport(modernScript), { probeTimeout: -1 })).rejects.toThrow(
      /probeTimeout/,
    );
    await expect(ContextClient.connect(fakeTransport(modernScript), { era: "new" as never })).rejects.toThrow(
      /era/,
    );
  });
});

describe("ContextClient close", () => {
  it("closes the connection, then the transport connection's close()", async () => {
    const { options } = setup();
    const transport = fakeTransport(modernScript);
    const client = await ContextClient.connect(transport, options);
    await client.close();
    await client.close();
    expect(transport.closes).toBe(1);
    expect((await client.closed).reason).toBe("closed");
    await expect(client.request("tools/list", {})).rejects.toThrow();
  });

  it("reaps the transport when the server goes away", async () => {
    const { options } = setup();
    const transport = fakeTransport(legacyScript());
    const client = await ContextClient.connect(transport, options);
    transport.peers[0].exit();
    const info = await client.closed;
    expect(info.reason).toBe("eof");
    await flushMicrotasks();
    expect(transport.closes).toBe(1);
    await client.close();
    expect(transport.closes).toBe(1);
  });
});
