#!/usr/bin/env node
/**
 * Scale-out figures: modern-era tool calls (`test_simple_text`, one POST each) through nginx in front
 * of 1 and 3 replicas of the everything server (examples/deploy/run.mjs), and of 3 replicas of the
 * official SDK 2.4 `createMcpHandler` on node:http (bench/peers/sdk2_http_replica.mjs), behind the same
 * nginx configuration. Per setup: calls/s, p50 and p99 over `--duration` ms from `--workers` concurrent
 * callers (fetch in this process); then, on 3 replicas, ok/failed of `--calls` calls from 16 callers
 * across a SIGTERM and across a SIGKILL of one replica (after a tenth of the calls). Then listen
 * streams (`listen`): three of our replicas sharing a redis-server (`--redis`), our client's
 * `listen()` through nginx: how long a tool-list change made on another replica takes to reach it
 * over Redis, and how long the stream takes to reopen (`resync`) after its replica is SIGKILLed or
 * SIGTERMed.
 *
 *   npx tsc -p tsconfig.build.json && node bench/scaleout.mjs [--duration=3000] [--workers=32] [--calls=600] [--only=ours1,ours3,sdk2,listen]
 *
 * Needs nginx (Debian's, at /usr/sbin/nginx or NGINX_PATH), and redis-server (/usr/bin/redis-server or
 * REDIS_SERVER_PATH) for the listen rows; without them it prints why it skips and exits 0. Prints
 * Markdown tables on stdout (bench/run.mjs appends them to its report unless --no-scaleout).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, NGINX, waitForPort } from "../examples/deploy/deploy_kit.mjs";
import { deploy } from "../examples/deploy/run.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const hit = argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
};
const durationMs = Number(option("duration", 3000));
const workers = Number(option("workers", 32));
const calls = Number(option("calls", 600));
const only = new Set(option("only", "ours1,ours3,sdk2,listen").split(","));
const log = (line) => process.stderr.write(`${line}\n`);
const SDK2 = [process.execPath, fileURLToPath(new URL("./peers/sdk2_http_replica.mjs", import.meta.url))];
const MODERN = "2026-07-28";
let nextId = 1;

async function call(url) {
  const body = {
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: {
      name: "test_simple_text",
      arguments: {},
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
  const reply = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": MODERN,
      "Mcp-Method": "tools/call",
      "Mcp-Name": "test_simple_text",
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await reply.text();
  if (reply.status !== 200 || !text.includes("simple text")) {
    throw new Error(`HTTP ${reply.status}: ${text.slice(0, 120)}`);
  }
}

async function throughput(url) {
  for (let i = 0; i < 200; i++) await call(url); // warm up (JIT, keep-alive connections)
  const latencies = [];
  let failed = 0;
  const end = performance.now() + durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await call(url);
        latencies.push(performance.now() - t0);
      } catch {
        failed++;
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: workers }, worker));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rate: latencies.length / seconds, p50: at(0.5), p99: at(0.99), failed };
}

async function across(url, replica, signal) {
  let started = 0;
  let ok = 0;
  let failed = 0;
  let stopped;
  const worker = async () => {
    while (started < calls) {
      const n = started++;
      try {
        await call(url);
        ok++;
      } catch {
        failed++;
      }
      if (n === Math.floor(calls / 10)) stopped = replica.stop(signal);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await stopped;
  return { ok, failed };
}

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";
console.log("### Scale-out: replicas behind nginx (bench/scaleout.mjs)\n");
if (!existsSync(NGINX)) {
  console.log(
    `Scale-out section skipped: nginx is not installed at ${NGINX} (apt-get install -y nginx, or set NGINX_PATH).`,
  );
  process.exit(0);
}

const setups = [
  { key: "ours1", name: "onemodelcontext, 1 replica", replicas: 1 },
  { key: "ours3", name: "onemodelcontext, 3 replicas", replicas: 3 },
  { key: "sdk2", name: "SDK 2.4 createMcpHandler, 3 replicas", replicas: 3, command: SDK2 },
].filter((s) => only.has(s.key));

const rows = [];
for (const setup of setups) {
  const options = {
    replicas: setup.replicas,
    command: setup.command,
    stateKey: randomBytes(32).toString("hex"),
    log: () => {},
  };
  log(`${setup.name}: throughput for ${durationMs} ms, ${workers} callers`);
  let deployment = await deploy(options);
  let figures;
  try {
    figures = await throughput(`${deployment.url}/mcp`);
  } finally {
    await deployment.stop();
  }
  let sigterm = { ok: "—", failed: "—" };
  let sigkill = { ok: "—", failed: "—" };
  if (setup.replicas > 1) {
    for (const signal of ["SIGTERM", "SIGKILL"]) {
      log(`${setup.name}: ${calls} calls across a ${signal}`);
      deployment = await deploy(options);
      try {
        const counts = await across(`${deployment.url}/mcp`, deployment.replicas[1], signal);
        if (signal === "SIGTERM") sigterm = counts;
        else sigkill = counts;
      } finally {
        await deployment.stop();
      }
    }
  }
  rows.push(
    `| ${setup.name} | ${figures.rate.toFixed(0)}${figures.failed ? ` (${figures.failed} failed)` : ""} | ${
      figures.p50.toFixed(1)
    } | ${figures.p99.toFixed(1)} | ${sigterm.ok} / ${sigterm.failed} | ${sigkill.ok} / ${sigkill.failed} |`,
  );
  log(rows.at(-1));
}
if (rows.length > 0) {
  console.log(
    `Modern tool calls through nginx (${workers} concurrent callers for ${durationMs} ms; ${calls} calls from 16 callers across each signal)\n`,
  );
  console.log("| setup | calls/s | p50 ms | p99 ms | SIGTERM ok / failed | SIGKILL ok / failed |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const row of rows) console.log(row);
}

if (only.has("listen")) {
  if (rows.length > 0) console.log("");
  if (!existsSync(REDIS_SERVER)) {
    console.log(
      `Listen streams across replicas skipped: redis-server is not installed at ${REDIS_SERVER} (apt-get install -y redis-server, or set REDIS_SERVER_PATH).`,
    );
  } else {
    const listen = await listenFigures();
    console.log(
      "Listen streams across replicas: our client's `listen({ tools: true })` through nginx in front of 3 of our replicas sharing one redis-server (`--redis`); the default `listenReconnect` (first wait 250 to 500 ms, jittered)\n",
    );
    console.log("| what | ms |");
    console.log("|---|---:|");
    console.log(
      `| tool-list change on another replica → event at the listen stream, over Redis (p50 / max of ${listen.changes.length}, from the tool call's start) | ${
        median(listen.changes).toFixed(1)
      } / ${Math.max(...listen.changes).toFixed(1)} |`,
    );
    console.log(
      `| SIGKILL of the replica holding the stream → \`resync\` from the stream reopened on another | ${
        listen.kill.toFixed(0)
      } |`,
    );
    console.log(
      `| SIGTERM of the replica holding the stream (graceful result) → \`resync\` | ${
        listen.term.toFixed(0)
      } |`,
    );
    console.log(
      `| legacy: SIGKILL of the replica of the listen's session (pinned) → \`resync\` on a new session (the GET stream's reconnection, 1 000 ms by default, then nginx's 404) | ${
        listen.legacy.toFixed(0)
      } |`,
    );
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "onemodelcontext-redis-"));
  const child = spawn(REDIS_SERVER, [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
    "--daemonize",
    "no",
    "--loglevel",
    "warning",
  ], { stdio: "ignore" });
  let gone = false;
  const exited = new Promise((resolve) => child.once("exit", () => resolve(gone = true)));
  await waitForPort(port, { what: "redis-server", exited: () => gone });
  return { port, stop: async () => void (gone || (child.kill("SIGKILL"), await exited)) };
}

/** Change latency over Redis, and reopen times after a SIGKILL and a SIGTERM of the stream's replica. */
async function listenFigures() {
  const { ContextClient } = await import("onemodelcontext");
  const { httpTransport } = await import("onemodelcontext/node");
  const server = fileURLToPath(new URL("../examples/everything/server.mjs", import.meta.url));
  const redis = await startRedis();
  let deployment;
  let client;
  try {
    log("listen: 3 replicas sharing redis-server, our client's listen() through nginx");
    deployment = await deploy({
      replicas: 3,
      command: [process.execPath, server, "--redis", `redis://127.0.0.1:${redis.port}`],
      upstreamHeader: true,
      log: () => {},
    });
    const listenPorts = [];
    const spy = async (input, init) => {
      const response = await fetch(input, init);
      if (new Headers(init?.headers).get("mcp-method") === "subscriptions/listen" && response.ok) {
        listenPorts.push(
          response.headers.get("x-upstream-addr")?.split(",").at(-1)?.trim().split(":").at(-1),
        );
      }
      return response;
    };
    client = await ContextClient.connect(httpTransport(`${deployment.url}/mcp`, { fetch: spy }), {
      eraCache: null,
      onReport: () => {},
    });
    const holder = () => deployment.replicas.find((r) => String(r.port) === listenPorts.at(-1));
    const next = async (stream, want) => {
      const { done, value } = await stream.next();
      if (done || value.type !== want) {
        throw new Error(`Expected ${want} from the listen stream, got ${done ? "its end" : value.type}`);
      }
    };
    const changes = client.listen({ tools: true });
    await changes.ready;
    const other = deployment.replicas.find((r) => r !== holder());
    const direct = await ContextClient.connect(httpTransport(`http://127.0.0.1:${other.port}/mcp`), {
      eraCache: null,
      onReport: () => {},
    });
    const latencies = [];
    for (let i = 0; i < 21; i++) {
      const t0 = performance.now();
      const arrived = next(changes, "toolsListChanged").then(() => performance.now() - t0);
      await direct.callTool("test_trigger_tool_change");
      const ms = await arrived;
      if (i > 0) latencies.push(ms); // the first warms up
    }
    await direct.close();
    const reopen = async (signal) => {
      const victim = holder();
      const t0 = performance.now();
      const stopped = victim.stop(signal);
      await next(changes, "resync");
      const ms = performance.now() - t0;
      await stopped;
      if (holder() === victim) throw new Error(`The listen stream reopened on the ${signal}ed replica`);
      return ms;
    };
    const kill = await reopen("SIGKILL");
    const term = await reopen("SIGTERM");
    await changes.close();
    await client.close();
    await deployment.stop();
    client = deployment = undefined;
    const legacy = await legacyReopen(server, redis.port, ContextClient, httpTransport);
    return { changes: latencies, kill, term, legacy };
  } finally {
    await client?.close();
    await deployment?.stop();
    await redis.stop();
  }
}

/** A legacy listen behind the session pin: from the SIGKILL of its session's replica to its `resync`. */
async function legacyReopen(server, redisPort, ContextClient, httpTransport) {
  log("listen: a legacy session pinned to a replica that is SIGKILLed");
  const deployment = await deploy({
    replicas: 3,
    sessions: true,
    command: [process.execPath, server, "--redis", `redis://127.0.0.1:${redisPort}`],
    log: () => {},
  });
  let client;
  try {
    let session;
    let getOpened;
    const getOpen = new Promise((resolve) => (getOpened = resolve));
    const spy = async (input, init) => {
      const response = await fetch(input, init);
      session ??= response.headers.get("mcp-session-id") ?? undefined;
      if (init?.method === "GET" && response.ok) getOpened();
      return response;
    };
    client = await ContextClient.connect(httpTransport(`${deployment.url}/mcp`, { fetch: spy }), {
      era: "legacy",
      eraCache: null,
      onReport: () => {},
    });
    const changes = client.listen({ tools: true });
    await changes.ready;
    await getOpen;
    const victim = deployment.replicas.find((r) => session?.startsWith(`${r.name}.`));
    const t0 = performance.now();
    const stopped = victim.stop("SIGKILL");
    const { done, value } = await changes.next();
    if (done || value.type !== "resync") {
      throw new Error(`Expected resync from the legacy listen stream, got ${done ? "its end" : value.type}`);
    }
    const ms = performance.now() - t0;
    await stopped;
    await changes.close();
    return ms;
  } finally {
    await client?.close();
    await deployment.stop();
  }
}
