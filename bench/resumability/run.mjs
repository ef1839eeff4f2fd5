#!/usr/bin/env node
// What resumable streams and session stores cost (docs/resumability.md): run after `npm run build`.
//
//   node --expose-gc bench/resumability/run.mjs [--events 100000] [--calls 300]
//
// 1. MemoryEventStore: time per append and heap per stored event (200-byte events).
// 2. A legacy tools/call streaming 20 progress notifications through createHttpHandler, in process:
//    time per call with resumability off and on (every event stored before it is sent).
// 3. With redis-server on PATH (or REDIS_SERVER_PATH): RedisEventStore per append, RedisSessionStore
//    per save and per load (one round trip each, loopback), and the handler call of 2 with Redis stores.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { ContextServer, createHttpHandler } from "onemodelcontext";
import { MemoryEventStore } from "onemodelcontext/protocol";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const EVENTS = arg("events", 100_000);
const CALLS = arg("calls", 300);
const gc = globalThis.gc ?? (() => {});
const rows = [];
const row = (what, value, unit) => {
  rows.push([what, value, unit]);
  console.error(`${what}: ${value} ${unit}`);
};

// 1. memory store
{
  const store = new MemoryEventStore({ maxBytes: 1024 ** 3, maxAge: 3_600_000 });
  const data = JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: 1, progress: 1, total: 100, message: "x".repeat(100) },
  });
  gc();
  const before = process.memoryUsage().heapUsed;
  const t0 = process.hrtime.bigint();
  for (let seq = 0; seq < EVENTS; seq++) {
    store.append("session", { streamId: `s${seq >> 10}`, seq: seq & 1023, data });
  }
  const t1 = process.hrtime.bigint();
  gc();
  const after = process.memoryUsage().heapUsed;
  row(
    `MemoryEventStore append (${data.length}-byte event)`,
    (Number(t1 - t0) / EVENTS).toFixed(0),
    "ns/event",
  );
  row(
    "MemoryEventStore heap per stored event (data shared)",
    ((after - before) / EVENTS).toFixed(0),
    "bytes",
  );
  row(
    "MemoryEventStore bytes counted per event against maxBytes",
    (store.bytes / EVENTS).toFixed(0),
    "bytes",
  );
}

function server() {
  const mcp = new ContextServer({ name: "bench", version: "1" });
  mcp.tool("progress_stream", { description: "n" }, async (_a, ctx) => {
    for (let i = 1; i <= 20; i++) await ctx.sendProgress(i, { total: 20 });
    return "sent 20";
  });
  return mcp;
}

async function callsPerSecond(options, label) {
  const handler = createHttpHandler(server(), { keepAliveInterval: 0, sessions: true, ...options });
  const post = (body, headers = {}) =>
    handler(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        body: JSON.stringify(body),
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          ...headers,
        },
      }),
    );
  const init = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "b", version: "1" } },
  });
  const headers = {
    "Mcp-Session-Id": init.headers.get("mcp-session-id"),
    "MCP-Protocol-Version": "2025-11-25",
  };
  await init.text();
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  const call = async (id) => {
    const response = await post({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "progress_stream", arguments: {}, _meta: { progressToken: id } },
    }, headers);
    await response.text();
  };
  for (let i = 0; i < 30; i++) await call(i + 1); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await call(i + 100);
  const us = Number(process.hrtime.bigint() - t0) / 1000 / CALLS;
  row(`legacy tools/call with 20 progress events, ${label}`, us.toFixed(0), "µs/call");
  await handler.close();
  return us;
}

const off = await callsPerSecond({}, "resumability off");
const on = await callsPerSecond({ resumability: true }, "resumability on (memory store)");
row(
  "what the memory event store adds per SSE event",
  ((on - off) / 22).toFixed(1),
  "µs/event (22 events a call)",
);

// 3. Redis
const REDIS = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";
if (!existsSync(REDIS)) {
  console.error(`Redis rows skipped: no redis-server at ${REDIS}`);
} else {
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const child = spawn(REDIS, [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
  ], { stdio: "ignore" });
  const { createClient } = await import("redis");
  const { RedisEventStore, RedisSessionStore } = await import("onemodelcontext/redis");
  let client;
  for (let i = 0; i < 50 && !client; i++) {
    try {
      client = await createClient({ url: `redis://127.0.0.1:${port}` }).connect();
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const events = new RedisEventStore({ client });
  const data = "x".repeat(200);
  const n = 5000;
  let t0 = process.hrtime.bigint();
  for (let seq = 0; seq < n; seq++) await events.append("session", { streamId: "bench", seq, data });
  row(
    "RedisEventStore append (loopback, one EVAL)",
    (Number(process.hrtime.bigint() - t0) / 1000 / n).toFixed(0),
    "µs/event",
  );
  t0 = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) await events.read("session", "bench", n - 100);
  row(
    "RedisEventStore resume read (100 of 5000 events)",
    (Number(process.hrtime.bigint() - t0) / 1000 / 200).toFixed(0),
    "µs/read",
  );
  const sessions = new RedisSessionStore({ client });
  const state = {
    protocolVersion: "2025-11-25",
    clientInfo: { name: "c", version: "1" },
    clientCapabilities: { sampling: {} },
    initialized: true,
  };
  t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await sessions.save(`s${i}`, state, 300_000);
  row("RedisSessionStore save", (Number(process.hrtime.bigint() - t0) / 1000 / n).toFixed(0), "µs/save");
  t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await sessions.load(`s${i}`);
  row(
    "RedisSessionStore load (a replica meeting a session)",
    (Number(process.hrtime.bigint() - t0) / 1000 / n).toFixed(0),
    "µs/load",
  );
  const redisOn = await callsPerSecond(
    { resumability: { eventStore: events }, sessionStore: sessions },
    "resumability on (Redis stores)",
  );
  row(
    "what the Redis event store adds per SSE event",
    ((redisOn - off) / 22).toFixed(1),
    "µs/event (22 events a call)",
  );
  await client.quit();
  child.kill("SIGKILL");
}

console.log("\n| measurement | value | unit |\n|---|---:|---|");
for (const [what, value, unit] of rows) console.log(`| ${what} | ${value} | ${unit} |`);
