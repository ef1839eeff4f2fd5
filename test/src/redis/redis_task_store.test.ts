import { describe, expect, it } from "vitest";
import { RedisTaskStore } from "../../../src/redis/redis_task_store.ts";
import type { TaskRecord } from "../../../src/tasks/task_record.ts";
import { InvalidOptionError, TimeoutError } from "../../../src/wire/errors.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";
import {
  decodeListenMessage,
  encodeListenMessage,
} from "../../../src/server/features/listen/listen_event_codec.ts";
import { deriveRequestHeaders, validateRequestHeaders } from "../../../src/http/mcp_request_headers.ts";

/** A node-redis-shaped client over a Map: GET, SET (NX, PX, KEEPTTL) and the store's EVAL script. */
function fakeRedis() {
  const data = new Map<string, string>();
  const calls: string[][] = [];
  let interfere: (() => void) | undefined;
  const client = {
    sendCommand(args: string[]): Promise<unknown> {
      calls.push(args);
      const [command, ...rest] = args;
      if (command === "GET") return Promise.resolve(data.get(rest[0]) ?? null);
      if (command === "SET") {
        if (rest.includes("NX") && data.has(rest[0])) return Promise.resolve(null);
        data.set(rest[0], rest[1]);
        return Promise.resolve("OK");
      }
      if (command === "EVAL") {
        const [, , key, expected, next] = rest;
        interfere?.();
        interfere = undefined;
        if (data.get(key) !== expected) return Promise.resolve(0);
        data.set(key, next);
        return Promise.resolve(1);
      }
      return Promise.reject(new Error(`unexpected ${command}`));
    },
  };
  return { client, data, calls, interfereOnce: (f: () => void) => (interfere = f) };
}

const record = (taskId: string): TaskRecord => ({
  taskId,
  status: "working",
  createdAt: 1,
  lastUpdatedAt: 1,
  ttlMs: 60_000,
  pollIntervalMs: 1000,
  attempt: 1,
});

describe("RedisTaskStore", () => {
  it("creates with SET NX PX ttlMs, so a second create of one id fails, and reads what it wrote", async () => {
    const redis = fakeRedis();
    const store = new RedisTaskStore({ client: redis.client, keyPrefix: "t:" });
    await store.create(record("a"));
    expect(redis.calls[0].slice(0, 2)).toEqual(["SET", "t:a"]);
    expect(redis.calls[0].slice(3)).toEqual(["NX", "PX", "60000"]);
    await expect(store.create(record("a"))).rejects.toThrow(/exists already/);
    expect((await store.get("a"))?.status).toBe("working");
    expect(await store.get("missing")).toBeUndefined();
  });

  it("retries an update whose compare-and-set lost to a concurrent write, applying the change to the newer record", async () => {
    const redis = fakeRedis();
    const store = new RedisTaskStore({ client: redis.client });
    await store.create(record("a"));
    redis.interfereOnce(() => {
      const key = "onemodelcontext:task:a";
      redis.data.set(
        key,
        JSON.stringify({ ...JSON.parse(redis.data.get(key)!), statusMessage: "other replica" }),
      );
    });
    const next = await store.update("a", (current) => ({ ...current, attempt: current.attempt + 1 }));
    expect(next).toMatchObject({ attempt: 2, statusMessage: "other replica" });
    expect(redis.calls.filter((c) => c[0] === "EVAL")).toHaveLength(2);
  });

  it("gives up after maxUpdateAttempts conflicting writes, and not before", async () => {
    const redis = fakeRedis();
    const store = new RedisTaskStore({ client: redis.client, maxUpdateAttempts: 2 });
    await store.create(record("a"));
    let n = 0;
    const bump = () => {
      const key = "onemodelcontext:task:a";
      redis.data.set(key, JSON.stringify({ ...JSON.parse(redis.data.get(key)!), lastUpdatedAt: ++n }));
    };
    redis.interfereOnce(bump);
    expect((await store.update("a", (c) => ({ ...c, statusMessage: "x" })))?.statusMessage).toBe("x");
    const always = {
      ...redis.client,
      sendCommand: (args: string[]) => {
        if (args[0] === "EVAL") bump();
        return redis.client.sendCommand(args);
      },
    };
    const conflicted = new RedisTaskStore({ client: always, maxUpdateAttempts: 2 });
    await expect(conflicted.update("a", (c) => ({ ...c, statusMessage: "y" }))).rejects.toThrow(
      /maxUpdateAttempts/,
    );
  });

  it("bounds every command by commandTimeout on the TimeProvider", async () => {
    const time = new FakeTimeProvider();
    const store = new RedisTaskStore({
      client: { call: () => new Promise(() => {}) },
      commandTimeout: 100,
      timeProvider: time,
    });
    const pending = store.get("a");
    pending.catch(() => {});
    await time.advance(100);
    await expect(pending).rejects.toBeInstanceOf(TimeoutError);
  });

  it("refuses a client with neither sendCommand nor call", () => {
    expect(() => new RedisTaskStore({ client: {} as never })).toThrow(InvalidOptionError);
  });

  it("task_changed events cross the listen bus codec, and tasks/* carry Mcp-Name = taskId over HTTP", () => {
    const text = encodeListenMessage({ type: "task_changed", taskId: "t-1" }, "r1");
    expect(decodeListenMessage(text)).toEqual({
      ok: true,
      event: { type: "task_changed", taskId: "t-1", origin: "r1" },
    });
    expect(() => encodeListenMessage({ type: "task_changed", taskId: "" }, "r1")).toThrow(/taskId/);
    const message = {
      jsonrpc: "2.0",
      id: 1,
      method: "tasks/get",
      params: { taskId: "t-1", _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
    };
    const headers = deriveRequestHeaders(message, { protocolVersion: "2026-07-28" });
    expect(headers["Mcp-Name"]).toBe("t-1");
    expect(validateRequestHeaders(new Headers(headers), message)).toBeUndefined();
    expect(validateRequestHeaders(new Headers({ ...headers, "Mcp-Name": "other" }), message)?.code).toBe(
      -32020,
    );
  });
});
