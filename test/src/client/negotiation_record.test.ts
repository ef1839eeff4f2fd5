/** NegotiationRecord: the negotiation bookkeeping the stream negotiator and the HTTP era probe share. */
import { describe, expect, it } from "vitest";
import type { EraCacheEntry, EraCacheStore } from "../../../src/client/era_cache.ts";
import { NegotiationRecord } from "../../../src/client/negotiation_record.ts";
import { ConnectDeadline } from "../../../src/client/connect_deadline.ts";
import { TimeoutError } from "../../../src/wire/errors.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

/** An era cache that counts its calls. */
function countingStore(initial?: EraCacheEntry) {
  const calls = { get: 0, set: [] as EraCacheEntry[], forget: 0 };
  let entry = initial;
  const store: EraCacheStore = {
    get: () => {
      calls.get++;
      return entry;
    },
    set: (_key, value) => {
      calls.set.push(value);
      entry = value;
    },
    forget: () => {
      calls.forget++;
      entry = undefined;
    },
  };
  return { store, calls };
}

describe("NegotiationRecord", () => {
  it("reports elapsed time, probes, respawn and what the cache learned and forgot", async () => {
    const time = new FakeTimeProvider();
    const { store, calls } = countingStore({ era: "legacy", learnedAt: 0 });
    const record = new NegotiationRecord({ time, cache: store, cacheKey: "k", report: () => {} });
    expect((await record.cached())?.era).toBe("legacy");
    expect(record.countProbe()).toBe(1);
    expect(record.countProbe()).toBe(2);
    record.markRespawned();
    await record.forget();
    await record.learn({ era: "modern", protocolVersion: "2026-07-28", learnedAt: time.now() });
    await time.advance(250);
    expect(record.info("discovered_modern", { learned: "modern" })).toEqual({
      outcome: "discovered_modern",
      elapsedMs: 250,
      probes: 2,
      respawned: true,
      fromCache: false,
      forgotten: true,
      learned: "modern",
    });
    expect(calls.get).toBe(1);
    expect(calls.set).toHaveLength(1);
    expect(record.progressNote()).toBe(" (2 probes sent, server respawned)");
  });

  it("forgets the cache entry once however often a negotiation asks", async () => {
    const { store, calls } = countingStore({ era: "modern", learnedAt: 0 });
    const record = new NegotiationRecord({
      time: new FakeTimeProvider(),
      cache: store,
      cacheKey: "k",
      report: () => {},
    });
    await record.forget();
    await record.forget();
    expect(calls.forget).toBe(1);
  });

  it("without a cache key reads, learns and forgets nothing, and reports a fresh negotiation", async () => {
    const { store, calls } = countingStore({ era: "legacy", learnedAt: 0 });
    const record = new NegotiationRecord({ time: new FakeTimeProvider(), cache: store, report: () => {} });
    expect(await record.cached()).toBeUndefined();
    await record.learn({ era: "legacy", learnedAt: 0 });
    await record.forget();
    expect(calls).toEqual({ get: 0, set: [], forget: 0 });
    expect(record.info("requested_legacy", { detail: "d" })).toEqual({
      outcome: "requested_legacy",
      elapsedMs: 0,
      probes: 0,
      respawned: false,
      fromCache: false,
      forgotten: false,
      detail: "d",
    });
    expect(record.progressNote()).toBe("");
  });

  it("a failing cache is reported, not thrown", async () => {
    const reported: Error[] = [];
    const failing: EraCacheStore = {
      get: () => Promise.reject(new Error("down")),
      set: () => Promise.reject(new Error("down")),
      forget: () => Promise.reject(new Error("down")),
    };
    const record = new NegotiationRecord({
      time: new FakeTimeProvider(),
      cache: failing,
      cacheKey: "k",
      report: (error) => reported.push(error),
    });
    expect(await record.cached()).toBeUndefined();
    await record.learn({ era: "legacy", learnedAt: 0 });
    await record.forget();
    expect(reported.map((e) => e.message)).toEqual([
      'Era cache get("k") failed: down',
      'Era cache set("k") failed: down',
      'Era cache forget("k") failed: down',
    ]);
  });
});

describe("NegotiationRecord: the cache steps both negotiators share", () => {
  const recordWith = (entry: EraCacheEntry | undefined, reported: Error[] = []) => {
    const counting = countingStore(entry);
    const record = new NegotiationRecord({
      time: new FakeTimeProvider(),
      cache: counting.store,
      cacheKey: "k",
      report: (error) => reported.push(error),
    });
    return { record, calls: counting.calls };
  };

  it("tryCachedLegacy starts at the cached legacy version, else the newest legacy one, and keeps the entry", async () => {
    const { record, calls } = recordWith({ era: "legacy", protocolVersion: "2025-03-26", learnedAt: 0 });
    const offered: string[] = [];
    const start = (version: string) => (offered.push(version), Promise.resolve(`session@${version}`));
    const isFinal = () => false;
    expect(
      await record.tryCachedLegacy(
        { era: "legacy", protocolVersion: "2025-03-26", learnedAt: 0 },
        start,
        isFinal,
      ),
    )
      .toEqual({ ok: true, session: "session@2025-03-26" });
    await record.tryCachedLegacy(
      { era: "legacy", protocolVersion: "2026-07-28", learnedAt: 0 },
      start,
      isFinal,
    );
    await record.tryCachedLegacy({ era: "legacy", learnedAt: 0 }, start, isFinal);
    expect(offered).toEqual(["2025-03-26", "2025-11-25", "2025-11-25"]);
    expect(calls.forget).toBe(0);
  });

  it("tryCachedLegacy reports a failure, forgets the entry and hands the failure back; a final one is thrown", async () => {
    const reported: Error[] = [];
    const { record, calls } = recordWith({ era: "legacy", learnedAt: 0 }, reported);
    const refused = new Error("refused");
    const attempt = await record.tryCachedLegacy(
      { era: "legacy", learnedAt: 0 },
      () => Promise.reject(refused),
      () => false,
    );
    expect(attempt).toEqual({ ok: false, error: refused });
    expect(calls.forget).toBe(1);
    expect(reported.map((e) => e.message)).toEqual([
      'Cached legacy era failed for "k": refused; probing again',
    ]);
    expect(record.info("discovered_modern").forgotten).toBe(true);

    const late = recordWith({ era: "legacy", learnedAt: 0 });
    const timeout = new TimeoutError("late", 10);
    const thrown = await late.record.tryCachedLegacy(
      { era: "legacy", learnedAt: 0 },
      () => Promise.reject(timeout),
      (error) => error instanceof TimeoutError,
    ).then(() => undefined, (error: unknown) => error);
    expect(thrown).toBe(timeout);
    expect(late.calls.forget).toBe(0);
  });

  it("firstProbeVersion: a cached modern version, else the newest modern one", () => {
    const { record } = recordWith(undefined);
    expect(record.firstProbeVersion(undefined)).toBe("2026-07-28");
    expect(record.firstProbeVersion({ era: "legacy", protocolVersion: "2025-11-25", learnedAt: 0 })).toBe(
      "2026-07-28",
    );
    expect(record.firstProbeVersion({ era: "modern", protocolVersion: "2025-11-25", learnedAt: 0 })).toBe(
      "2026-07-28",
    );
    expect(record.firstProbeVersion({ era: "modern", protocolVersion: "2026-07-28", learnedAt: 0 })).toBe(
      "2026-07-28",
    );
  });

  it("learnLegacy learns only when the verdict may teach, with the newest legacy version named", async () => {
    const { record, calls } = recordWith(undefined);
    await record.learnLegacy({ learn: false, legacyVersions: ["2025-11-25"] });
    expect(calls.set).toEqual([]);
    await record.learnLegacy({ learn: true, legacyVersions: ["2025-03-26", "2025-06-18"] });
    await record.learnLegacy({ learn: true, legacyVersions: [] });
    expect(calls.set).toEqual([
      { era: "legacy", protocolVersion: "2025-06-18", learnedAt: new FakeTimeProvider().now() },
      { era: "legacy", learnedAt: new FakeTimeProvider().now() },
    ]);
  });

  it("modernSession: the discover answer's capabilities, and server info and instructions only when given", () => {
    const { record } = recordWith(undefined);
    expect(
      record.modernSession(
        "2026-07-28",
        { supportedVersions: [], capabilities: { tools: {} } },
        "discovered_modern",
        {},
      ),
    )
      .toEqual({
        era: "modern",
        protocolVersion: "2026-07-28",
        serverCapabilities: { tools: {} },
        info: record.info("discovered_modern"),
      });
    const full = record.modernSession(
      "2026-07-28",
      {
        supportedVersions: ["2026-07-28"],
        capabilities: {},
        serverInfo: { name: "s", version: "1" },
        instructions: "",
      },
      "cached_modern",
      { fromCache: true },
    );
    expect(full.serverInfo).toEqual({ name: "s", version: "1" });
    expect(full.instructions).toBe("");
    expect(full.info.fromCache).toBe(true);
  });
});

describe("ConnectDeadline", () => {
  it("a step bound ends the wait without ending the connect; it holds until the step is due", async () => {
    const time = new FakeTimeProvider();
    const deadline = new ConnectDeadline(time, {
      started: time.now(),
      connectTimeout: 1_000,
      progressNote: () => "",
    });
    const waiting = deadline.wait(new Promise<never>(() => {}), 100, "probing");
    let settled = false;
    void waiting.then(() => (settled = true));
    await time.advance(99);
    expect(settled).toBe(false);
    await time.advance(1);
    expect(await waiting).toEqual({ ok: false, stepTimeout: true });
  });

  it("the connect deadline throws a TimeoutError naming the step and the progress so far", async () => {
    const time = new FakeTimeProvider();
    const deadline = new ConnectDeadline(time, {
      started: time.now(),
      connectTimeout: 300,
      progressNote: () => " (1 probe sent)",
    });
    await time.advance(200);
    const waiting = deadline.wait(new Promise<never>(() => {}), Infinity, "waiting for the initialize reply");
    const outcome = waiting.then(() => undefined, (error: unknown) => error);
    await time.advance(99);
    await time.advance(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(
      "Connect did not finish within connectTimeout (300 ms) while waiting for the initialize reply (1 probe sent)",
    );
  });

  it("a value or a failure before either bound comes back as it is", async () => {
    const time = new FakeTimeProvider();
    const deadline = new ConnectDeadline(time, {
      started: time.now(),
      connectTimeout: 1_000,
      progressNote: () => "",
    });
    expect(await deadline.wait(Promise.resolve(7), 100, "x")).toEqual({ ok: true, value: 7 });
    const cause = new Error("refused");
    expect(await deadline.wait(Promise.reject(cause), 100, "x")).toEqual({ ok: false, error: cause });
  });
});
