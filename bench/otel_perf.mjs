#!/usr/bin/env node
/**
 * Where OpenTelemetry's cost goes over HTTP, measured in CPU time (issue 26 "Measure"): `perf record
 * -e cpu-clock` samples the bench/otel.mjs servers (bench/http/otel_server.mjs, modern tools/call
 * echo, 64 in flight) while each serves its load, in interleaved slices. Unlike `--cpu-prof`, whose
 * samples are wall-clock ticks (on a busy machine they land wherever the process was preempted,
 * mostly in the socket write that woke the load generator), a cpu-clock sample is CPU time of the
 * server, so µs per call come straight from the samples and hold on a shared machine.
 * Each sample goes to the nearest JavaScript caller from the leaf up (a package under node_modules/,
 * the library, the library's telemetry, the bench server), Node's JS internals and native code
 * counting for the caller that entered them; async_hooks / AsyncLocalStorage internals are their own
 * component (the context manager's tax on every promise and resource on Node 20), GC and kernel time
 * too. Samples with no JavaScript caller are "node (no JS caller)" (HTTP parsing, libuv, V8 itself).
 * Needs Linux `perf`; the servers run with --perf-basic-prof.
 *
 *   npm run build && node bench/otel_perf.mjs [--modes=none,sdk] [--duration=4000] [--slices=4]
 *     [--inflight=64] [--warmup=10000] [--node=PATH] [--top=0 (frames that grew most, first mode to last)]
 *     [--detail=COMPONENT (the JS frames its samples were charged to, last mode)]
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { openLoad } from "./http/load.mjs";
import { option, otelServerEnv } from "./lib/otel_bench.mjs";

const modes = option("modes", "none,sdk").split(",");
const durationMs = Number(option("duration", 4000));
const slices = Number(option("slices", 4));
const inFlight = Number(option("inflight", 64));
const nodePath = option("node", process.execPath);
const top = Number(option("top", 0));
// Under load the optimizing compiler needs seconds of wall time to settle (bench/otel.mjs): before
// that its thread's CPU and the slower baseline code would count as the mode's cost.
const warmupMs = Number(option("warmup", 10_000));
const detail = option("detail", undefined);
const log = (...parts) => process.stderr.write(`${parts.join(" ")}\n`);
const dir = mkdtempSync(join(tmpdir(), "otel-perf-"));

const sink = createServer((req, res) => {
  req.on("data", () => {}).on("end", () => {
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise((resolve) => sink.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${sink.address().port}`;

async function startServer(mode) {
  const path = fileURLToPath(new URL("./http/otel_server.mjs", import.meta.url));
  const child = spawn(nodePath, ["--perf-basic-prof", "--interpreted-frames-native-stack", path], {
    stdio: ["ignore", "pipe", "inherit"],
    env: {
      ...process.env,
      ...otelServerEnv(mode, endpoint),
    },
  });
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`otel_server.mjs exited (${code})`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { pid: child.pid, url, stop: () => (child.kill("SIGTERM"), exited) };
}

/** Starts `perf record` on `pid` into `file`; resolves once it is recording, with a stop function. */
async function record(pid, file) {
  const perf = spawn(
    "perf",
    ["record", "-e", "cpu-clock", "-F", "1999", "-g", "-p", String(pid), "-o", file],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const done = new Promise((resolve) => perf.once("exit", resolve));
  await new Promise((resolve) => setTimeout(resolve, 300)); // perf attaches
  return () => (perf.kill("SIGINT"), done);
}

const ASYNC_HOOKS = /node:(internal\/)?async_hooks|async_local_storage|async_context_frame/;
const GC =
  /v8::internal::(Heap|Scavenger|MarkCompact|MinorMarkCompact|Sweeper|Evacuat|ConcurrentMarking|MarkingVisitor|MainMarkingVisitor|ScavengingTask|PagedSpace|LargeObjectSpace|MemoryAllocator|IncrementalMarking|GCTracer|Marking)|ScavengeVisitor|Evacuate/;

/** The component of a JS frame's symbol (`JS:*name url:line:col`), or undefined for Node internals. */
function componentOfJs(sym) {
  if (ASYNC_HOOKS.test(sym)) return "async_hooks / AsyncLocalStorage";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(sym);
  if (pkg) return pkg[1] === "onemodelcontext" ? libraryPart(sym) : pkg[1];
  if (/\/dist\//.test(sym)) return libraryPart(sym);
  if (/bench\//.test(sym)) return "bench server";
  return undefined;
}
const libraryPart = (sym) => (/\/telemetry\//.test(sym) ? "onemodelcontext telemetry" : "onemodelcontext");
const isJs = (sym) => /^(JS|LazyCompile|Function|Script|Eval):/.test(sym);

/** Charges the samples of one perf data file: adds ns per component and per leaf frame. */
function charge(file, mainTid, byComponent, byFrame, byDetail, byTier) {
  const text = execFileSync("perf", ["script", "-i", file, "-F", "tid,period,ip,sym,dso"], {
    maxBuffer: 1 << 30,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    if (lines.length < 2) continue;
    const [tid, period] = lines[0].trim().split(/\s+/).map(Number);
    const frames = lines.slice(1).map((l) => {
      const m = /^\s*[0-9a-f]+ (.*) \((.*)\)$/.exec(l);
      return m ? { sym: m[1], dso: m[2] } : { sym: l.trim(), dso: "" };
    });
    const leaf = frames[0];
    // The JIT tier of the innermost JS frame: * optimized (TurboFan or Maglev), ^ baseline, ~ interpreted.
    const tier = frames.find((f) => isJs(f.sym))?.sym.match(/^\w+:([*^~+]?)/)?.[1] || "none";
    byTier.set(tier, (byTier.get(tier) ?? 0) + period);
    let component;
    let caller = leaf.sym;
    if (tid !== mainTid) {
      // V8's platform workers (concurrent marking, parallel scavenge, the optimizing compiler) and
      // libuv's pool: their CPU counts for the process but not for the JS thread.
      component = GC.test(leaf.sym) || frames.some((f) => GC.test(f.sym))
        ? "other threads: GC"
        : frames.some((f) => /v8::internal::(compiler|maglev|Turbofan|OptimizingCompile)/.test(f.sym))
        ? "other threads: JIT compiler"
        : "other threads: rest";
    } else if (GC.test(leaf.sym)) component = "GC (JS thread)";
    else if (leaf.dso.includes("kernel")) component = "kernel (syscalls, mostly socket I/O)";
    else {
      let sawNodeJs = false;
      for (const { sym } of frames) {
        if (!isJs(sym)) continue;
        component = componentOfJs(sym);
        caller = sym;
        if (component !== undefined) break;
        sawNodeJs = true;
      }
      component ??= sawNodeJs ? "node (no JS caller)" : "V8 / node native (no JS caller)";
    }
    byComponent.set(component, (byComponent.get(component) ?? 0) + period);
    if (component === detail) {
      const key = caller.replace(/file:\/\/\S*\/(dist|node_modules)\//, "$1/");
      byDetail.set(key, (byDetail.get(key) ?? 0) + period);
    }
    const key = leaf.sym.replace(/file:\/\/\S*\/(dist|node_modules)\//, "$1/");
    byFrame.set(key, (byFrame.get(key) ?? 0) + period);
  }
}

const servers = {};
const loads = {};
const calls = Object.fromEntries(modes.map((m) => [m, 0]));
const files = Object.fromEntries(modes.map((m) => [m, []]));
for (const mode of modes) {
  servers[mode] = await startServer(mode);
  loads[mode] = openLoad(servers[mode].url, { connections: inFlight, era: "modern" });
}
for (const mode of modes) await loads[mode].run(warmupMs); // warm up
for (let slice = 0; slice < slices; slice++) {
  for (const mode of slice % 2 === 0 ? modes : [...modes].reverse()) {
    const file = join(dir, `${mode}.${slice}.data`);
    const stop = await record(servers[mode].pid, file);
    const { completed } = await loads[mode].run(durationMs / slices);
    await stop();
    calls[mode] += completed;
    files[mode].push(file);
  }
}
const results = {};
for (const mode of modes) {
  await loads[mode].close();
  const byComponent = new Map();
  const byFrame = new Map();
  const byDetail = new Map();
  const byTier = new Map();
  for (const file of files[mode]) charge(file, servers[mode].pid, byComponent, byFrame, byDetail, byTier);
  const total = [...byComponent.values()].reduce((a, b) => a + b, 0);
  results[mode] = { byComponent, byFrame, byDetail, byTier, total, calls: calls[mode] };
  log(`${mode}: ${calls[mode]} calls, ${(total / 1000 / calls[mode]).toFixed(1)} µs sampled CPU per call`);
}
for (const mode of modes) await servers[mode].stop();
sink.close();
rmSync(dir, { recursive: true, force: true });

const usOf = (m, ns) => (ns ?? 0) / 1000 / results[m].calls;
const last = modes.at(-1);
const components = [...new Set(modes.flatMap((m) => [...results[m].byComponent.keys()]))]
  .sort((a, b) =>
    (results[last].byComponent.get(b) ?? 0) / results[last].calls -
    (results[last].byComponent.get(a) ?? 0) / results[last].calls
  );
const nodeVersion = execFileSync(nodePath, ["--version"], { encoding: "utf8" }).trim();
console.log(`| component: µs CPU per call (perf cpu-clock, Node ${nodeVersion}) | ${modes.join(" | ")} |`);
console.log(`|---|${modes.map(() => "---:").join("|")}|`);
for (const c of components) {
  console.log(
    `| ${c} | ${modes.map((m) => usOf(m, results[m].byComponent.get(c)).toFixed(1)).join(" | ")} |`,
  );
}
console.log(`| **total** | ${modes.map((m) => usOf(m, results[m].total).toFixed(1)).join(" | ")} |`);
const TIERS = {
  "*": "optimized JS (TurboFan/Maglev)",
  "^": "baseline JS (Sparkplug)",
  "~": "interpreted JS",
};
for (const [tier, label] of Object.entries(TIERS)) {
  const cells = modes.map((m) =>
    `${(100 * (results[m].byTier.get(tier) ?? 0) / results[m].total).toFixed(0)}%`
  );
  console.log(`| share of samples in ${label} | ${cells.join(" | ")} |`);
}
if (top > 0) {
  const first = modes[0];
  const keys = [...new Set([...results[first].byFrame.keys(), ...results[last].byFrame.keys()])];
  const grown = keys.map((
    k,
  ) => [k, usOf(last, results[last].byFrame.get(k)) - usOf(first, results[first].byFrame.get(k))])
    .sort((a, b) => b[1] - a[1]);
  console.log(`\n| leaf frame | ${first} µs/call | ${last} µs/call | growth |\n|---|---:|---:|---:|`);
  for (const [key, growth] of grown.slice(0, top)) {
    const cells = [first, last].map((m) => usOf(m, results[m].byFrame.get(key)).toFixed(2));
    console.log(`| ${key.slice(0, 110)} | ${cells.join(" | ")} | ${growth.toFixed(2)} |`);
  }
}
if (detail !== undefined) {
  const rows = [...results[last].byDetail].sort((a, b) => b[1] - a[1]).slice(0, 25);
  console.log(`\n| ${detail}: JS frame charged (${last}) | µs/call |\n|---|---:|`);
  for (const [key, ns] of rows) console.log(`| ${key.slice(0, 110)} | ${usOf(last, ns).toFixed(2)} |`);
}
