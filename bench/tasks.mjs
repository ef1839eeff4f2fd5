#!/usr/bin/env node
/**
 * Task latency (the tasks extension): task creation (`TaskEngine.start`: the record written, so a
 * `tasks/get` anywhere finds it) and `tasks/get` (`TaskEngine.get`), p50 and p99 in microseconds,
 * with the in-memory store and with `RedisTaskStore` on a local redis-server (started here on a free
 * port; skipped when /usr/bin/redis-server is absent). Prints a Markdown table to stdout.
 *
 *   npm run build && node bench/tasks.mjs [--count=2000]
 *
 * Tasks per second through three replicas and the time from a replica's death to its tasks' terminal
 * status are measured by test/scaleout/everything_tasks_replicas.test.ts (docs/tasks.md).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryTaskStore, TaskEngine } from "onemodelcontext/protocol";
import { freePort, waitForPort } from "../examples/deploy/deploy_kit.mjs";

const count = Number(process.argv.find((a) => a.startsWith("--count="))?.slice(8) ?? 2000);
const REDIS = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Creates `count` tasks (work that never ends) and reads each once; returns the latencies in µs. */
async function measure(store) {
  const engine = new TaskEngine({ store, leaseMs: 600_000 });
  const create = [];
  const get = [];
  const ids = [];
  for (let i = 0; i < 100; i++) ids.push((await engine.start({}, () => new Promise(() => {}))).taskId); // warm-up
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const task = await engine.start({}, () => new Promise(() => {}));
    create.push((performance.now() - t0) * 1000);
    ids.push(task.taskId);
  }
  for (const id of ids.slice(100)) {
    const t0 = performance.now();
    await engine.get(id);
    get.push((performance.now() - t0) * 1000);
  }
  engine.close();
  const row = (values) => {
    values.sort((a, b) => a - b);
    return `${percentile(values, 50).toFixed(0)} / ${percentile(values, 99).toFixed(0)}`;
  };
  return { create: row(create), get: row(get) };
}

const rows = [];
rows.push(["memory (`MemoryTaskStore`)", await measure(new MemoryTaskStore({ maxTasks: count + 200 }))]);

if (existsSync(REDIS)) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "onemodelcontext-bench-redis-"));
  const server = spawn(REDIS, [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
  ], {
    stdio: "ignore",
  });
  try {
    await waitForPort(port, { what: "redis-server" });
    const { createClient } = await import("redis");
    const { RedisTaskStore } = await import("onemodelcontext/redis");
    const client = await createClient({ url: `redis://127.0.0.1:${port}` }).connect();
    rows.push([
      "Redis (`RedisTaskStore`, local redis-server)",
      await measure(new RedisTaskStore({ client })),
    ]);
    await client.quit();
  } finally {
    server.kill("SIGKILL");
  }
} else {
  console.error(`bench/tasks.mjs: ${REDIS} not found; the Redis row is skipped`);
}

console.log(`\n### Tasks (${count} tasks each, one at a time; latency p50 / p99 in µs)\n`);
console.log("| store | creation | tasks/get |");
console.log("|---|---|---|");
for (const [name, r] of rows) console.log(`| ${name} | ${r.create} | ${r.get} |`);
process.exit(0);
