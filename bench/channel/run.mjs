#!/usr/bin/env node
// NewlineChannel throughput beside a naive baseline, in one run, on Node 20.
//
//   node bench/channel/run.mjs [--quick] [--no-build] [--runs N]
//
// Builds src/stream/newline_channel.ts (and the in-memory pair) into bench/channel/build with the project's
// TypeScript, then measures messages/s and MiB/s for 200-byte and 64 KiB messages:
//   - memory: through an in-memory duplex pair (testing/duplex_pair.ts), one process;
//   - pipe:   through real OS pipes to a child process that echoes stdin to stdout.
// The channel side of the pipe uses adapters/node/mod.ts (nodeReadable / nodeWritable), the glue that
// spawnProcess uses. "naive" is what most hand-written stdio transports do: `JSON.stringify(m) + "\n"` writes, reads
// by `split("\n")` + `JSON.parse`. "channel" is NewlineChannel.send / read + JSON.parse on the same
// transport. Every message is parsed on the receiving side and checked by id. Prints a Markdown table.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";
import { cpus } from "node:os";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const runsArg = args.indexOf("--runs");
const RUNS = runsArg >= 0 ? Number(args[runsArg + 1]) : quick ? 1 : 3;

if (!args.includes("--no-build")) {
  try {
    execFileSync(process.execPath, [
      join(root, "node_modules", "typescript", "bin", "tsc"),
      "-p",
      join(here, "tsconfig.json"),
    ], {
      stdio: "inherit",
    });
  } catch {
    // tsc still emits on type errors elsewhere; the imports below fail if it did not.
    process.stderr.write("tsc reported errors; running on what it emitted\n");
  }
}
const { NewlineChannel } = await import(
  pathToFileURL(join(here, "build", "src", "stream", "newline_channel.js")).href
);
const { createDuplexPair } = await import(
  pathToFileURL(join(here, "build", "testing", "duplex_pair.js")).href
);
// The project's own Node glue (pull-based stdout, write-until-'drain' stdin), as spawnProcess uses it.
const { nodeReadable, nodeWritable } = await import(
  pathToFileURL(join(here, "build", "adapters", "node", "mod.js")).href
);

const encoder = new TextEncoder();

/** A JSON-RPC notification whose line (with "\n") is `lineBytes` long; `id` in params. */
function makeMessages(count, lineBytes) {
  const probe = (pad) => ({
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { id: 0, data: "x".repeat(pad) },
  });
  const base = JSON.stringify(probe(0)).length + 1;
  const out = [];
  for (let id = 0; id < count; id++) {
    const m = probe(Math.max(0, lineBytes - base - (String(id).length - 1)));
    m.params.id = id;
    out.push(m);
  }
  return out;
}

function checkOrder(received, expected) {
  if (received !== expected) throw new Error(`Lost messages: got ${received} of ${expected}`);
}

// ---- the two implementations, each as { send(all), receive(count) } over a web duplex -------------

async function naiveSend(writable, messages) {
  const writer = writable.getWriter();
  for (const m of messages) {
    await writer.ready;
    writer.write(encoder.encode(JSON.stringify(m) + "\n")).catch(() => {});
  }
  await writer.close();
}

async function naiveReceive(readable, _count) {
  const decoder = new TextDecoder();
  let buffer = "";
  let next = 0;
  for await (const chunk of readable) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop();
    for (const line of lines) {
      if (!line) continue;
      const m = JSON.parse(line);
      if (m.params.id !== next++) throw new Error("Out of order");
    }
  }
  return next;
}

async function channelSend(channel, messages) {
  for (const m of messages) await channel.send(m);
  const outcome = await channel.closeOutput();
  if (outcome !== "drained") throw new Error(`Drain ended with ${outcome}`);
}

async function channelReceive(channel, count) {
  let next = 0;
  while (next < count) {
    const event = await channel.read();
    if (event === undefined) break;
    if (event.kind !== "line") throw event.error;
    const m = JSON.parse(event.text);
    if (m.params.id !== next++) throw new Error("Out of order");
  }
  return next;
}

// ---- transports ----------------------------------------------------------------------------------

async function runMemory(impl, messages) {
  const [a, b] = createDuplexPair();
  const start = performance.now();
  let received;
  if (impl === "naive") {
    [, received] = await Promise.all([
      naiveSend(a.writable, messages),
      naiveReceive(b.readable, messages.length),
    ]);
  } else {
    const left = new NewlineChannel(a);
    const right = new NewlineChannel(b);
    [, received] = await Promise.all([channelSend(left, messages), channelReceive(right, messages.length)]);
    await right.close();
    await left.close();
  }
  const ms = performance.now() - start;
  checkOrder(received, messages.length);
  return ms;
}

function spawnEcho() {
  const child = spawn(process.execPath, [join(here, "echo_child.mjs")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  return child;
}

async function runPipe(impl, messages) {
  const child = spawnEcho();
  const exited = once(child, "exit");
  const start = performance.now();
  let received;
  if (impl === "naive") {
    // Plain Node streams, the way a hand-written transport does it.
    const sending = (async () => {
      for (const m of messages) {
        if (!child.stdin.write(JSON.stringify(m) + "\n")) await once(child.stdin, "drain");
      }
      child.stdin.end();
    })();
    const receiving = new Promise((resolve, reject) => {
      let buffer = "";
      let next = 0;
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (text) => {
        buffer += text;
        const lines = buffer.split("\n");
        buffer = lines.pop();
        try {
          for (const line of lines) {
            if (!line) continue;
            const m = JSON.parse(line);
            if (m.params.id !== next++) throw new Error("Out of order");
          }
        } catch (error) {
          reject(error);
        }
      });
      child.stdout.on("end", () => resolve(next));
      child.stdout.on("error", reject);
    });
    [, received] = await Promise.all([sending, receiving]);
  } else {
    const duplex = { readable: nodeReadable(child.stdout), writable: nodeWritable(child.stdin) };
    const channel = new NewlineChannel(duplex);
    [, received] = await Promise.all([
      channelSend(channel, messages),
      channelReceive(channel, messages.length),
    ]);
    await channel.close();
  }
  const ms = performance.now() - start;
  await exited;
  checkOrder(received, messages.length);
  return ms;
}

// ---- the run --------------------------------------------------------------------------------------

const scale = quick ? 0.1 : 1;
const scenarios = [
  { transport: "memory", label: "200 B", lineBytes: 200, count: Math.round(100_000 * scale), run: runMemory },
  {
    transport: "memory",
    label: "64 KiB",
    lineBytes: 64 * 1024,
    count: Math.round(2_000 * scale),
    run: runMemory,
  },
  {
    transport: "OS pipe, echo child",
    label: "200 B",
    lineBytes: 200,
    count: Math.round(100_000 * scale),
    run: runPipe,
  },
  {
    transport: "OS pipe, echo child",
    label: "64 KiB",
    lineBytes: 64 * 1024,
    count: Math.round(2_000 * scale),
    run: runPipe,
  },
];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const rows = [];
for (const sc of scenarios) {
  const messages = makeMessages(sc.count, sc.lineBytes);
  const bytes = messages.reduce((n, m) => n + encoder.encode(JSON.stringify(m)).byteLength + 1, 0);
  // Warm up both paths once on a slice, then alternate naive / channel RUNS times.
  await sc.run("naive", messages.slice(0, Math.max(1, messages.length / 10)));
  await sc.run("channel", messages.slice(0, Math.max(1, messages.length / 10)));
  const times = { naive: [], channel: [] };
  for (let r = 0; r < RUNS; r++) {
    for (const impl of ["naive", "channel"]) times[impl].push(await sc.run(impl, messages));
  }
  const row = { ...sc, bytes };
  for (const impl of ["naive", "channel"]) {
    const ms = median(times[impl]);
    row[impl] = { ms, msgs: (sc.count / ms) * 1000, mibs: (bytes / ms) * 1000 / (1024 * 1024) };
  }
  rows.push(row);
  process.stderr.write(
    `${sc.transport} ${sc.label}: naive ${row.naive.ms.toFixed(0)} ms, channel ${
      row.channel.ms.toFixed(0)
    } ms\n`,
  );
}

const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1));
const lines = [
  `Node ${process.version}, ${cpus().length} × ${
    cpus()[0]?.model.trim() ?? "cpu"
  }; median of ${RUNS} run(s) after a warm-up; each message parsed on arrival.`,
  "",
  "| transport | message | messages | naive msg/s | naive MiB/s | channel msg/s | channel MiB/s | channel / naive |",
  "|---|---|---:|---:|---:|---:|---:|---:|",
  ...rows.map(
    (r) =>
      `| ${r.transport} | ${r.label} | ${r.count.toLocaleString("en-US")} | ${fmt(r.naive.msgs)} | ${
        fmt(r.naive.mibs)
      } | ${fmt(r.channel.msgs)} | ${fmt(r.channel.mibs)} | ${(r.channel.msgs / r.naive.msgs).toFixed(2)}× |`,
  ),
];
console.log(lines.join("\n"));
