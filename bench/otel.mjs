#!/usr/bin/env node
/**
 * OpenTelemetry's cost on the server (issue 26 "Measure"): server CPU per call of the HTTP benchmark
 * server (modern tools/call echo, 64 in flight, bench/http/load.mjs) in three processes of one run,
 * interleaved in slices so a shared machine's load falls on all alike:
 *   none: no OpenTelemetry at all;  api: @opentelemetry/api loaded, no SDK registered;
 *   sdk: the stock Node SDK exporting every span (batch processor) and the metrics (every 1 s) over
 *        OTLP/HTTP JSON to a sink in this process that answers 200 and drops the bodies.
 * Prints a Markdown table: µs of server CPU per call (median of --reps, and the range), and each
 * ratio of throughput per CPU against "none" (1.0 = free), of the medians and of the best slices
 * (on a shared machine contention only adds CPU per call, so the best slice is the least disturbed); then the spans the sink received against
 * the sdk server's calls (every span is exported: a shortfall is a span the SDK dropped).
 * `--modes` adds the explanatory modes of bench/http/otel_server.mjs (ctx, sdk-notrace); `--node`
 * runs the servers under another Node (the load stays in this process).
 *
 *   npm run build && node bench/otel.mjs [--reps=5] [--duration=2000] [--inflight=64]
 *     [--modes=none,api,sdk] [--node=PATH] [--sink=URL] [--warmup=10000 (ms per server: the JIT settles)]
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { readCpuAndIo } from "./lib/proc_memory.mjs";

/** Minor page faults of a process so far (/proc/<pid>/stat field 10). */
function minorFaults(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[7]);
}

/** CPU ms of a process's main thread (the JS thread; the rest is GC helpers, the JIT, libuv's pool). */
function mainThreadCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in ticks of 10 ms
}
import { median } from "./lib/stats.mjs";
import { openLoad } from "./http/load.mjs";
import { option, otelServerEnv } from "./lib/otel_bench.mjs";

const reps = Number(option("reps", 5));
const durationMs = Number(option("duration", 2000));
const inFlight = Number(option("inflight", 64));
const MODES = option("modes", "none,api,sdk").split(",");
const nodePath = option("node", process.execPath);
const warmupMs = Number(option("warmup", 10_000));
const log = (...parts) => process.stderr.write(`${parts.join(" ")}\n`);

let exported = 0;
const traceBodies = [];
const sink = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => {
    exported += chunk.length;
    if (req.url === "/v1/traces") chunks.push(chunk);
  }).on("end", () => {
    if (chunks.length > 0) traceBodies.push(Buffer.concat(chunks)); // counted after the run
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise((resolve) => sink.listen(0, "127.0.0.1", resolve));
// --sink=URL: export to a sink elsewhere (another process) instead; its spans are not counted here.
const endpoint = option("sink", `http://127.0.0.1:${sink.address().port}`);

/** bench/http/otel_server.mjs in `mode` under `nodePath`; resolves with `{ child, url, stop }`. */
async function startServer(env) {
  const path = fileURLToPath(new URL("./http/otel_server.mjs", import.meta.url));
  const child = spawn(nodePath, [path], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`otel_server.mjs exited (${code})`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { child, url, stop: () => (child.kill("SIGTERM"), exited) };
}

const servers = {};
const served = Object.fromEntries(MODES.map((m) => [m, 0]));
for (const mode of MODES) {
  servers[mode] = await startServer(otelServerEnv(mode, endpoint));
}
const loads = Object.fromEntries(
  MODES.map((m) => [m, openLoad(servers[m].url, { connections: inFlight, era: "modern" })]),
);
for (const mode of MODES) served[mode] += (await loads[mode].run(warmupMs)).completed; // warm up

const samples = Object.fromEntries(MODES.map((m) => [m, []]));
const mainSamples = Object.fromEntries(MODES.map((m) => [m, []]));
const faultSamples = Object.fromEntries(MODES.map((m) => [m, []]));
for (let rep = 0; rep < reps; rep++) {
  for (const mode of rep % 2 === 0 ? MODES : [...MODES].reverse()) {
    const pid = servers[mode].child.pid;
    const before = readCpuAndIo(pid).cpuMs;
    const mainBefore = mainThreadCpuMs(pid);
    const faultsBefore = minorFaults(pid);
    const { completed } = await loads[mode].run(durationMs);
    served[mode] += completed;
    const after = readCpuAndIo(pid).cpuMs;
    samples[mode].push(((after - before) * 1000) / completed);
    mainSamples[mode].push(((mainThreadCpuMs(pid) - mainBefore) * 1000) / completed);
    faultSamples[mode].push((minorFaults(pid) - faultsBefore) / completed);
    log(`rep ${rep + 1} ${mode}: ${completed} calls, ${samples[mode].at(-1).toFixed(1)} µs CPU per call`);
  }
}
for (const mode of MODES) {
  await loads[mode].close();
  await servers[mode].stop();
}
sink.close();

const base = median(samples.none);
const nodeVersion = await new Promise((resolve) => {
  const child = spawn(nodePath, ["--version"], { stdio: ["ignore", "pipe", "inherit"] });
  let text = "";
  child.stdout.on("data", (c) => (text += c)).on("end", () => resolve(text.trim().slice(1)));
});
console.log(
  `| server (HTTP, modern tools/call, ${inFlight} in flight, Node ${nodeVersion}) | µs CPU per call (range) | calls per CPU vs none | best slices vs none | main thread µs per call | page faults per call |`,
);
console.log("|---|---:|---:|---:|---:|---:|");
// Contention only adds CPU per call: the best slice of each mode is the least disturbed one.
const best = (mode) => Math.min(...samples[mode]);
for (const mode of MODES) {
  const us = median(samples[mode]);
  const range = `${Math.min(...samples[mode]).toFixed(1)}–${Math.max(...samples[mode]).toFixed(1)}`;
  console.log(
    `| ${mode} | ${us.toFixed(1)} (${range}) | ${(base / us).toFixed(2)}× | ${
      (best("none") / best(mode)).toFixed(2)
    }× | ${median(mainSamples[mode]).toFixed(1)} | ${median(faultSamples[mode]).toFixed(2)} |`,
  );
}
// Spans in the OTLP JSON bodies: resourceSpans[].scopeSpans[].spans[].
let spans = 0;
for (const body of traceBodies) {
  for (const r of JSON.parse(body).resourceSpans ?? []) {
    for (const s of r.scopeSpans ?? []) spans += s.spans.length;
  }
}
const tracing = MODES.filter((m) => m === "sdk").map((m) => served[m]).reduce((a, b) => a + b, 0);
console.log(
  `\nOTLP bytes received by the sink: ${exported}; spans: ${spans} in ${traceBodies.length} exports, of the sdk server's ${tracing} calls`,
);
