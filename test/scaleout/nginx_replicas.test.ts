/**
 * examples/deploy/run.mjs with three stand-in replicas behind a real nginx (Debian's, in the
 * foreground with its own prefix directory), the replicas sharing events through a real redis-server:
 * round robin with upstream keep-alive, an SSE stream that arrives incrementally, the legacy session
 * pin, the listen bus across processes, and a replica SIGTERMed under load with no failed request.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningNginx, startNginx } from "../../examples/deploy/deploy_kit.mjs";
import { deploy, type Deployment } from "../../examples/deploy/run.mjs";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";
import { type RedisServer, startRedisServer } from "./fixtures/redis_server.ts";

const STAND_IN = join(ROOT, "test/scaleout/fixtures/stand_in_replica.mjs");
const NAMES = ["r1", "r2", "r3"];

let redis: RedisServer;
let deployment: Deployment;
let pinned: RunningNginx | undefined;
let logs = "";

/** fetch with a bound, so that a hang fails the test with the URL instead of timing it out. */
function get(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(10_000) });
}

/** Reads SSE `data:` payloads from a response body, one JSON value per call. */
function sseReader(
  response: Response,
): { read: () => Promise<Record<string, unknown>>; cancel: () => Promise<void> } {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const read = async () => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join(
          "\n",
        );
        if (data) return JSON.parse(data) as Record<string, unknown>;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`The stream ended; unread: ${JSON.stringify(buffer)}`);
      buffer += value;
    }
  };
  return { read, cancel: () => reader.cancel() };
}

function replicaUrl(name: string): string {
  const replica = deployment.replicas.find((r) => r.name === name);
  if (!replica) throw new Error(`No replica ${name}`);
  return `http://127.0.0.1:${replica.port}`;
}

beforeAll(async () => {
  ensureDist(); // the stand-in replicas import dist/
  redis = await startRedisServer();
  deployment = await deploy({
    replicas: 3,
    command: [process.execPath, STAND_IN],
    env: { REDIS_PORT: String(redis.port), DRAIN_IDLE_MS: "1500" }, // above the 1 s upstream keepalive_timeout
    prefix: mkdtempSync(join(tmpdir(), "onemodelcontext-nginx-")),
    upstreamKeepaliveTimeoutSeconds: 1,
    log: (text) => (logs += text),
  });
});

afterAll(async () => {
  await pinned?.stop();
  await deployment?.nginx.stop();
  await deployment?.stop();
  await redis?.kill();
});

describe("three replicas behind nginx", () => {
  it("answers requests round robin, over upstream connections kept alive", async () => {
    const answers: { replica: string; connectionRequests: number }[] = [];
    for (let i = 0; i < 9; i++) answers.push(await (await get(`${deployment.url}/id`)).json());
    const counts = Object.fromEntries(
      NAMES.map((name) => [name, answers.filter((a) => a.replica === name).length]),
    );
    expect(counts).toEqual({ r1: 3, r2: 3, r3: 3 });
    expect(Math.max(...answers.map((a) => a.connectionRequests))).toBeGreaterThan(1);
  });

  it("passes an SSE stream through as it is written (proxy_buffering off)", async () => {
    const gate = crypto.randomUUID();
    const response = await get(`${deployment.url}/sse?gate=${gate}`);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const { read } = sseReader(response);
    const first = await read(); // arrives while the replica still holds the rest of the stream
    expect(first.part).toBe("first");
    const released = await get(`${replicaUrl(first.replica as string)}/release?gate=${gate}`, {
      method: "POST",
    });
    expect(released.status).toBe(200);
    expect(await read()).toEqual({ replica: first.replica, part: "second" });
  });

  it("carries a list change published on one replica to a listen stream held on another, through Redis", async () => {
    const response = await get(`${deployment.url}/listen`);
    const { read, cancel } = sseReader(response);
    const { hello } = (await read()) as { hello: string };
    const publisher = NAMES.find((name) => name !== hello)!;
    expect((await get(`${replicaUrl(publisher)}/publish?list=tools`, { method: "POST" })).status).toBe(200);
    expect(await read()).toEqual({ type: "list_changed", list: "tools", origin: publisher, at: hello });
    await cancel();
  });

  it("loses legacy sessions under round robin and under a hash of Mcp-Session-Id, and keeps each on its replica with the prefix pin", async () => {
    /** Opens `sessions` sessions through `base`, then sends three requests in each: who owns them, and how many missed. */
    const check = async (base: string, sessions = 3) => {
      let misses = 0;
      const owners = new Set<string>();
      for (let i = 0; i < sessions; i++) {
        const created = await get(`${base}/session`, { method: "POST" });
        const id = created.headers.get("mcp-session-id")!;
        const owner = ((await created.json()) as { replica: string }).replica;
        expect(id.startsWith(`${owner}.`)).toBe(true);
        owners.add(owner);
        for (let j = 0; j < 3; j++) {
          const reply = await get(`${base}/session`, { headers: { "Mcp-Session-Id": id } });
          const body = (await reply.json()) as { replica: string };
          if (reply.status === 404) misses++;
          else expect(body.replica).toBe(owner);
        }
      }
      return { misses, owners: owners.size };
    };
    expect((await check(deployment.url)).misses).toBeGreaterThan(0);
    // hash $http_mcp_session_id: initialize carries no id (an empty key: nginx falls back to round robin),
    // and the id minted there hashes to whichever replica its hash picks, the owner or not.
    pinned = await startNginx({
      prefix: mkdtempSync(join(tmpdir(), "onemodelcontext-nginx-hash-")),
      replicas: deployment.replicas,
      sessions: "hash",
      upstreamKeepaliveTimeoutSeconds: 1,
    });
    expect((await check(pinned.url, 6)).misses).toBeGreaterThan(0);
    await pinned.stop();
    pinned = await startNginx({
      prefix: mkdtempSync(join(tmpdir(), "onemodelcontext-nginx-pin-")),
      replicas: deployment.replicas,
      sessions: true,
      upstreamKeepaliveTimeoutSeconds: 1,
    });
    expect(await check(pinned.url)).toEqual({ misses: 0, owners: 3 });
    await pinned.stop();
  });

  it("fails no request when a replica is SIGTERMed under load, and the replica exits 0", async () => {
    const total = 600;
    const workers = 16;
    let started = 0;
    let ok = 0;
    const failures: string[] = [];
    const after: string[] = [];
    let terminated: Promise<unknown> | undefined;
    const r2 = deployment.replicas.find((r) => r.name === "r2")!;
    const worker = async () => {
      while (started < total) {
        const n = started++;
        try {
          const reply = await get(`${deployment.url}/id?delay=10`, {
            method: n % 2 ? "POST" : "GET",
            body: n % 2 ? "{}" : undefined,
          });
          const text = await reply.text();
          if (reply.status !== 200) {
            failures.push(`${n}: HTTP ${reply.status} ${text.slice(0, 80)}`);
            continue;
          }
          ok++;
          if (terminated) after.push((JSON.parse(text) as { replica: string }).replica);
        } catch (error) {
          failures.push(`${n}: ${String(error)}`);
        }
        if (n === 60) terminated = r2.stop("SIGTERM");
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    expect(failures).toEqual([]);
    expect(ok).toBe(total);
    expect(await terminated).toEqual({ code: 0, signal: null });
    expect(after.filter((name) => name !== "r2").length).toBeGreaterThan(100);
  });
});

describe("node examples/deploy/run.mjs", () => {
  it("serves through nginx until SIGTERM, then stops nginx and every replica and exits 0", async () => {
    const child = spawn(process.execPath, [
      join(ROOT, "examples/deploy/run.mjs"),
      "--replicas",
      "2",
      "--",
      process.execPath,
      STAND_IN,
    ], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, DRAIN_IDLE_MS: "1500" },
    });
    let output = "";
    child.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        const match = /MCP endpoint: (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      void exited.then((code) =>
        reject(new Error(`run.mjs exited (${code}) before serving: ${stdout}${output}`))
      );
    });
    const replicas = new Set<string>();
    for (let i = 0; i < 4; i++) {
      replicas.add(
        ((await (await get(`${url}/id`, { headers: { Connection: "close" } })).json()) as { replica: string })
          .replica,
      );
    }
    expect([...replicas].sort()).toEqual(["r1", "r2"]);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    await expect(get(`${url}/id`)).rejects.toThrow();
  });

  it("refuses an unknown option with exit code 2, naming it", () => {
    const result = spawnSync(process.execPath, [join(ROOT, "examples/deploy/run.mjs"), "--replica", "2"], {
      encoding: "utf8",
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Unknown option "--replica"');
  });
});
