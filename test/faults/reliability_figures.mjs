#!/usr/bin/env node
// Issue 12 figures, ours beside the official SDKs on the same input (not part of `npm test`: it
// only measures and prints a table; the bounds themselves are asserted in test/src and test/faults).
//   npx tsc -p tsconfig.build.json && node test/faults/reliability_figures.mjs [scenario…]
//   FIGURES_KINDS=ours FIGURES_DIST=/abs/path/to/other/dist node test/faults/reliability_figures.mjs …  (a before figure)
// Scenarios: notifications, inflight, peertext, bigid, batch, bigreply. Servers: test/fixtures/faults/
// reliability_server.mjs (ours | sdk1 | sdk2); the client rows use test/fixtures/faults/hostile_server.mjs.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const SERVER = join(ROOT, "test/fixtures/faults/reliability_server.mjs");
const HOSTILE = join(ROOT, "test/fixtures/faults/hostile_server.mjs");
// FIGURES_KINDS=ours FIGURES_DIST=/path/to/old/dist measures an older build of ours alone.
const KINDS = process.env.FIGURES_KINDS?.split(",") ?? ["ours", "sdk1", "sdk2"];
const MiB = 1024 * 1024;
const rows = [];
const mib = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;

function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

/** A server process driven as a raw peer: lines out, parsed replies by id, the last STATS line. */
function start(kind, env = {}) {
  const child = spawn(process.execPath, [SERVER, kind], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines = [];
  const waiters = [];
  let stats = {};
  let rest = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text) => {
    rest += text;
    let nl;
    while ((nl = rest.indexOf("\n")) !== -1) {
      lines.push(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
    }
    for (const w of waiters.splice(0)) w();
  });
  let errText = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text) => {
    errText += text;
    const all = errText.split("\n");
    errText = all.pop();
    for (const l of all) if (l.startsWith("STATS ")) stats = JSON.parse(l.slice(6));
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.stdin.on("error", () => {});
  return {
    child,
    lines,
    get stats() {
      return stats;
    },
    exited,
    write: (text) =>
      new Promise((resolve) => (child.stdin.write(text) ? resolve() : child.stdin.once("drain", resolve))),
    /** Waits for a line matching `test`, up to `ms`; undefined when none came. */
    async waitFor(test, ms = 30_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = lines.find(test);
        if (found !== undefined) return found;
        if (Date.now() > deadline || child.exitCode !== null) return undefined;
        await new Promise((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    async initialize(version = "2025-06-18") {
      await this.write(
        JSON.stringify({
          jsonrpc: "2.0",
          id: "init",
          method: "initialize",
          params: {
            protocolVersion: version,
            capabilities: {},
            clientInfo: { name: "figures", version: "1" },
          },
        }) + "\n",
      );
      await this.waitFor((l) => l.includes('"init"'));
      await this.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
      await new Promise((r) => setTimeout(r, 200));
    },
    async stop() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
const hasId = (id) => (line) => line.startsWith("{") && line.includes(`"id":${JSON.stringify(id)}`);

async function notifications(kind) {
  const s = start(kind);
  await s.initialize();
  const before = memoryOf(s.child.pid);
  const line = JSON.stringify({ jsonrpc: "2.0", method: "notifications/roots/list_changed" }) + "\n";
  const block = line.repeat(1000);
  for (let i = 0; i < 200; i++) await s.write(block);
  await s.write(JSON.stringify({ jsonrpc: "2.0", id: "after", method: "ping" }) + "\n");
  const answered = await s.waitFor(hasId("after"), 120_000);
  for (let i = 0; i < 100 && s.stats.notificationsDone < 200_000; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const after = memoryOf(s.child.pid);
  await s.stop();
  return `peak ${s.stats.notificationsPeak} handlers at once; RSS +${
    mib(after.hwm - before.rss)
  }; ${s.stats.notificationsDone} of 200,000 run${answered ? "" : "; ping unanswered"}`;
}

async function inflight(kind) {
  const s = start(kind, { SLEEP_MS: process.env.FIGURES_SLEEP_MS ?? "10000" });
  await s.initialize();
  const before = memoryOf(s.child.pid);
  const pad = "x".repeat(10_000_000);
  const started = Date.now();
  const writing = (async () => {
    for (let i = 0; i < 64; i++) {
      await s.write(
        JSON.stringify({
          jsonrpc: "2.0",
          id: `c${i}`,
          method: "tools/call",
          params: { name: "t", arguments: { pad } },
        }) + "\n",
      );
    }
  })();
  let answered = 0;
  for (let i = 0; i < 64; i++) if (await s.waitFor(hasId(`c${i}`), 180_000)) answered++;
  await writing;
  const after = memoryOf(s.child.pid);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  await s.stop();
  return `peak RSS +${
    mib(after.hwm - before.rss)
  }; ${s.stats.callsPeak} calls at once; ${answered} of 64 answered in ${seconds} s`;
}

async function peertext(kind) {
  const s = start(kind);
  await s.initialize();
  const big = "m".repeat(10_000_000);
  await s.write(JSON.stringify({ jsonrpc: "2.0", id: "method", method: `${big}\nFORGED` }) + "\n");
  const method = await s.waitFor(hasId("method"), 60_000);
  await s.write(JSON.stringify({ jsonrpc: "2.0", id: `${big}\nFORGED`, method: "ping" }) + "\n");
  await s.write(JSON.stringify({ jsonrpc: "2.0", id: "next", method: "ping" }) + "\n");
  await s.waitFor(hasId("next"), 60_000);
  const idReply = s.lines.find((l) => l !== method && !l.includes('"next"') && !l.includes('"init"'));
  await new Promise((r) => setTimeout(r, 300));
  await s.stop();
  const size = (l) => (l === undefined ? "none" : `${l.length.toLocaleString("en")} B`);
  const reports = kind === "ours"
    ? `; reports ${s.stats.reports}, longest ${s.stats.longestReport} chars`
    : "";
  return `10 MB method → reply ${size(method)}; 10 MB id → reply ${size(idReply)}${reports}`;
}

async function bigid(kind) {
  const s = start(kind);
  await s.initialize();
  await s.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n');
  const reply = await s.waitFor((l) => l.includes("900719925474099"), 10_000);
  await s.stop();
  return reply === undefined ? "no reply" : `\`${reply.slice(0, 90)}\``;
}

async function batch(kind) {
  const s = start(kind);
  await s.initialize("2025-03-26");
  await s.write(
    '[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":"b2","method":"tools/list"}]\n',
  );
  const reply = await s.waitFor(
    (l) => l.includes('"b1"') || l.includes("-32600") || l.includes("atch"),
    5_000,
  );
  const beforeEmpty = s.lines.length;
  await s.write("[]\n");
  await s.write('{"jsonrpc":"2.0","id":"after","method":"ping"}\n');
  await s.waitFor(hasId("after"), 5_000);
  const empty = s.lines.slice(beforeEmpty).find((l) => !l.includes('"after"'));
  await s.stop();
  const show = (l) => (l === undefined ? "no reply" : `\`${l.length > 110 ? l.slice(0, 110) + "…" : l}\``);
  return `batch → ${show(reply)}; \`[]\` → ${show(empty)}`;
}

async function bigreply(kind) {
  const env = { ...process.env, FAULT_MODE: "huge-reply" };
  const started = Date.now();
  let outcome;
  const cap = new Promise((resolve) => setTimeout(() => resolve("still pending after 20 s"), 20_000));
  if (kind === "ours") {
    const { ContextClient } = await import("../../dist/src/mod.js");
    const { spawnProcess } = await import("../../dist/adapters/node/mod.js");
    const client = await ContextClient.connect(spawnProcess(process.execPath, [HOSTILE], { env }), {
      era: "legacy",
      onReport: () => {},
    });
    outcome = await Promise.race([
      client.request("tools/call", { name: "t", arguments: {} }).then(
        () => "resolved",
        (e) => `${e.name} after ${Date.now() - started} ms`,
      ),
      cap,
    ]);
    await client.close();
  } else {
    const { Client } = await import(
      kind === "sdk1" ? "@modelcontextprotocol/sdk/client/index.js" : "@modelcontextprotocol/client"
    );
    const { StdioClientTransport } = await import(
      kind === "sdk1" ? "@modelcontextprotocol/sdk/client/stdio.js" : "@modelcontextprotocol/client/stdio"
    );
    const client = new Client({ name: "figures", version: "1" });
    const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTILE], env });
    client.onerror = () => {};
    await client.connect(transport);
    const t0 = Date.now();
    outcome = await Promise.race([
      client.callTool({ name: "t", arguments: {} }).then(
        () => "resolved",
        (e) =>
          `${e?.constructor?.name ?? "error"} (${String(e?.message).slice(0, 60)}) after ${
            Date.now() - t0
          } ms`,
      ),
      cap,
    ]);
    await client.close().catch(() => {});
  }
  return outcome;
}

const SCENARIOS = {
  notifications: [
    "200,000 `notifications/roots/list_changed` to an async handler (20 ms each), then a ping",
    notifications,
  ],
  inflight: [
    `64 \`tools/call\` of 10 MB each, handler ${Number(process.env.FIGURES_SLEEP_MS ?? 10000) / 1000} s`,
    inflight,
  ],
  peertext: ["a 10 MB method, then a 10 MB id (each with a newline)", peertext],
  bigid: ["`ping` with id 9007199254740993", bigid],
  batch: ["2025-03-26 session: batch [ping, notification, tools/list], then `[]`", batch],
  bigreply: [
    "client; the server answers `tools/call` with a 20 MB reply (client limit 16 MiB ours, 10 MiB SDKs)",
    bigreply,
  ],
};
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SCENARIOS);
for (const name of chosen) {
  const [input, run] = SCENARIOS[name];
  const cells = [];
  for (const kind of KINDS) {
    let cell;
    try {
      cell = await run(kind);
    } catch (error) {
      cell = `failed: ${String(error?.message ?? error).slice(0, 80)}`;
    }
    cells.push(cell);
    console.error(`${name} ${kind}: ${cell}`);
  }
  rows.push(`| ${input} | ${cells.join(" | ")} |`);
}
console.log("| input | ours | sdk 1.32.2 | server/client 2.4.0 |\n|---|---|---|---|\n" + rows.join("\n"));
