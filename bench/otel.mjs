#!/usr/bin/env node
/**
 * OpenTelemetry's cost on the server (issue 26 "Measure"): server CPU per call of the HTTP benchmark
 * server (modern tools/call echo, 64 in flight, bench/http/load.mjs) in three processes of one run,
 * interleaved in slices so a shared machine's load falls on all alike:
 *   none: no OpenTelemetry at all;  api: @opentelemetry/api loaded, no SDK registered;
 *   sdk: the stock Node SDK exporting every span (batch processor) and the metrics (every 1 s) over
 *        OTLP/HTTP JSON to a sink in this process that answers 200 and drops the bodies.
 * Prints a Markdown table: µs of server CPU per call (median of --reps), and each ratio of throughput
 * per CPU against "none" (1.0 = free).
 *
 *   npm run build && node bench/otel.mjs [--reps=5] [--duration=2000] [--inflight=64]
 */
import { createServer } from "node:http";
import { readCpuAndIo } from "./lib/proc_memory.mjs";
import { median } from "./lib/stats.mjs";
import { startServer } from "./http/impls.mjs";
import { openLoad } from "./http/load.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const reps = Number(option("reps", 5));
const durationMs = Number(option("duration", 2000));
const inFlight = Number(option("inflight", 64));
const log = (...parts) => process.stderr.write(`${parts.join(" ")}\n`);

let exported = 0;
const sink = createServer((req, res) => {
  req.on("data", (chunk) => (exported += chunk.length)).on("end", () => {
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise((resolve) => sink.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${sink.address().port}`;

const MODES = ["none", "api", "sdk"];
const servers = {};
for (const mode of MODES) {
  servers[mode] = await startServer("otel_server.mjs", {
    env: {
      BENCH_OTEL: mode,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_METRIC_EXPORT_INTERVAL: "1000",
      OTEL_LOGS_EXPORTER: "none",
      OTEL_SERVICE_NAME: `bench-${mode}`,
    },
  });
}
const loads = Object.fromEntries(
  MODES.map((m) => [m, openLoad(servers[m].url, { connections: inFlight, era: "modern" })]),
);
for (const mode of MODES) await loads[mode].run(300); // warm up

const samples = Object.fromEntries(MODES.map((m) => [m, []]));
for (let rep = 0; rep < reps; rep++) {
  for (const mode of rep % 2 === 0 ? MODES : [...MODES].reverse()) {
    const pid = servers[mode].child.pid;
    const before = readCpuAndIo(pid).cpuMs;
    const { completed } = await loads[mode].run(durationMs);
    const after = readCpuAndIo(pid).cpuMs;
    samples[mode].push(((after - before) * 1000) / completed);
    log(`rep ${rep + 1} ${mode}: ${completed} calls, ${samples[mode].at(-1).toFixed(1)} µs CPU per call`);
  }
}
for (const mode of MODES) {
  await loads[mode].close();
  await servers[mode].stop();
}
sink.close();

const base = median(samples.none);
console.log(
  `| server (HTTP, modern tools/call, ${inFlight} in flight) | µs CPU per call | calls per CPU vs none |`,
);
console.log("|---|---:|---:|");
for (const mode of MODES) {
  const us = median(samples[mode]);
  console.log(`| ${mode} | ${us.toFixed(1)} | ${(base / us).toFixed(2)}× |`);
}
console.log(`\nOTLP bytes received by the sink: ${exported}`);
