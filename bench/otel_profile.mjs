#!/usr/bin/env node
/**
 * Where OpenTelemetry's cost goes over HTTP (issue 26 "Measure"): CPU profiles (`--cpu-prof`) of the
 * bench/otel.mjs server (bench/http/otel_server.mjs, modern tools/call echo, 64 in flight) in each
 * mode, one after the other, with every sample charged to a component and shown as µs per call.
 * A sample goes to the nearest JavaScript caller from the leaf up: a package under node_modules/ or
 * the library (dist/: telemetry apart); Node's internals and native code count for the caller that
 * entered them, except async_hooks / AsyncLocalStorage internals, which form their own component
 * (that is the context manager's cost on every promise and callback). Samples with no JavaScript
 * caller (HTTP parsing, sockets) are "node (no JS caller)"; GC is on its own.
 *
 *   npm run build && node bench/otel_profile.mjs [--modes=none,sdk] [--duration=4000] [--inflight=64]
 *     [--dir=prof/otel] [--node=PATH (the servers' Node, default this one)] [--top=0 (frames per mode)]
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { openLoad } from "./http/load.mjs";
import { option, otelServerEnv } from "./lib/otel_bench.mjs";

const modes = option("modes", "none,sdk").split(",");
const durationMs = Number(option("duration", 4000));
const inFlight = Number(option("inflight", 64));
const dir = option("dir", "prof/otel");
const nodePath = option("node", process.execPath);
const top = Number(option("top", 0));
const log = (...parts) => process.stderr.write(`${parts.join(" ")}\n`);

const sink = createServer((req, res) => {
  req.on("data", () => {}).on("end", () => {
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise((resolve) => sink.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${sink.address().port}`;

/** The server of `mode`, profiled into `profileDir`; resolves with `{ url, stop }`. */
async function startProfiled(mode, profileDir) {
  const path = fileURLToPath(new URL("./http/otel_server.mjs", import.meta.url));
  // Node 20 does not take --cpu-prof in NODE_OPTIONS: it goes on the command line.
  const child = spawn(
    nodePath,
    ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, path],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        ...otelServerEnv(mode, endpoint),
      },
    },
  );
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`otel_server.mjs exited (${code})`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { url, pid: child.pid, stop: () => (child.kill("SIGTERM"), exited) };
}

/**
 * CPU ms (user + system) of a process's main thread: the profiler's sampling thread busy-waits
 * between samples, so the whole process's CPU would count it.
 */
function mainThreadCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in ticks of 10 ms
}

const ASYNC_HOOKS =
  /node:(internal\/)?async_hooks|async_local_storage|internal\/async_context_frame|promise_hooks/;

/** The component a frame's URL belongs to, or undefined for Node internals and native code. */
function componentOf(url) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1] === "onemodelcontext" ? libraryPart(url) : pkg[1];
  if (/\/dist\//.test(url)) return libraryPart(url);
  if (/bench\//.test(url)) return "bench server";
  return undefined;
}
const libraryPart = (url) => (/\/telemetry\//.test(url) ? "onemodelcontext telemetry" : "onemodelcontext");

/** µs of CPU per call per component of one profile, given the calls it served. */
function breakdown(file, windows) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const charge = new Map();
  const frames = new Map();
  const componentOfNode = new Map();
  const chargeOf = (id) => {
    if (componentOfNode.has(id)) return componentOfNode.get(id);
    const leaf = byId.get(id).callFrame;
    let component;
    if (leaf.functionName === "(garbage collector)") component = "GC";
    else if (leaf.functionName === "(idle)" || leaf.functionName === "(program)") {
      component = "(idle/program)";
    } else {
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const { url } = byId.get(at).callFrame;
        if (ASYNC_HOOKS.test(url)) {
          component = "async_hooks / AsyncLocalStorage";
          break;
        }
        component = componentOf(url);
        if (component !== undefined) break;
      }
      component ??= "node (no JS caller)";
    }
    componentOfNode.set(id, component);
    return component;
  };
  let total = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (!windows.some((w) => at >= w.from && at <= w.to)) continue;
    total += dt;
    const component = chargeOf(profile.samples[i]);
    charge.set(component, (charge.get(component) ?? 0) + dt);
    {
      const { functionName, url, lineNumber } = byId.get(profile.samples[i]).callFrame;
      const key = `${functionName || "(anonymous)"} ${url.replace(/^.*\/(dist|node_modules)\//, "$1/")}:${
        lineNumber + 1
      }`;
      frames.set(key, (frames.get(key) ?? 0) + dt);
    }
  }
  return { charge, total, frames };
}

const servers = {};
const loads = {};
const windows = Object.fromEntries(modes.map((m) => [m, []]));
const calls = Object.fromEntries(modes.map((m) => [m, 0]));
const cpuMs = Object.fromEntries(modes.map((m) => [m, 0]));
for (const mode of modes) {
  const profileDir = join(dir, mode);
  rmSync(profileDir, { recursive: true, force: true });
  mkdirSync(profileDir, { recursive: true });
  servers[mode] = await startProfiled(mode, profileDir);
  loads[mode] = openLoad(servers[mode].url, { connections: inFlight, era: "modern" });
}
for (const mode of modes) await loads[mode].run(500); // warm up
// Slices of every mode interleaved, as bench/otel.mjs does, so the machine's load falls on all alike.
// The profile's timestamps are µs of the monotonic clock, as process.hrtime's (Linux): only the
// samples inside a mode's slices count.
const slices = 4;
for (let rep = 0; rep < slices; rep++) {
  for (const mode of rep % 2 === 0 ? modes : [...modes].reverse()) {
    const from = Number(process.hrtime.bigint() / 1000n);
    const before = mainThreadCpuMs(servers[mode].pid);
    const { completed } = await loads[mode].run(durationMs / slices);
    cpuMs[mode] += mainThreadCpuMs(servers[mode].pid) - before;
    windows[mode].push({ from, to: Number(process.hrtime.bigint() / 1000n) });
    calls[mode] += completed;
  }
}
const results = {};
for (const mode of modes) {
  await loads[mode].close();
  await servers[mode].stop();
  const profileDir = join(dir, mode);
  const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"));
  const { charge, total, frames } = breakdown(join(profileDir, file), windows[mode]);
  results[mode] = { charge, total, calls: calls[mode], cpuUs: (cpuMs[mode] * 1000) / calls[mode] };
  log(
    `${mode}: ${calls[mode]} calls, ${results[mode].cpuUs.toFixed(1)} µs main-thread CPU per call, ${
      (total / 1e6).toFixed(2)
    } s of samples in its slices`,
  );
  results[mode].frames = frames;
}
sink.close();

// The profiler samples wall time: a busy sample's share is applied to the CPU the process used.
const busy = (m) => results[m].total - (results[m].charge.get("(idle/program)") ?? 0);
const usOf = (m, component) => (results[m].cpuUs * (results[m].charge.get(component) ?? 0)) / busy(m);
const components = [...new Set(modes.flatMap((m) => [...results[m].charge.keys()]))]
  .filter((c) => c !== "(idle/program)")
  .sort((a, b) => usOf(modes.at(-1), b) - usOf(modes.at(-1), a));
console.log(`| component: µs CPU per call (busy share × CPU) | ${modes.join(" | ")} |`);
console.log(`|---|${modes.map(() => "---:").join("|")}|`);
for (const component of components) {
  console.log(`| ${component} | ${modes.map((m) => usOf(m, component).toFixed(1)).join(" | ")} |`);
}
console.log(`| **CPU per call** | ${modes.map((m) => results[m].cpuUs.toFixed(1)).join(" | ")} |`);

if (top > 0) {
  // The frames (self time) whose µs per call grew most from the first mode to the last.
  const [first, last] = [modes[0], modes.at(-1)];
  const frameUs = (m, key) => (results[m].cpuUs * (results[m].frames.get(key) ?? 0)) / busy(m);
  const keys = [...new Set([...results[first].frames.keys(), ...results[last].frames.keys()])];
  const grown = keys.map((k) => [k, frameUs(last, k) - frameUs(first, k)]).sort((a, b) => b[1] - a[1]);
  console.log(`\n| frame (self time) | ${first} µs/call | ${last} µs/call | growth |\n|---|---:|---:|---:|`);
  for (const [key, growth] of grown.slice(0, top)) {
    console.log(
      `| ${key} | ${frameUs(first, key).toFixed(2)} | ${frameUs(last, key).toFixed(2)} | ${
        growth.toFixed(2)
      } |`,
    );
  }
}
