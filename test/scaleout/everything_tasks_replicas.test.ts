/**
 * Tasks that outlive their replica: three everything replicas behind nginx sharing redis-server
 * (`--redis URL`, `ONEMODELCONTEXT_TASK_LEASE_MS=3000`). 150 `long_task` tasks are created through
 * nginx (round robin, so about 50 per replica), one replica is SIGKILLed while they work, and every
 * task is then still found through the survivors and ends terminal: `completed` (its own replica
 * finished it, or, `long_task` being safe to repeat, a survivor ran it again after the lease ran out)
 * or `failed` with a lost-worker error. None stays `working`.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, type Deployment } from "../../examples/deploy/run.mjs";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { type RedisServer, startRedisServer } from "./fixtures/redis_server.ts";

const SERVER = join(import.meta.dirname, "../../examples/everything/server.mjs");
const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const LEASE_MS = 3000;
const WORK_MS = 4000;
const TOTAL = 150;
let logs = "";
const log = (text: string) => void (logs += text);
let nextId = 1;
/** The port of the replica that answered the last request (nginx's X-Upstream-Addr). */
let lastUpstream = "";

// deno-lint-ignore no-explicit-any
type Json = any;

/** One modern request through nginx with the tasks extension declared; retried on nginx's 502 (a dead replica). */
async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown>,
  name: string,
): Promise<Json> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const body = {
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { [TASKS]: {} } },
        },
      },
    };
    const reply = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
        "Mcp-Name": name,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    if (reply.status === 502) continue; // sent to the killed replica: a tasks/get is safe to repeat
    lastUpstream = reply.headers.get("x-upstream-addr")?.split(",").at(-1)?.trim().split(":").at(-1) ?? "";
    const json = await reply.json() as Json;
    if (json.error) throw new Error(`${method} ${name}: ${JSON.stringify(json.error)}`);
    return json.result;
  }
  throw new Error(`${method} ${name}: nginx answered 502 five times`);
}

describe("tasks across three replicas sharing Redis", () => {
  let redis: RedisServer;
  let deployment: Deployment;

  beforeAll(async () => {
    ensureDist();
    redis = await startRedisServer();
    deployment = await deploy({
      replicas: 3,
      command: [process.execPath, SERVER, "--redis", `redis://127.0.0.1:${redis.port}`],
      env: { ONEMODELCONTEXT_TASK_LEASE_MS: String(LEASE_MS) },
      upstreamKeepaliveTimeoutSeconds: 1,
      upstreamHeader: true,
      replicaStartTimeoutMs: 60_000, // three Node starts at once on a loaded 2-core machine
      log,
    });
  }, 120_000);

  afterAll(async () => {
    await deployment?.stop();
    await redis?.kill();
  });

  it(
    "sends notifications/tasks over Redis to a listen stream held by another replica than the task's",
    async () => {
      const url = `${deployment.url}/mcp`;
      const created = await rpc(
        url,
        "tools/call",
        { name: "long_task", arguments: { ms: 1500 } },
        "long_task",
      );
      const taskReplica = lastUpstream;
      const params = {
        notifications: { taskIds: [created.taskId] },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
        },
      };
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(new Error("no notifications/tasks within 20 s")), 20_000);
      const reply = await fetch(url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "MCP-Protocol-Version": MODERN,
          "Mcp-Method": "subscriptions/listen",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "subscriptions/listen", params }),
        signal: stop.signal,
      });
      const listenReplica = reply.headers.get("x-upstream-addr")?.split(",").at(-1)?.trim().split(":").at(-1);
      expect(reply.status).toBe(200);
      const reader = reply.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      let completed: Json;
      try {
        while (completed === undefined) {
          const { value, done } = await reader.read();
          if (done) break;
          text += value;
          for (const line of text.split("\n")) {
            if (!line.startsWith("data:")) continue;
            const message = JSON.parse(line.slice(5));
            if (
              message.method === "notifications/tasks" && message.params.status === "completed"
            ) completed = message;
          }
        }
      } finally {
        clearTimeout(timer);
        stop.abort();
      }
      expect(listenReplica).not.toBe(taskReplica); // round robin: the stream is on another replica
      expect(completed.params).toMatchObject({
        taskId: created.taskId,
        result: { content: [{ text: "done after 1500 ms" }] },
      });
    },
    60_000,
  );

  it(
    `keeps ${TOTAL} tasks findable and brings each to a terminal status within the lease when a replica is SIGKILLed`,
    async () => {
      const url = `${deployment.url}/mcp`;
      const taskIds: string[] = [];
      const createdAt = performance.now();
      let next = 0;
      await Promise.all(Array.from({ length: 15 }, async () => {
        while (next < TOTAL) {
          next++;
          const created = await rpc(
            url,
            "tools/call",
            { name: "long_task", arguments: { ms: WORK_MS } },
            "long_task",
          );
          expect(created.resultType, JSON.stringify(created)).toBe("task");
          taskIds.push(created.taskId);
        }
      }));
      const creationMs = performance.now() - createdAt;
      // Every task is found at once through any replica (creation is strongly consistent).
      for (const taskId of taskIds.slice(0, 30)) {
        expect((await rpc(url, "tasks/get", { taskId }, taskId)).taskId).toBe(taskId);
      }
      const victim = deployment.replicas.find((r) => r.name === "r2")!;
      const killedAt = performance.now();
      expect(await victim.stop("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });

      const statuses = new Map<string, Json>();
      const deadline = killedAt + LEASE_MS + 2 * WORK_MS + 20_000; // a no-hang bound, not a timing claim
      while (performance.now() < deadline) {
        const open = taskIds.filter((id) =>
          !["completed", "failed", "cancelled"].includes(statuses.get(id)?.status)
        );
        if (open.length === 0) break;
        await Promise.all(
          open.map(async (taskId) => statuses.set(taskId, await rpc(url, "tasks/get", { taskId }, taskId))),
        );
        await new Promise((resolve) => setTimeout(resolve, 250)); // polling, as a client does at pollIntervalMs
      }
      const terminalMs = performance.now() - killedAt;
      const counts: Record<string, number> = {};
      for (const taskId of taskIds) {
        const task = statuses.get(taskId);
        const key = task?.status === "failed" ? `failed:${task.error?.data?.reason}` : String(task?.status);
        counts[key] = (counts[key] ?? 0) + 1;
        if (task?.status === "completed") {
          expect(task.result.content[0].text).toBe(`done after ${WORK_MS} ms`);
        }
      }
      console.log(
        `tasks across replicas: ${TOTAL} created in ${creationMs.toFixed(0)} ms; all terminal ${
          terminalMs.toFixed(0)
        } ms after the SIGKILL (lease ${LEASE_MS} ms, work ${WORK_MS} ms): ${JSON.stringify(counts)}`,
      );
      expect(taskIds).toHaveLength(TOTAL);
      expect(counts.working ?? 0, logs.slice(-2000)).toBe(0);
      expect(counts.input_required ?? 0).toBe(0);
      expect((counts.completed ?? 0) + (counts["failed:worker_lost"] ?? 0)).toBe(TOTAL);
    },
    120_000,
  );

  it(
    "fails the tasks of a SIGKILLed replica that are not safe to repeat (worker lost) within the lease, and leaves the others alone",
    async () => {
      const url = `${deployment.url}/mcp`;
      const byReplica = new Map<string, string[]>();
      for (let i = 0; i < 20; i++) {
        const created = await rpc(url, "tools/call", {
          name: "confirm_delete",
          arguments: { filename: `f${i}` },
        }, "confirm_delete");
        expect(created.resultType).toBe("task");
        byReplica.set(lastUpstream, [...(byReplica.get(lastUpstream) ?? []), created.taskId]);
      }
      const victim = deployment.replicas.find((r) => r.name === "r3")!;
      const doomed = byReplica.get(String(victim.port)) ?? [];
      const kept = [...byReplica].filter(([port]) => port !== String(victim.port)).flatMap(([, ids]) => ids);
      expect(doomed.length, JSON.stringify([...byReplica.keys()])).toBeGreaterThan(0);
      for (const taskId of [...doomed, ...kept]) {
        const deadline = performance.now() + 20_000;
        while ((await rpc(url, "tasks/get", { taskId }, taskId)).status !== "input_required") {
          if (performance.now() > deadline) throw new Error(`task ${taskId} never asked for input`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      const killedAt = performance.now();
      await victim.stop("SIGKILL");
      const open = new Set(doomed);
      while (open.size > 0 && performance.now() < killedAt + LEASE_MS + 20_000) {
        for (const taskId of [...open]) {
          const task = await rpc(url, "tasks/get", { taskId }, taskId);
          if (task.status === "failed") {
            expect(task.error.data.reason).toBe("worker_lost");
            open.delete(taskId);
          } else expect(task.status).toBe("input_required");
        }
        if (open.size > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const lostMs = performance.now() - killedAt;
      console.log(
        `tasks across replicas: ${doomed.length} input_required tasks of the killed replica failed as lost ${
          lostMs.toFixed(0)
        } ms after the SIGKILL (lease ${LEASE_MS} ms)`,
      );
      expect([...open]).toEqual([]);
      for (const taskId of kept) {
        expect((await rpc(url, "tasks/get", { taskId }, taskId)).status).toBe("input_required");
      }
    },
    120_000,
  );
});
