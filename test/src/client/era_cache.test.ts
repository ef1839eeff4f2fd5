import { describe, expect, it } from "vitest";
import { DEFAULT_LEGACY_LIFETIME, DEFAULT_MODERN_LIFETIME, EraCache } from "../../../src/client/era_cache.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

describe("EraCache", () => {
  it("a legacy entry expires exactly legacyLifetime (default 5 min) after learnedAt", async () => {
    const time = new FakeTimeProvider();
    const cache = new EraCache({ timeProvider: time });
    expect(DEFAULT_LEGACY_LIFETIME).toBe(300_000);
    cache.set("k", { era: "legacy", learnedAt: time.now() });
    await time.advance(299_999);
    expect(cache.get("k")?.era).toBe("legacy");
    await time.advance(1);
    expect(cache.get("k")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("reading a legacy entry does not refresh it", async () => {
    const time = new FakeTimeProvider();
    const cache = new EraCache({ timeProvider: time });
    cache.set("k", { era: "legacy", learnedAt: time.now() });
    for (let i = 0; i < 4; i++) {
      await time.advance(60_000);
      expect(cache.get("k")).toBeDefined();
    }
    await time.advance(60_000);
    expect(cache.get("k")).toBeUndefined();
  });

  it("expiry counts from set() on the cache's own clock, whatever learnedAt the caller's clock gave", async () => {
    const time = new FakeTimeProvider();
    const cache = new EraCache({ timeProvider: time, legacyLifetime: 1_000 });
    cache.set("k", { era: "legacy", learnedAt: 42 });
    expect(cache.get("k")?.learnedAt).toBe(time.now());
    await time.advance(999);
    expect(cache.get("k")).toBeDefined();
    await time.advance(1);
    expect(cache.get("k")).toBeUndefined();
  });

  it("a modern entry expires exactly modernLifetime (default 24 h) after it was set, and not before", async () => {
    const time = new FakeTimeProvider();
    const cache = new EraCache({ timeProvider: time });
    expect(DEFAULT_MODERN_LIFETIME).toBe(86_400_000);
    expect(cache.modernLifetime).toBe(86_400_000);
    cache.set("k", { era: "modern", protocolVersion: "2026-07-28", learnedAt: time.now() });
    await time.advance(24 * 3_600_000 - 1);
    expect(cache.get("k")).toEqual({ era: "modern", protocolVersion: "2026-07-28", learnedAt: 1_000_000 });
    await time.advance(1);
    expect(cache.get("k")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("a modern entry honours a custom modernLifetime both ways, and reading it does not refresh it", async () => {
    const time = new FakeTimeProvider();
    const cache = new EraCache({ timeProvider: time, modernLifetime: 10_000, legacyLifetime: 1_000 });
    cache.set("m", { era: "modern", protocolVersion: "2026-07-28", learnedAt: 0 });
    cache.set("l", { era: "legacy", learnedAt: 0 });
    await time.advance(1_000);
    expect(cache.get("l")).toBeUndefined(); // the legacy lifetime is its own
    for (let i = 0; i < 8; i++) {
      await time.advance(1_000);
      expect(cache.get("m")?.era).toBe("modern");
    }
    await time.advance(999);
    expect(cache.get("m")?.era).toBe("modern");
    await time.advance(1);
    expect(cache.get("m")).toBeUndefined();
  });

  it("a modern entry can still be dropped at once with forget()", () => {
    const cache = new EraCache();
    cache.set("k", { era: "modern", protocolVersion: "2026-07-28", learnedAt: 0 });
    cache.forget("k");
    expect(cache.get("k")).toBeUndefined();
  });

  it("returns copies, so callers cannot change stored entries", () => {
    const cache = new EraCache();
    cache.set("k", { era: "modern", learnedAt: 0 });
    cache.get("k")!.era = "legacy";
    expect(cache.get("k")!.era).toBe("modern");
  });

  it("rejects a bad legacyLifetime by name", () => {
    expect(() => new EraCache({ legacyLifetime: -5 })).toThrow(/legacyLifetime/);
    expect(() => new EraCache({ modernLifetime: -5 })).toThrow(/modernLifetime/);
  });
});

describe("EraCache maxEntries (issue 25 item 19)", () => {
  const entry = { era: "modern" as const, version: "2026-07-28", learnedAt: 0 };

  it("keeps the default 1 000 entries, and storing one more drops the least recently used", () => {
    const cache = new EraCache({ timeProvider: new FakeTimeProvider() });
    expect(cache.maxEntries).toBe(1_000);
    for (let i = 0; i < 1_000; i++) cache.set(`k${i}`, entry);
    expect(cache.size).toBe(1_000);
    expect(cache.get("k0")).toBeDefined(); // used: k1 is now the least recently used
    cache.set("k1000", entry);
    expect(cache.size).toBe(1_000);
    expect(cache.get("k0")).toBeDefined();
    expect(cache.get("k1")).toBeUndefined();
    expect(cache.get("k1000")).toBeDefined();
  });

  it("holds a configured cap both ways and refuses a cap below 1", () => {
    const cache = new EraCache({ timeProvider: new FakeTimeProvider(), maxEntries: 2 });
    cache.set("a", entry);
    cache.set("b", entry);
    expect(cache.size).toBe(2);
    cache.set("a", entry); // replacing is no new entry, and makes "a" the most recent
    cache.set("c", entry);
    expect([cache.get("a"), cache.get("b"), cache.get("c")].map((e) => e !== undefined)).toEqual([
      true,
      false,
      true,
    ]);
    expect(() => new EraCache({ maxEntries: 0 })).toThrow(/maxEntries/);
  });
});
