// ContextClient against deliberately awkward servers: real child processes through spawnProcess.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { spawnProcess } from "../../adapters/node/mod.ts";
import { ContextClient, type ContextClientOptions } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { ParseError } from "../../src/wire/errors.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/hostile/server.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "omc-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROBE = 500;
const ALLOWANCE = 1_500;

function hostile(mode: string) {
  const log = join(dir, `${mode}-${Math.random().toString(36).slice(2)}.log`);
  const transport = spawnProcess(process.execPath, [FIXTURE, mode], {
    env: { ...process.env, HOSTILE_LOG: log },
  });
  const eraCache = new EraCache();
  const reports: Error[] = [];
  const options: ContextClientOptions = {
    eraCache,
    probeTimeout: PROBE,
    processStartupAllowance: ALLOWANCE,
    connectTimeout: 10_000,
    onReport: (e) => reports.push(e),
  };
  const received = (): Array<[string, string]> => {
    try {
      return readFileSync(log, "utf8").trim().split("\n").map((l) => l.split(" ") as [string, string]);
    } catch {
      return [];
    }
  };
  return { transport, eraCache, options, reports, received, key: transport.cacheKey };
}

describe("ContextClient against hostile servers (real processes)", () => {
  it("silent on the probe: legacy fallback after the probe deadline, nothing cached", async () => {
    const h = hostile("silent");
    const client = await ContextClient.connect(h.transport, h.options);
    expect(client.era).toBe("legacy");
    expect(client.negotiation.outcome).toBe("fallback_silence");
    expect(client.negotiation.elapsedMs).toBeGreaterThanOrEqual(PROBE + ALLOWANCE - 5);
    expect(h.eraCache.get(h.key)).toBeUndefined();
    expect(await client.request("tools/list", {})).toEqual({ tools: [] });
    await client.close();
    const lines = h.received();
    expect(lines.map(([, m]) => m)).toEqual([
      "server/discover",
      "initialize",
      "notifications/initialized",
      "tools/list",
    ]);
    // close() ended the process (stdin EOF, then the bounded kill sequence).
    expect(() => process.kill(Number(lines[0][0]), 0)).toThrow();
  });

  it("exits on any pre-initialize request: respawn, initialize the new process, nothing cached", async () => {
    const h = hostile("exit-on-preinit");
    const client = await ContextClient.connect(h.transport, h.options);
    expect(client.era).toBe("legacy");
    expect(client.negotiation).toMatchObject({ outcome: "fallback_respawned", respawned: true, probes: 1 });
    expect(client.negotiation.detail).toMatch(/exit code 3/);
    expect(client.negotiation.detail).toContain("fatal: expected initialize, got server/discover");
    expect(h.eraCache.get(h.key)).toBeUndefined();
    expect(await client.request("tools/list", {})).toEqual({ tools: [] });
    await client.close();
    const lines = h.received();
    const pids = [...new Set(lines.map(([pid]) => pid))];
    expect(pids).toHaveLength(2);
    expect(lines.filter(([pid]) => pid === pids[0]).map(([, m]) => m)).toEqual(["server/discover"]);
    expect(lines.filter(([pid]) => pid === pids[1]).map(([, m]) => m)).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/list",
    ]);
  });

  it("crashes at startup every time: one respawn, then a clear error carrying the exit code and stderr", async () => {
    const h = hostile("crash");
    const error = await ContextClient.connect(h.transport, h.options).catch((e) => e);
    expect(error.code).toBe("negotiation_failed");
    expect(error.message).toMatch(
      /during initialize \(1 probe sent, server respawned\): Server process exited \(exit code 2\)/,
    );
    expect(error.message).toContain("boom: missing config file");
    expect(h.eraCache.get(h.key)).toBeUndefined();
  });

  it("prints a non-JSON banner on stdout: tolerated and reported", async () => {
    const h = hostile("banner");
    const client = await ContextClient.connect(h.transport, h.options);
    expect(client.era).toBe("legacy");
    expect(client.negotiation.outcome).toBe("definitive_rejection");
    const banner = h.reports.find((e) => e instanceof ParseError);
    expect(banner?.message).toContain("Welcome to Banner Server");
    expect(h.eraCache.get(h.key)?.era).toBe("legacy");
    await client.close();
  });

  it("answers -32603: legacy fallback, nothing cached", async () => {
    const h = hostile("internal-error");
    const client = await ContextClient.connect(h.transport, h.options);
    expect(client.era).toBe("legacy");
    expect(client.negotiation.outcome).toBe("fallback_rpc_error");
    expect(client.negotiation.detail).toContain("-32603");
    expect(h.eraCache.get(h.key)).toBeUndefined();
    await client.close();
  });

  it("answers a malformed DiscoverResult: legacy fallback, nothing cached", async () => {
    const h = hostile("malformed");
    const client = await ContextClient.connect(h.transport, h.options);
    expect(client.era).toBe("legacy");
    expect(client.negotiation.outcome).toBe("fallback_malformed");
    expect(h.eraCache.get(h.key)).toBeUndefined();
    await client.close();
  });

  it("-32022 naming a shared modern version: one re-probe, then modern, cached modern", async () => {
    const h = hostile("reprobe");
    const client = await ContextClient.connect(h.transport, h.options);
    expect(client.era).toBe("modern");
    expect(client.negotiation).toMatchObject({ outcome: "reprobed_modern", probes: 2 });
    expect(h.eraCache.get(h.key)).toMatchObject({ era: "modern", protocolVersion: "2026-07-28" });
    expect(await client.request("tools/list", {})).toEqual({ resultType: "complete", tools: [] });
    await client.close();
    expect(h.received().map(([, m]) => m)).toEqual(["server/discover", "server/discover", "tools/list"]);
  });

  it("-32022 listing only legacy versions: legacy at the newest listed, cached legacy", async () => {
    const h = hostile("legacy-32022");
    const client = await ContextClient.connect(h.transport, h.options);
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.negotiation.outcome).toBe("legacy_only_versions");
    expect(h.eraCache.get(h.key)?.era).toBe("legacy");
    await client.close();
  });

  it("DiscoverResult listing only legacy versions: legacy, cached legacy; the next connect skips the probe", async () => {
    const h = hostile("legacy-discover");
    const client = await ContextClient.connect(h.transport, h.options);
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-06-18");
    expect(client.negotiation.outcome).toBe("legacy_only_versions");
    expect(h.eraCache.get(h.key)?.era).toBe("legacy");
    await client.close();
    const again = await ContextClient.connect(h.transport, h.options);
    expect(again.negotiation).toMatchObject({ outcome: "cached_legacy", probes: 0, fromCache: true });
    expect(again.protocolVersion).toBe("2025-06-18");
    await again.close();
  });
});
