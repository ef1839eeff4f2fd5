/**
 * Three replicas of the everything server (`node examples/everything/server.mjs --http PORT`) behind
 * nginx, started by examples/deploy/run.mjs: modern-era tool calls spread round robin (nginx's access
 * log names the replica of each), a replica SIGKILLed under load fails only the calls in flight on it,
 * and a replica SIGTERMed under load fails none (serve stops listening, answers what still comes on open
 * connections with `Connection: close`, and lets idle ones end after its keepAliveTimeout).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Deployment, deploy } from "../../examples/deploy/run.mjs";
import { ensureDist } from "../fixtures/ours/build_dist.ts";

const MODERN = "2026-07-28";
let deployment: Deployment;
let logs = "";
let nextId = 1;

/** One modern-era tools/call through nginx, as a client sends it (headers derived from the body). */
async function callTool(url: string, name: string, args: Record<string, unknown> = {}): Promise<Response> {
  const body = {
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { name, arguments: args, _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} } },
  };
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": name },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

/** The replica port of each access-log line, in order. */
function upstreamPorts(): string[] {
  const log = readFileSync(join(deployment.nginx.prefix, "access.log"), "utf8");
  return [...log.matchAll(/upstream=(\S+)/g)].map((m) => m[1]!.split(",").map((a) => a.trim().split(":").at(-1)).join(">"));
}

beforeAll(async () => {
  ensureDist(); // the everything server imports the package's dist/
  deployment = await deploy({ replicas: 3, upstreamKeepaliveTimeoutSeconds: 1, log: (text) => (logs += text) });
});

afterAll(async () => {
  await deployment?.stop();
});

describe("three everything replicas behind nginx", () => {
  it("answers modern tool calls round robin across the replicas", async () => {
    for (let i = 0; i < 6; i++) {
      const reply = await callTool(`${deployment.url}/mcp`, "test_simple_text");
      expect(reply.status).toBe(200);
      expect(((await reply.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text).toContain("simple text");
    }
    const ports = upstreamPorts().slice(-6);
    const counts = Object.fromEntries(deployment.replicas.map((r) => [r.name, ports.filter((p) => p === String(r.port)).length]));
    expect(counts, logs).toEqual({ r1: 2, r2: 2, r3: 2 });
  });

  /** `total` tool calls from `workers` concurrent callers; `onCall(n)` runs after call n. */
  async function load(total: number, workers: number, onCall: (n: number) => void) {
    let started = 0;
    let ok = 0;
    const failures: { n: number; status: number | undefined; text: string }[] = [];
    const worker = async () => {
      while (started < total) {
        const n = started++;
        try {
          const reply = await callTool(`${deployment.url}/mcp`, "test_simple_text");
          const text = await reply.text();
          if (reply.status === 200 && text.includes('"result"')) ok++;
          else failures.push({ n, status: reply.status, text: text.slice(0, 120) });
        } catch (error) {
          failures.push({ n, status: undefined, text: String(error) });
        }
        onCall(n);
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    return { ok, failures };
  }

  it("fails no tool call when a replica is SIGTERMed under load, and the replica exits 0", async () => {
    let terminated: Promise<unknown> | undefined;
    const r2 = deployment.replicas.find((r) => r.name === "r2")!;
    const { ok, failures } = await load(600, 16, (n) => {
      if (n === 60) terminated = r2.stop("SIGTERM");
    });
    expect(failures, logs).toEqual([]);
    expect(ok).toBe(600);
    expect(await terminated).toEqual({ code: 0, signal: null });
  });

  it("fails at most the calls in flight on a replica SIGKILLed under load, each with nginx's 502, and serves the rest", async () => {
    let killed: Promise<unknown> | undefined;
    const r3 = deployment.replicas.find((r) => r.name === "r3")!;
    const workers = 16;
    const { ok, failures } = await load(240, workers, (n) => {
      if (n === 40) killed = r3.stop("SIGKILL");
    });
    expect(await killed).toEqual({ code: null, signal: "SIGKILL" });
    expect(failures.length).toBeLessThanOrEqual(workers); // one call in flight per worker at most
    for (const failure of failures) expect(failure.status, failure.text).toBe(502); // a POST already sent is not repeated
    expect(ok + failures.length).toBe(240);
  });
});
