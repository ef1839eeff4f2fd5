#!/usr/bin/env node
/**
 * Large tool results alone: how the time of an 8 MiB and a 32 MiB `blob` result grows, for our stdio
 * pair (client and server both ours), optionally another built checkout beside it ("before"), and
 * the floor (bare JSON over a pipe). Sizes and implementations are interleaved within each
 * repetition, so that one repetition's 8 MiB and 32 MiB calls run back to back under the same load;
 * the 32 ÷ 8 quotient of each repetition is its growth figure (4.00 = linear). Wall-clock time and
 * CPU time (this process as the client plus the server process, from /proc) are both reported: on a
 * shared machine the CPU figures swing less.
 *
 *   node bench/large_messages.mjs [--reps=7] [--baseline=DIR] [--only=ours,before,floor] [--modern]
 *                                 [--server-flags="--cpu-prof --cpu-prof-dir=/tmp/prof"] (ours only)
 *
 * `--modern` adds our pair (and the baseline's) in the modern era, as oursM and beforeM.
 * Needs a built dist/ (`npm run build`).
 */
import os from "node:os";
import { baselineImpl, IMPLS } from "./lib/impls.mjs";
import { LARGE_SIZES, MiB } from "./lib/payloads.mjs";
import { readCpuAndIo } from "./lib/proc_memory.mjs";
import { largeMessageMs, warmUp } from "./lib/scenarios.mjs";
import { median } from "./lib/stats.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const hit = argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
};
const reps = Number(option("reps", 7));
const baselineDir = option("baseline", "");
const serverFlags = option("server-flags", "").split(" ").filter(Boolean);
const log = (...parts) => process.stderr.write(`${parts.join(" ")}\n`);

const ours = IMPLS.find((i) => i.id === "ours");
const floor = IMPLS.find((i) => i.id === "floor");
const candidates = [
  {
    ...ours,
    connect: () => ours.connect(serverFlags.length ? { runtime: [process.execPath, ...serverFlags] } : {}),
  },
  ...(baselineDir ? [baselineImpl(baselineDir)] : []),
  floor,
];
if (argv.includes("--modern")) {
  // Our pair in the modern era too (and the baseline's), beside the legacy one.
  candidates.splice(1, 0, { ...ours, id: "oursM", connect: () => ours.connect({ era: "modern" }) });
  if (baselineDir) {
    const before = baselineImpl(baselineDir);
    candidates.splice(3, 0, { ...before, id: "beforeM", connect: () => before.connect({ era: "modern" }) });
  }
}
const only = new Set(option("only", candidates.map((i) => i.id).join(",")).split(","));
const impls = candidates.filter((i) => only.has(i.id));
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");

log(`Node ${process.version}, ${os.availableParallelism()} cores, load ${load()}`);
const clients = new Map();
for (const impl of impls) {
  const client = await impl.connect();
  await warmUp(client, 100);
  await largeMessageMs(client, LARGE_SIZES[0]); // JIT and buffers of the large path
  clients.set(impl.id, client);
}

/** Wall-clock ms and CPU ms (client + server) of one call. */
async function sample(client, bytes) {
  const serverBefore = readCpuAndIo(client.pid);
  const cpuBefore = process.cpuUsage();
  const ms = await largeMessageMs(client, bytes);
  const cpu = process.cpuUsage(cpuBefore);
  const serverAfter = readCpuAndIo(client.pid);
  const serverMs = serverAfter && serverBefore ? serverAfter.cpuMs - serverBefore.cpuMs : NaN;
  const clientMs = (cpu.user + cpu.system) / 1000;
  return { ms, cpuMs: clientMs + serverMs, clientMs, serverMs };
}

const samples = new Map(
  impls.map((
    i,
  ) => [i.id, { wall: [], cpu: [], wallRatio: [], cpuRatio: [], clientRatio: [], serverRatio: [] }]),
);
for (let rep = 1; rep <= reps; rep++) {
  const got = new Map();
  for (const bytes of LARGE_SIZES) {
    for (const [id, client] of clients) {
      const s = await sample(client, bytes);
      got.set(`${id} ${bytes}`, s);
      log(
        `rep ${rep}  ${String(bytes / MiB).padStart(2)} MiB  ${id.padEnd(6)} ${
          s.ms.toFixed(0).padStart(5)
        } ms, ` +
          `CPU ${s.cpuMs.toFixed(0).padStart(5)} ms (client ${s.clientMs.toFixed(0)}, server ${
            s.serverMs.toFixed(0)
          })`,
      );
    }
  }
  for (const id of clients.keys()) {
    const small = got.get(`${id} ${LARGE_SIZES[0]}`);
    const large = got.get(`${id} ${LARGE_SIZES[1]}`);
    const s = samples.get(id);
    s.wall.push([small.ms, large.ms]);
    s.cpu.push([small.cpuMs, large.cpuMs]);
    s.wallRatio.push(large.ms / small.ms);
    s.cpuRatio.push(large.cpuMs / small.cpuMs);
    s.clientRatio.push(large.clientMs / small.clientMs);
    s.serverRatio.push(large.serverMs / small.serverMs);
  }
  log(`rep ${rep}  load ${load()}`);
}
for (const client of clients.values()) await client.close();

const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "—");
const rows = [
  `| medians of ${reps}, load ${load()} | 8 MiB ms | 32 MiB ms | 32 ÷ 8 time | 8 MiB CPU ms | 32 MiB CPU ms | 32 ÷ 8 CPU | 32 ÷ 8 CPU, client | 32 ÷ 8 CPU, server |`,
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
];
for (const [id, s] of samples) {
  rows.push(
    `| ${id} | ${fmt(median(s.wall.map((w) => w[0])))} | ${fmt(median(s.wall.map((w) => w[1])))} | ${
      fmt(median(s.wallRatio), 2)
    } | ${fmt(median(s.cpu.map((c) => c[0])))} | ${fmt(median(s.cpu.map((c) => c[1])))} | ${
      fmt(median(s.cpuRatio), 2)
    } | ${fmt(median(s.clientRatio), 2)} | ${fmt(median(s.serverRatio), 2)} |`,
  );
}
for (const [id, s] of samples) {
  rows.push(`\n${id} 32 ÷ 8 time per repetition: ${s.wallRatio.map((r) => r.toFixed(2)).join(", ")}`);
}
process.stdout.write(`${rows.join("\n")}\n`);
