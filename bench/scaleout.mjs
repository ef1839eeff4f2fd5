#!/usr/bin/env node
/**
 * Scale-out figures: modern-era tool calls (`test_simple_text`, one POST each) through nginx in front
 * of 1 and 3 replicas of the everything server (examples/deploy/run.mjs), and of 3 replicas of the
 * official SDK 2.4 `createMcpHandler` on node:http (bench/peers/sdk2_http_replica.mjs), behind the same
 * nginx configuration. Per setup: calls/s, p50 and p99 over `--duration` ms from `--workers` concurrent
 * callers (fetch in this process); then, on 3 replicas, ok/failed of `--calls` calls from 16 callers
 * across a SIGTERM and across a SIGKILL of one replica (after a tenth of the calls).
 *
 *   npx tsc -p tsconfig.build.json && node bench/scaleout.mjs [--duration=3000] [--workers=32] [--calls=600] [--only=ours1,ours3,sdk2]
 *
 * Needs nginx (Debian's) on PATH or at /usr/sbin/nginx. Prints a Markdown table on stdout.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { deploy } from "../examples/deploy/run.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const hit = argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
};
const durationMs = Number(option("duration", 3000));
const workers = Number(option("workers", 32));
const calls = Number(option("calls", 600));
const only = new Set(option("only", "ours1,ours3,sdk2").split(","));
const log = (line) => process.stderr.write(`${line}\n`);
const SDK2 = [process.execPath, fileURLToPath(new URL("./peers/sdk2_http_replica.mjs", import.meta.url))];
const MODERN = "2026-07-28";
let nextId = 1;

async function call(url) {
  const body = {
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { name: "test_simple_text", arguments: {}, _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} } },
  };
  const reply = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "test_simple_text" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await reply.text();
  if (reply.status !== 200 || !text.includes("simple text")) throw new Error(`HTTP ${reply.status}: ${text.slice(0, 120)}`);
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

const setups = [
  { key: "ours1", name: "onemodelcontext, 1 replica", replicas: 1 },
  { key: "ours3", name: "onemodelcontext, 3 replicas", replicas: 3 },
  { key: "sdk2", name: "SDK 2.4 createMcpHandler, 3 replicas", replicas: 3, command: SDK2 },
].filter((s) => only.has(s.key));

const rows = [];
for (const setup of setups) {
  const options = { replicas: setup.replicas, command: setup.command, stateKey: randomBytes(32).toString("hex"), log: () => {} };
  log(`${setup.name}: throughput for ${durationMs} ms, ${workers} callers`);
  let deployment = await deploy(options);
  let figures;
  try {
    figures = await throughput(`${deployment.url}/mcp`);
  } finally {
    await deployment.stop();
  }
  let sigterm = { ok: "", failed: "" };
  let sigkill = { ok: "", failed: "" };
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
  rows.push(`| ${setup.name} | ${figures.rate.toFixed(0)}${figures.failed ? ` (${figures.failed} failed)` : ""} | ${figures.p50.toFixed(1)} | ${figures.p99.toFixed(1)} | ${sigterm.ok} / ${sigterm.failed} | ${sigkill.ok} / ${sigkill.failed} |`);
  log(rows.at(-1));
}
console.log(`Modern tool calls through nginx (${workers} concurrent callers for ${durationMs} ms; ${calls} calls from 16 callers across each signal)\n`);
console.log("| setup | calls/s | p50 ms | p99 ms | SIGTERM ok / failed | SIGKILL ok / failed |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
