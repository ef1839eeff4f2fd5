/**
 * Hostile servers against our ContextClient (real processes through the Node adapter). Figures are
 * printed as `FIGURE | …` lines.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnProcess } from "../../adapters/node/mod.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { MessageTooLargeError, ProcessExitedError } from "../../src/wire/errors.ts";
import { ROOT } from "../fixtures/ours/build_dist.ts";
import { MiB, record } from "./target.ts";

const HOSTILE = join(ROOT, "test/fixtures/faults/hostile_server.mjs");
const dirs: string[] = [];
const clients: ContextClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function hostile(mode: string, extraEnv: Record<string, string> = {}) {
  return spawnProcess(process.execPath, [HOSTILE], {
    env: { ...process.env, FAULT_MODE: mode, ...extraEnv },
  });
}
async function connect(
  mode: string,
  options: Parameters<typeof ContextClient.connect>[1] = {},
  env: Record<string, string> = {},
) {
  const client = await ContextClient.connect(hostile(mode, env), {
    era: "legacy",
    eraCache: new EraCache(),
    ...options,
  });
  clients.push(client);
  return client;
}
const call = (client: ContextClient, n: number) =>
  client.request("tools/call", { name: "t", arguments: { n } }) as Promise<{ content: { text: string }[] }>;

describe("ContextClient under hostile servers", () => {
  it("a server SIGKILLed mid-message: pending requests rejected at once with signal and stderr tail; reconnect works", async () => {
    const dir = mkdtempSync(join(tmpdir(), "omc-fault-"));
    dirs.push(dir);
    const once = join(dir, "once");
    const client = await connect("sigkill", {}, { FAULT_ONCE_FILE: once });
    const started = performance.now();
    const results = await Promise.allSettled([call(client, 1), call(client, 2), call(client, 3)]);
    const elapsed = performance.now() - started;
    for (const r of results) {
      expect(r.status).toBe("rejected");
      const error = (r as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(ProcessExitedError);
      expect(error.signal).toBe("SIGKILL");
      expect(error.stderrTail).toContain("about to die mid-message");
    }
    record(
      "server SIGKILLed mid-message",
      "pending requests rejected after",
      `${elapsed.toFixed(0)} ms`,
      "at once (no timeout)",
    );
    expect(existsSync(once)).toBe(true);
    const again = await connect("sigkill", {}, { FAULT_ONCE_FILE: once });
    expect((await call(again, 7)).content[0]!.text).toBe("ok 7");
  });

  it("a server writing 50 MB to stderr never blocks the client; the tail is kept", async () => {
    const client = await connect("stderr");
    const started = performance.now();
    for (let i = 0; i < 3; i++) expect((await call(client, i)).content[0]!.text).toBe(`ok ${i}`);
    record(
      "server writes 3 × 50 MB of stderr",
      "3 calls answered in",
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
      "never blocks",
    );
  });

  it("a server sending 1 GB without a newline: a typed error, bounded client memory, the next line processed", async () => {
    const reports: Error[] = [];
    const before = process.memoryUsage();
    let peak = before.rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const client = await connect("gigabyte", { onReport: (e) => reports.push(e) });
    const result = await call(client, 1);
    clearInterval(sampler);
    expect(result.content[0]!.text).toBe("ok 1");
    expect(reports.some((e) => (e as { code?: string }).code === "message_too_large")).toBe(true);
    const growth = peak - before.rss;
    record(
      "server sends 1 GB without a newline → client",
      "client RSS growth (incl. uncollected garbage)",
      `${(growth / MiB).toFixed(1)} MiB`,
      "16 MiB limit + chunk + GC slack < 96 MiB",
    );
    expect(growth).toBeLessThan(96 * MiB);
  });

  it("a 20 MB reply over the client's maxMessageBytes: that request rejects with size and limit, and the connection stays usable", async () => {
    const reports: Error[] = [];
    const client = await connect("huge-reply", { onReport: (e) => reports.push(e) });
    const started = performance.now();
    const error = await call(client, 1).then(() => undefined, (e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(MessageTooLargeError);
    const tooLarge = error as MessageTooLargeError;
    expect(tooLarge.limitBytes).toBe(16 * MiB);
    expect(tooLarge.sizeBytes).toBeGreaterThan(16 * MiB);
    expect(tooLarge.message).toMatch(/16777216 bytes/);
    expect(reports.some((e) => (e as { code?: string }).code === "message_too_large")).toBe(true);
    record(
      "server answers with a 20 MB reply → client (16 MiB limit)",
      "that request",
      `rejected after ${elapsed.toFixed(0)} ms: ${tooLarge.message}`,
      "typed error, never a hang",
    );
    await expect(call(client, 2)).rejects.toBeInstanceOf(MessageTooLargeError);
  });

  it("a 20 MB reply whose id comes after the result: every pending request fails with that error and the connection closes", async () => {
    const client = await connect("huge-reply", {}, { FAULT_ID_LAST: "1" });
    const results = await Promise.allSettled([call(client, 1), call(client, 2)]);
    for (const r of results) {
      expect(r.status).toBe("rejected");
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(MessageTooLargeError);
    }
    record(
      "server answers with a 20 MB reply, id after the result → client",
      "pending requests",
      "all rejected with MessageTooLargeError; connection closed",
      "never a hang",
    );
  });

  it("garbage of every kind from the server: each reported once, replies still matched", async () => {
    const reports: Error[] = [];
    const client = await connect("garbage", { onReport: (e) => reports.push(e) });
    for (let i = 0; i < 3; i++) expect((await call(client, i)).content[0]!.text).toBe(`ok ${i}`);
    // Per call: non-JSON, invalid UTF-8, unknown id, batch, error without id, error with null id, deep array.
    expect(reports.length).toBe(3 * 7);
    record(
      "server sends garbage around every reply",
      "reports per bad line; calls answered",
      `${(reports.length / 3).toFixed(0)} per call of 7 bad lines; 3 of 3`,
      "1 each; all",
    );
  });

  it("a server that exits on any request before initialize: auto mode connects legacy through a respawn", async () => {
    const dir = mkdtempSync(join(tmpdir(), "omc-fault-"));
    dirs.push(dir);
    const client = await ContextClient.connect(
      hostile("pre-init-exit", { FAULT_ONCE_FILE: join(dir, "once") }),
      { era: "auto", eraCache: new EraCache() },
    );
    clients.push(client);
    expect(client.era).toBe("legacy");
    expect(client.negotiation.respawned).toBe(true);
    expect((await call(client, 5)).content[0]!.text).toBe("ok 5");
    record(
      "server exits before initialize",
      "auto-mode connect",
      `legacy via respawn in ${client.negotiation.elapsedMs.toFixed(0)} ms`,
      "≤ connectTimeout 30 s",
    );
  });
});
