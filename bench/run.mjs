#!/usr/bin/env node
/**
 * `npm run bench`: onemodelcontext beside @modelcontextprotocol/sdk 1.32.2 and
 * @modelcontextprotocol/client + server 2.4.0, and a bare JSON-over-pipe floor, in one run on one
 * machine with the same payloads. Each client runs in this process; each server is a spawned Node
 * process of the same implementation. Prints a Markdown table (medians of --reps runs) to stdout,
 * progress to stderr. Then runs bench/channel/run.mjs when it exists.
 *
 *   node bench/run.mjs [--reps=3] [--duration=1000] [--only=ours,sdk2,sdk1,floor] [--skip=rt,modern,runtimes,large,rss,close]
 *                      [--baseline=DIR]   (another built checkout, measured as column "before")
 *                      [--no-build] [--no-channel] [--no-http] [--no-scaleout] [--no-tasks] [--write]
 *
 * The HTTP section (bench/http/run.mjs: round trips over HTTP, idle listen streams, a non-reading
 * progress stream) runs after the stdio rows unless --no-http, with the same --reps and half the
 * --duration per sample, and is appended to the output. The scale-out section (bench/scaleout.mjs:
 * nginx in front of 1 and 3 replicas, ours and SDK 2.4's, SIGTERM/SIGKILL counts, listen streams
 * across replicas over Redis) follows unless --no-scaleout, with 3 × --duration of load per setup;
 * without nginx or redis-server it prints why it skips.
 *
 * --write also puts the table, the machine and the command into bench/RESULTS.md, between the
 * generated-section markers (the analysis around them is kept).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name, fallback) => {
  const hit = argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
};
const reps = Number(option("reps", 3));
const durationMs = Number(option("duration", 1000));
const skip = new Set(option("skip", "").split(",").filter(Boolean));
const log = (...parts) => process.stderr.write(`${parts.join(" ")}\n`);

if (!flag("no-build")) {
  log("build: npx tsc -p tsconfig.build.json");
  const build = spawnSync("npx", ["tsc", "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (build.status !== 0) {
    if (!existsSync(new URL("../dist/src/mod.js", import.meta.url))) {
      log(`build failed (exit ${build.status}) and there is no dist/ to run`);
      process.exit(1);
    }
    log(`build reported errors (exit ${build.status}); benchmarking the emitted dist/ anyway`);
  }
}

// Imported after the build: the implementations load dist/.
const { IMPLS: BUILT_IN, baselineImpl, baselineModernImpl } = await import("./lib/impls.mjs");
const baselineDir = option("baseline", "");
const IMPLS = baselineDir
  ? [BUILT_IN[0], baselineImpl(baselineDir), baselineModernImpl(baselineDir), ...BUILT_IN.slice(1)]
  : BUILT_IN;
const { LARGE_SIZES, MiB } = await import("./lib/payloads.mjs");
const { roundTripsPerSecond, warmUp, largeMessageMs, closeMs } = await import("./lib/scenarios.mjs");
const { nonReadingPeak } = await import("./lib/flood.mjs");
const { machine } = await import("./lib/machine.mjs");
const { renderReport } = await import("./lib/report.mjs");

const only = new Set(option("only", IMPLS.map((i) => i.id).join(",")).split(","));
// The modern-era implementations (oursM, sdk2M, beforeM) take part in the round trips only; their
// figures go to the modern rows (rt1M, rt64M, cpu1M, cpu64M) under the id of their legacy column.
// `--only=ours` keeps oursM too; `--skip=modern` drops them all.
// deno and bun (our server under those runtimes) take part in the round trips only; --skip=runtimes drops them.
const impls = IMPLS.filter((i) =>
  i.era === "modern"
    ? !skip.has("modern") && !skip.has("rt") && only.has(i.id.slice(0, -1))
    : i.runtimeOnly
    ? !skip.has("runtimes") && !skip.has("rt") && only.has(i.id)
    : only.has(i.id)
);
const legacyImpls = impls.filter((i) => i.era !== "modern" && !i.runtimeOnly);
const servers = legacyImpls.filter((i) => i.id !== "floor");
const eraOf = new Map(impls.map((i) => [i.id, i.era ?? "legacy"]));
const results = {};
const record = (row, impl, value) => {
  const modern = eraOf.get(impl) === "modern";
  if (modern) [row, impl] = [`${row}M`, impl.slice(0, -1)];
  ((results[row] ??= {})[impl] ??= []).push(value);
};
const note = (row, text) => ((results[row] ??= {}).notes ??= []).push(text);
const failures = [];
const attempt = async (what, fn) => {
  try {
    return await fn();
  } catch (error) {
    failures.push(`${what}: ${error?.message ?? error}`);
    log(`  ${what} FAILED: ${error?.stack ?? error}`);
    return undefined;
  }
};

const started = performance.now();
const host = machine();
const git = (...args) => spawnSync("git", args, { cwd: root, encoding: "utf8" }).stdout?.trim() ?? "";
const revision = git("rev-parse", "--short", "HEAD") || "unknown";
const dirty = git("status", "--porcelain", "--", "src", "adapters").split("\n").filter(Boolean).length;
const codeLine = `onemodelcontext at ${revision}${
  dirty ? ` plus ${dirty} uncommitted file(s) in src/ and adapters/` : ""
}`;
log(`machine: ${host.cpu}, ${host.cores} cores, Node ${host.node}, load ${host.load}`);

// 1 and 2: round trips and large messages, one long-lived connection per implementation,
// implementations interleaved within each repetition so that machine noise spreads evenly.
if (!skip.has("rt") || !skip.has("large")) {
  const clients = new Map();
  for (const impl of impls) {
    const client = await attempt(`${impl.id} connect`, () => impl.connect());
    if (client) clients.set(impl.id, client);
  }
  for (const [id, client] of clients) await attempt(`${id} warm-up`, () => warmUp(client));
  if (!skip.has("rt")) {
    // Each repetition interleaves short slices of every implementation (SLICES rounds), so that the
    // load of a shared machine falls on all of them alike; a repetition's figure for one
    // implementation is its completed round trips over its own time across those slices.
    const SLICES = 4;
    for (let rep = 1; rep <= reps; rep++) {
      for (const inFlight of [1, 64]) {
        const sums = new Map();
        for (let slice = 0; slice < SLICES; slice++) {
          for (const [id, client] of clients) {
            const sample = await attempt(
              `${id} ${inFlight} in flight`,
              () => roundTripsPerSecond(client, { inFlight, durationMs: durationMs / SLICES }),
            );
            if (!sample) continue;
            const sum = sums.get(id) ??
              { completed: 0, seconds: 0, cpuUs: 0, serverCpuUs: 0, serverWrites: 0 };
            sum.completed += sample.completed;
            sum.seconds += sample.seconds;
            sum.cpuUs += sample.cpuUs * sample.completed;
            sum.serverCpuUs += sample.serverCpuUs * sample.completed;
            sum.serverWrites += sample.serverWrites * sample.completed;
            sums.set(id, sum);
          }
        }
        for (const [id, sum] of sums) {
          const rate = sum.completed / sum.seconds;
          record(`rt${inFlight}`, id, rate);
          record(`cpu${inFlight}`, id, sum.cpuUs / sum.completed);
          log(
            `round trips  rep ${rep}  ${String(inFlight).padStart(2)} in flight  ${id.padEnd(5)} ${
              rate.toFixed(0)
            }/s, ` +
              `CPU ${(sum.cpuUs / sum.completed).toFixed(0)} µs per round trip (server ${
                (sum.serverCpuUs / sum.completed).toFixed(0)
              }), ` +
              `server writes per reply ${(sum.serverWrites / sum.completed).toFixed(2)}`,
          );
        }
      }
    }
  }
  if (!skip.has("large")) {
    // A call over LARGE_CAP_MS is given up (that size is skipped from then on for that
    // implementation); once an implementation has spent LARGE_BUDGET_MS on one size, it gets no
    // further repetitions of it.
    const LARGE_CAP_MS = 20_000;
    const LARGE_BUDGET_MS = 12_000;
    const givenUp = new Set();
    // Large messages are measured in the legacy era on Node only: the modern and runtime clients close here.
    for (const [id, client] of [...clients]) {
      if (legacyImpls.some((i) => i.id === id)) continue;
      clients.delete(id);
      await attempt(`${id} close`, () => client.close());
    }
    for (const [id, client] of clients) {
      await attempt(`${id} large warm-up`, () => largeMessageMs(client, LARGE_SIZES[0], LARGE_CAP_MS));
    }
    // Sizes alternate within each repetition, so that an implementation's 8 MiB and 32 MiB calls of
    // one repetition run back to back under the same load; their quotient is that repetition's
    // growth figure.
    const spent = new Map();
    for (let rep = 1; rep <= reps; rep++) {
      const times = new Map();
      for (const bytes of LARGE_SIZES) {
        const row = `large${bytes / MiB}`;
        for (const [id, client] of clients) {
          const key = `${id} ${bytes}`;
          if (givenUp.has(key) || (spent.get(key) ?? 0) > LARGE_BUDGET_MS) continue;
          const started = performance.now();
          const ms = await attempt(
            `${id} ${bytes / MiB} MiB`,
            () => largeMessageMs(client, bytes, LARGE_CAP_MS),
          );
          spent.set(key, (spent.get(key) ?? 0) + performance.now() - started);
          if (ms !== undefined) {
            record(row, id, ms);
            times.set(key, ms);
          } else {
            // This size is given up for good; the busy connection is replaced by a fresh one so
            // that the other size keeps its repetitions.
            givenUp.add(key);
            ((results[row] ??= {}).over ??= {})[id] = LARGE_CAP_MS;
            note(row, `${id}: no reply within ${LARGE_CAP_MS} ms, given up`);
            await attempt(`${id} close after give-up`, () => client.close());
            const impl = impls.find((i) => i.id === id);
            const fresh = await attempt(`${id} reconnect after give-up`, () => impl.connect());
            if (fresh) clients.set(id, fresh);
            else clients.delete(id);
          }
          log(
            `large        rep ${rep}  ${String(bytes / MiB).padStart(2)} MiB  ${id.padEnd(5)} ${
              ms === undefined ? "given up" : `${ms.toFixed(0)} ms`
            }`,
          );
        }
      }
      for (const impl of legacyImpls) {
        const small = times.get(`${impl.id} ${LARGE_SIZES[0]}`);
        const large = times.get(`${impl.id} ${LARGE_SIZES[1]}`);
        if (small !== undefined && large !== undefined) record("growth", impl.id, large / small);
      }
    }
  }
  for (const [id, client] of clients) await attempt(`${id} close`, () => client.close());
}

// 3: peak RSS of a server whose client never reads.
if (!skip.has("rss")) {
  for (let rep = 1; rep <= reps; rep++) {
    for (const impl of servers) {
      const peak = await attempt(`${impl.id} non-reading client`, () => nonReadingPeak(impl.server));
      if (!peak) continue;
      record("rss", impl.id, peak.growth);
      log(
        `rss          rep ${rep}  ${impl.id.padEnd(5)} baseline ${
          (peak.baseline / MiB).toFixed(1)
        } MiB, peak ${(peak.peak / MiB).toFixed(1)} MiB, ` +
          `growth ${(peak.growth / MiB).toFixed(1)} MiB (sampled ${peak.sampledMs.toFixed(0)} ms${
            peak.exactPeak ? ", VmHWM reset" : ", VmRSS samples"
          })`,
      );
    }
  }
}

// 4: closing a server that exits on stdin EOF, and one that ignores it.
if (!skip.has("close")) {
  for (let rep = 1; rep <= reps; rep++) {
    for (const [row, linger] of [["closeExit", false], ["closeLinger", true]]) {
      // The floor's close is stdin.end() and the wait for exit: what a Node process takes to end.
      for (const impl of linger ? servers : legacyImpls) {
        const closed = await attempt(`${impl.id} ${row}`, () => closeMs(impl, { linger }));
        if (!closed) continue;
        record(row, impl.id, closed.ms);
        if (!closed.gone) note(row, `${impl.id}: server still alive after close (rep ${rep})`);
        log(
          `close        rep ${rep}  ${linger ? "ignores EOF" : "exits on EOF"}  ${impl.id.padEnd(5)} ${
            closed.ms.toFixed(0)
          } ms${closed.gone ? "" : " (server still alive)"}`,
        );
      }
    }
  }
}

let httpSection = "";
if (!flag("no-http")) {
  log("\nbench/http/run.mjs:");
  const http = spawnSync(process.execPath, [
    fileURLToPath(new URL("./http/run.mjs", import.meta.url)),
    `--reps=${reps}`,
    `--duration=${Math.max(200, durationMs / 2)}`,
    ...(baselineDir ? [`--baseline=${baselineDir}`] : []),
  ], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  httpSection = http.stdout ?? "";
  if (http.status !== 0) failures.push(`bench/http/run.mjs exited with ${http.status}`);
}

let scaleoutSection = "";
if (!flag("no-scaleout")) {
  log("\nbench/scaleout.mjs:");
  const scaleout = spawnSync(process.execPath, [
    fileURLToPath(new URL("./scaleout.mjs", import.meta.url)),
    `--duration=${durationMs * 3}`,
  ], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  scaleoutSection = scaleout.stdout ?? "";
  if (scaleout.status !== 0) failures.push(`bench/scaleout.mjs exited with ${scaleout.status}`);
}

let tasksSection = "";
if (!flag("no-tasks")) {
  log("\nbench/tasks.mjs:");
  const tasks = spawnSync(process.execPath, [fileURLToPath(new URL("./tasks.mjs", import.meta.url))], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  tasksSection = tasks.stdout ?? "";
  if (tasks.status !== 0) failures.push(`bench/tasks.mjs exited with ${tasks.status}`);
}

const totalS = (performance.now() - started) / 1000;
host.loadAfter = machine().load;
const { table, details, verdicts } = renderReport(results);
const command = `npm run bench${argv.length ? ` -- ${argv.join(" ")}` : ""}`;
const machineLine =
  `${host.cpu}, ${host.cores} cores, ${host.memoryGiB} GiB, ${host.os}, Node ${host.node}; ` +
  `load average ${host.load} before, ${host.loadAfter} after; ${reps} repetitions, ${
    (durationMs / 1000).toFixed(1)
  } s per round-trip sample; run took ${totalS.toFixed(0)} s`;
const shortfalls = verdicts.filter((v) => !v.ok).map((v) => `${v.label} (target ${v.target})`);
const output = [
  `## Benchmark: onemodelcontext vs the MCP TypeScript SDKs (${
    new Date().toISOString().slice(0, 16).replace("T", " ")
  } UTC)`,
  "",
  `Command: \`${command}\``,
  "",
  `Machine: ${machineLine}`,
  "",
  `Code: ${codeLine}; @modelcontextprotocol/sdk 1.32.2; @modelcontextprotocol/client and server 2.4.0; the legacy era (2025-06-18, the one all three speak) throughout, and the modern era (2026-07-28; ours, and SDK 2.4's client pinned to it against its dual-era \`serveStdio\` server) in the rows marked modern, interleaved in the same repetitions.`,
  "",
  table,
  "",
  shortfalls.length ? `Targets missed: ${shortfalls.join("; ")}.` : "Every target met.",
  ...(failures.length ? ["", `Failures: ${failures.join("; ")}`] : []),
  "",
  "Samples per measurement:",
  "",
  details,
  ...(httpSection ? ["", httpSection.trimEnd()] : []),
  ...(scaleoutSection ? ["", scaleoutSection.trimEnd()] : []),
  ...(tasksSection ? ["", tasksSection.trimEnd()] : []),
].join("\n");
process.stdout.write(`${output}\n`);

if (flag("write")) {
  const file = new URL("./RESULTS.md", import.meta.url);
  const BEGIN = "<!-- bench:begin (generated by bench/run.mjs --write) -->";
  const END = "<!-- bench:end -->";
  const previous = existsSync(file)
    ? readFileSync(file, "utf8")
    : `# Benchmark results\n\n${BEGIN}\n${END}\n`;
  const [head, rest = ""] = previous.includes(BEGIN) ? previous.split(BEGIN) : [previous + "\n", END];
  const tail = rest.includes(END) ? rest.slice(rest.indexOf(END) + END.length) : "";
  writeFileSync(file, `${head}${BEGIN}\n${output}\n${END}${tail}`);
  log("wrote bench/RESULTS.md");
}

const channel = new URL("./channel/run.mjs", import.meta.url);
if (!flag("no-channel") && existsSync(channel)) {
  log("\nbench/channel/run.mjs:");
  const run = spawnSync(process.execPath, [fileURLToPath(channel)], { cwd: root, stdio: "inherit" });
  if (run.status !== 0) process.exitCode = run.status ?? 1;
}
