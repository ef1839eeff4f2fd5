/**
 * Three everything replicas (`server.mjs --http PORT --redis URL`) behind nginx with no session pin
 * (round robin, examples/deploy without --sessions) and a real redis-server: legacy sessions live in
 * Redis, so every request of a session may land on any replica. One replica is SIGKILLed under load:
 * no "session not found", no re-initialization; at most the calls in flight on it fail (nginx 502).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, type Deployment } from "../../examples/deploy/run.mjs";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { httpTransport } from "../../src/http/client/http_client_transport.ts";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";
import { type RedisServer, startRedisServer } from "./fixtures/redis_server.ts";

let redis: RedisServer;
let deployment: Deployment;
let logs = "";

beforeAll(async () => {
  ensureDist(); // the everything server imports the package's dist/
  redis = await startRedisServer();
  deployment = await deploy({
    replicas: 3,
    command: [
      process.execPath,
      join(ROOT, "examples/everything/server.mjs"),
      "--redis",
      `redis://127.0.0.1:${redis.port}`,
    ],
    upstreamKeepaliveTimeoutSeconds: 1,
    log: (text: string) => (logs += text),
  });
});

afterAll(async () => {
  await deployment?.stop();
  await redis?.kill();
});

/** The replica port of each access-log line, in order. */
function upstreamPorts(): string[] {
  const log = readFileSync(join(deployment.nginx.prefix, "access.log"), "utf8");
  return [...log.matchAll(/upstream=(\S+)/g)].map((m) => m[1]!.split(",").at(-1)!.trim().split(":").at(-1)!);
}

describe("legacy sessions across three replicas without pinning (Redis session store)", () => {
  it("serves each session on every replica and survives a SIGKILL with zero 'session not found'", async () => {
    const reports: Error[] = [];
    const clients = await Promise.all(
      Array.from({ length: 4 }, () =>
        ContextClient.connect(httpTransport(`${deployment.url}/mcp`), {
          era: "legacy",
          eraCache: new EraCache(),
          onReport: (error) => reports.push(error),
        })),
    );
    const r2 = deployment.replicas.find((r) => r.name === "r2")!;
    let killed: Promise<unknown> | undefined;
    let calls = 0;
    const failures: string[] = [];
    const after: string[] = [];
    await Promise.all(clients.map(async (client, c) => {
      for (let i = 0; i < 40; i++) {
        const n = calls++;
        if (n === 60) killed = r2.stop("SIGKILL");
        try {
          const result = await client.callTool("test_simple_text", {});
          expect(JSON.stringify(result.content)).toContain("simple text");
          if (killed) after.push(`${c}.${i}`);
        } catch (error) {
          failures.push(`${c}.${i}: ${(error as Error).message}`);
        }
      }
    }));
    expect(await killed).toEqual({ code: null, signal: "SIGKILL" });
    const sessionLost = [...failures, ...reports.map((e) => e.message)].filter((m) =>
      /session not found|forgot session|404/i.test(m)
    );
    expect(sessionLost, logs.slice(-2000)).toEqual([]);
    expect(failures.length, failures.join("\n")).toBeLessThanOrEqual(clients.length); // in flight on r2 at most
    expect(after.length).toBeGreaterThan(50);
    // Round robin really spread each session's requests: every replica answered some.
    const ports = new Set(upstreamPorts());
    for (const replica of deployment.replicas) expect(ports.has(String(replica.port))).toBe(true);
    await Promise.all(clients.map((client) => client.close()));
  });
});
