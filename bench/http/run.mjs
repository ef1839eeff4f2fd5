#!/usr/bin/env node
/**
 * HTTP figures (issue 15 "Measure", issue 17 item 3), run by `npm run bench` (bench/run.mjs --http,
 * on by default) or alone: `node bench/http/run.mjs [--reps=3] [--duration=1000]
 * [--skip=load,pairs,idle,flood] [--only=ours,sdk2,…] [--baseline=DIR]`.
 *
 * - Servers under one load generator (bench/http/load.mjs: undici Clients, one keep-alive connection
 *   per request in flight, the same pre-built `tools/call` echo body, every reply checked): our server
 *   modern and legacy stateless, SDK 2.4 createMcpHandler modern and legacy, our Node serve() with a
 *   plain JSON fetch handler (the adapter's own cost), and a plain node:http JSON floor; round trips
 *   per second and the server's CPU per request (/proc utime + stime), at 1 and 64 in flight.
 *   `--baseline=DIR` adds another built checkout's server (its bench/http/ours_server.mjs) as "before".
 * - Client pairs: our client → our server (both eras), the SDK 2.4 client → our server, the SDK 2.4
 *   pair; round trips per second and the client's CPU per round trip (this process).
 * - RSS of our server holding 10,000 idle `subscriptions/listen` streams (bench/http/idle_listen.mjs).
 * - RSS of our server while one client never reads a stream of 300,000 progress notifications
 *   (bench/http/flood_progress.mjs).
 * Every server is its own child process; the targets of one table are interleaved in short slices
 * within each repetition so that a shared machine's load falls on all alike. Prints a Markdown
 * section to stdout, progress to stderr.
 */
import { ECHO_TEXT } from "../lib/payloads.mjs";
import { readCpuAndIo } from "../lib/proc_memory.mjs";
import { median, within } from "../lib/stats.mjs";
import { baselinePairs, baselineTargets, CLIENT_PAIRS, LOAD_TARGETS, startServer } from "./impls.mjs";
import { openLoad } from "./load.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const reps = Number(option("reps", 3));
const durationMs = Number(option("duration", 1000));
const skip = new Set(option("skip", "").split(",").filter(Boolean));
const only = option("only", "") ? new Set(option("only", "").split(",")) : undefined;
const baselineDir = option("baseline", "");
const IN_FLIGHT = [1, 64];
const SLICES = 4;
const log = (...parts) => process.stderr.write(`${parts.join(" ")}\n`);
const results = {};
const record = (row, id, value) => ((results[row] ??= {})[id] ??= []).push(value);
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
const serverCpuMs = (server) => readCpuAndIo(server.child.pid)?.cpuMs ?? NaN;
const clientCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Runs `drive(ms)` of every entry in slices, interleaved, and records rate and CPU per round trip. */
async function interleave(prefix, entries, cpuOf) {
  for (let rep = 1; rep <= reps; rep++) {
    for (const inFlight of IN_FLIGHT) {
      const sums = new Map();
      for (let slice = 0; slice < SLICES; slice++) {
        for (const entry of entries) {
          const cpu0 = cpuOf(entry);
          const sample = await attempt(
            `${prefix} ${entry.id} ${inFlight} in flight`,
            () => entry.drive(inFlight, durationMs / SLICES),
          );
          const cpu1 = cpuOf(entry);
          if (!sample) continue;
          const sum = sums.get(entry.id) ?? { completed: 0, seconds: 0, cpuMs: 0 };
          sum.completed += sample.completed;
          sum.seconds += sample.seconds;
          sum.cpuMs += cpu1 - cpu0;
          sums.set(entry.id, sum);
        }
      }
      for (const [id, sum] of sums) {
        record(`${prefix}rt${inFlight}`, id, sum.completed / sum.seconds);
        record(`${prefix}cpu${inFlight}`, id, (sum.cpuMs * 1000) / sum.completed);
        log(
          `http ${prefix.padEnd(5)} rep ${rep}  ${String(inFlight).padStart(2)} in flight  ${id.padEnd(8)} ${
            (sum.completed / sum.seconds).toFixed(0).padStart(6)
          }/s  ${((sum.cpuMs * 1000) / sum.completed).toFixed(0).padStart(5)} µs CPU`,
        );
      }
    }
  }
}

const started = performance.now();
const loadTargets = [...LOAD_TARGETS, ...(baselineDir ? baselineTargets(baselineDir) : [])].filter((t) =>
  !only || only.has(t.id)
);
const clientPairs = [...CLIENT_PAIRS, ...(baselineDir ? baselinePairs(baselineDir) : [])].filter((p) =>
  !only || only.has(p.id)
);

if (!skip.has("load")) {
  const entries = [];
  for (const target of loadTargets) {
    const server = await attempt(`${target.id} start`, () => startServer(target.server));
    if (!server) continue;
    const loads = new Map(
      IN_FLIGHT.map((n) => [n, openLoad(server.url, { connections: n, era: target.era })]),
    );
    // Warm-up: JIT in the server, and every connection opened (and its reply checked) before any clock starts.
    const warm = await attempt(`${target.id} warm-up`, async () => {
      for (const load of loads.values()) await load.run(300);
      return true;
    });
    const entry = { ...target, server, loads, drive: (inFlight, ms) => loads.get(inFlight).run(ms) };
    if (warm) entries.push(entry);
    else await stopEntry(entry);
  }
  await interleave("load", entries, (entry) => serverCpuMs(entry.server));
  for (const entry of entries) await stopEntry(entry);
}

async function stopEntry(entry) {
  for (const load of entry.loads.values()) await load.close().catch(() => {});
  await entry.server.stop();
}

async function rate(client, inFlight, ms) {
  let completed = 0;
  const start = performance.now();
  const deadline = start + ms;
  const worker = async () => {
    while (performance.now() < deadline) {
      if ((await client.call("echo", { text: ECHO_TEXT })) !== ECHO_TEXT) {
        throw new Error("echo returned a different text");
      }
      completed++;
    }
  };
  await within(ms + 30_000, `${inFlight} in flight`, Promise.all(Array.from({ length: inFlight }, worker)));
  return { completed, seconds: (performance.now() - start) / 1000 };
}

if (!skip.has("pairs")) {
  const entries = [];
  for (const pair of clientPairs) {
    const server = await attempt(`${pair.id} start`, () => startServer(pair.server));
    if (!server) continue;
    const client = await attempt(`${pair.id} connect`, () => pair.connect(server.url));
    if (!client) {
      await server.stop();
      continue;
    }
    // Warm-up: JIT on both sides, and 64 keep-alive connections opened before any clock starts.
    await attempt(`${pair.id} warm-up`, async () => {
      for (let i = 0; i < 10; i++) {
        await Promise.all(Array.from({ length: 64 }, () => client.call("echo", { text: ECHO_TEXT })));
      }
    });
    entries.push({ ...pair, server, client, drive: (inFlight, ms) => rate(client, inFlight, ms) });
  }
  await interleave("pair", entries, () => clientCpuMs());
  for (const { id, server, client } of entries) {
    await attempt(`${id} close`, () => client.close());
    await server.stop();
  }
}

const memory = {};
if (!skip.has("idle")) {
  const { idleListenRss } = await import("./idle_listen.mjs");
  const figure = await attempt(
    "idle listen streams",
    () => idleListenRss({ streams: Number(option("streams", 10_000)) }),
  );
  if (figure) {
    memory.idle = figure;
    log(
      `http idle listen  ${figure.streams} streams: server RSS ${(figure.baseline / 2 ** 20).toFixed(1)} → ${
        (figure.rss / 2 ** 20).toFixed(1)
      } MiB`,
    );
  }
}
if (!skip.has("flood")) {
  const { progressFloodRss } = await import("./flood_progress.mjs");
  const figure = await attempt(
    "progress flood",
    () => progressFloodRss({ notifications: Number(option("notifications", 300_000)) }),
  );
  if (figure) {
    memory.flood = figure;
    log(
      `http progress flood  server RSS ${(figure.baseline / 2 ** 20).toFixed(1)} → peak ${
        (figure.peak / 2 ** 20).toFixed(1)
      } MiB, ${figure.sent} notifications sent`,
    );
  }
}

const m = (row, id) => median(results[row]?.[id] ?? []);
const fmt = (
  v,
  d = 0,
) => (Number.isFinite(v)
  ? v.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d })
  : "—");
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b ? `${(a / b).toFixed(2)}×` : "—");
const MiB = 2 ** 20;
const lines = [];
lines.push(
  `### HTTP (bench/http/run.mjs, ${reps} repetitions, ${(durationMs / 1000).toFixed(1)} s per sample, ${
    ((performance.now() - started) / 1000).toFixed(0)
  } s)`,
);
lines.push("");
const has = (prefix) => IN_FLIGHT.some((n) => results[`${prefix}rt${n}`]);
if (has("load")) {
  const ids = loadTargets.map((t) => t.id).filter((id) => results.loadrt1?.[id] || results.loadrt64?.[id]);
  const labelOf = (id) => loadTargets.find((t) => t.id === id).label;
  lines.push(
    "Servers under the shared load generator (bench/http/load.mjs: undici, one keep-alive connection per request in flight, the same `tools/call` echo body with each era's headers, every reply checked). Primary rows.",
  );
  lines.push("");
  lines.push(
    `| Server (median) | ${IN_FLIGHT.map((n) => `rt/s, ${n} in flight`).join(" | ")} | ${
      IN_FLIGHT.map((n) => `server CPU µs/rt, ${n} in flight`).join(" | ")
    } | ${IN_FLIGHT.map((n) => `÷ SDK 2.4 modern, ${n}`).join(" | ")} | ${
      IN_FLIGHT.map((n) => `÷ floor, ${n}`).join(" | ")
    } |`,
  );
  lines.push(`|---|${Array.from({ length: IN_FLIGHT.length * 4 }, () => "---:").join("|")}|`);
  for (const id of ids) {
    const rates = IN_FLIGHT.map((n) => m(`loadrt${n}`, id));
    lines.push(
      `| ${labelOf(id)} | ${rates.map((v) => fmt(v)).join(" | ")} | ${
        IN_FLIGHT.map((n) => fmt(m(`loadcpu${n}`, id))).join(" | ")
      } | ` +
        `${IN_FLIGHT.map((n, i) => ratio(rates[i], m(`loadrt${n}`, "sdk2"))).join(" | ")} | ${
          IN_FLIGHT.map((n, i) => ratio(rates[i], m(`loadrt${n}`, "floor"))).join(" | ")
        } |`,
    );
  }
  lines.push("");
  const verdicts = IN_FLIGHT.map((n) => {
    const ours = m(`loadrt${n}`, "ours");
    const sdk = ours / m(`loadrt${n}`, "sdk2");
    const floor = ours / m(`loadrt${n}`, "floor");
    return `${n} in flight: ${ratio(ours, m(`loadrt${n}`, "sdk2"))} SDK 2.4 (target ≥ 2×: ${
      sdk >= 2 ? "met" : "**not met**"
    }), ${ratio(ours, m(`loadrt${n}`, "floor"))} floor (target ≥ 0.5×: ${
      floor >= 0.5 ? "met" : "**not met**"
    })`;
  });
  lines.push(`Targets, our modern server: ${verdicts.join("; ")}.`);
  lines.push("");
}
if (has("pair")) {
  const ids = clientPairs.map((p) => p.id).filter((id) => results.pairrt1?.[id] || results.pairrt64?.[id]);
  const labelOf = (id) => clientPairs.find((p) => p.id === id).label;
  lines.push(
    "Client libraries (the client in the benchmark process; its CPU per round trip is this process's).",
  );
  lines.push("");
  lines.push(
    `| Pair (median) | ${IN_FLIGHT.map((n) => `rt/s, ${n} in flight`).join(" | ")} | ${
      IN_FLIGHT.map((n) => `client CPU µs/rt, ${n} in flight`).join(" | ")
    } | ${IN_FLIGHT.map((n) => `÷ SDK 2.4 pair, ${n}`).join(" | ")} | ${
      IN_FLIGHT.map((n) => `÷ floor pair, ${n}`).join(" | ")
    } |`,
  );
  lines.push(`|---|${Array.from({ length: IN_FLIGHT.length * 4 }, () => "---:").join("|")}|`);
  for (const id of ids) {
    const rates = IN_FLIGHT.map((n) => m(`pairrt${n}`, id));
    lines.push(
      `| ${labelOf(id)} | ${rates.map((v) => fmt(v)).join(" | ")} | ${
        IN_FLIGHT.map((n) => fmt(m(`paircpu${n}`, id))).join(" | ")
      } | ${IN_FLIGHT.map((n, i) => ratio(rates[i], m(`pairrt${n}`, "sdk2"))).join(" | ")} | ${
        IN_FLIGHT.map((n, i) => ratio(rates[i], m(`pairrt${n}`, "floor"))).join(" | ")
      } |`,
    );
  }
  lines.push("");
}
if (Object.keys(results).length) {
  lines.push(
    `Samples: ${
      Object.entries(results).map(([row, byId]) =>
        `\`${row}\` ${
          Object.entries(byId).map(([id, s]) => `${id} [${s.map((v) => fmt(v)).join(", ")}]`).join(" · ")
        }`
      ).join("; ")
    }`,
  );
  lines.push("");
}
if (memory.idle) {
  const f = memory.idle;
  lines.push(
    `- ${fmt(f.streams)} idle \`subscriptions/listen\` streams on our server: RSS ${
      fmt(f.baseline / MiB, 1)
    } MiB before, ${fmt(f.rss / MiB, 1)} MiB with them open: ${
      fmt((f.rss - f.baseline) / f.streams / 1024, 1)
    } KiB per stream, about ${
      fmt(2 ** 30 / Math.max(1, (f.rss - f.baseline) / f.streams))
    } streams per GiB (opened in ${fmt(f.openMs)} ms).`,
  );
}
if (memory.flood) {
  const f = memory.flood;
  lines.push(
    `- One client that never reads a \`tools/call\` stream of ${
      fmt(f.notifications)
    } progress notifications: server RSS ${fmt(f.baseline / MiB, 1)} MiB before, peak ${
      fmt(f.peak / MiB, 1)
    } MiB (growth ${fmt((f.peak - f.baseline) / MiB, 1)} MiB; ${
      fmt(f.sent)
    } notifications handed to the stream when sampling stopped after ${fmt(f.sampledMs)} ms).`,
  );
}
if (failures.length) lines.push("", `Failures: ${failures.join("; ")}`);
process.stdout.write(`${lines.join("\n")}\n`);
