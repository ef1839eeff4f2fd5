/**
 * rateLimit() with RedisRateLimitStore across three replicas (three ContextServers, each with its own
 * HTTP listener and its own node-redis connection) and a real redis-server: a limit of 100 a minute
 * holds for the deployment, not per replica. Refused requests get 429 with Retry-After.
 */
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/create_http_handler.ts";
import { MemoryRateLimitStore, rateLimit, type RateLimitStore } from "../../src/middleware.ts";
import { RedisRateLimitStore } from "../../src/redis/redis_rate_limit_store.ts";
import { ContextServer } from "../../src/server/context_server.ts";
import { type Served, serveFetch } from "../helpers/http_serve.ts";
import { type RedisServer, startRedisServer } from "./fixtures/redis_server.ts";

let redis: RedisServer;
const clients: { quit(): Promise<unknown> }[] = [];
const served: Served[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);

afterAll(async () => {
  for (const s of served) await s.close();
  for (const c of clients) await c.quit().catch(() => {});
  await redis?.kill();
});

async function replicas(
  store: () => RateLimitStore | Promise<RateLimitStore>,
  refill: "smooth" | "interval" = "interval",
): Promise<string[]> {
  const urls: string[] = [];
  for (let i = 0; i < 3; i++) {
    const server = new ContextServer({ name: `replica-${i}`, version: "1.0.0", capabilities: { tools: {} } });
    server.handle("tools/call", () => ({ content: [{ type: "text", text: "ok" }] }));
    server.use(
      rateLimit({ limit: 100, intervalMs: 60_000, refill, key: () => "everyone", store: await store() }),
    );
    const s = await serveFetch(createHttpHandler(server, { keepAliveInterval: 0 }));
    served.push(s);
    urls.push(`${s.origin}/mcp`);
  }
  return urls;
}

/** Sends `total` modern tools/call POSTs round-robin over `urls`, `inFlight` at a time. */
async function flood(urls: string[], total: number, inFlight: number) {
  const statuses: number[] = [];
  const retryAfter: (string | null)[] = [];
  let sent = 0;
  const worker = async () => {
    while (sent < total) {
      const id = sent++;
      const response = await fetch(urls[id % urls.length]!, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "t",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: {
            name: "t",
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
      if (response.status === 429) retryAfter.push(response.headers.get("retry-after"));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return {
    ok: statuses.filter((s) => s === 200).length,
    refused: statuses.filter((s) => s === 429).length,
    retryAfter,
  };
}

describe("rateLimit across three replicas", () => {
  it("lets 100 ± 2 of 150 through with RedisRateLimitStore (refill: interval), the rest 429 with Retry-After", async () => {
    const urls = await replicas(async () => {
      const client = await createClient({ url: `redis://127.0.0.1:${redis.port}` }).connect();
      clients.push(client);
      return new RedisRateLimitStore({ client, prefix: "test:shared:" });
    });
    const { ok, refused, retryAfter } = await flood(urls, 150, 24);
    expect(ok + refused).toBe(150);
    expect(ok).toBeGreaterThanOrEqual(98);
    expect(ok).toBeLessThanOrEqual(102);
    expect(retryAfter.every((v) => v !== null && Number(v) >= 1)).toBe(true);
  });

  it("refill: smooth shares the bucket too: about 100 pass, plus what trickles back while the flood runs", async () => {
    const urls = await replicas(async () => {
      const client = await createClient({ url: `redis://127.0.0.1:${redis.port}` }).connect();
      clients.push(client);
      return new RedisRateLimitStore({ client, prefix: "test:smooth:" });
    }, "smooth");
    const { ok, refused } = await flood(urls, 150, 24);
    expect(ok + refused).toBe(150);
    expect(ok).toBeGreaterThanOrEqual(98);
    expect(ok).toBeLessThan(150); // shared: far below the 300 three separate buckets would allow
  });

  it("holds per replica only with MemoryRateLimitStore: every one of 150 passes", async () => {
    const urls = await replicas(() => new MemoryRateLimitStore());
    const { ok } = await flood(urls, 150, 24);
    expect(ok).toBe(150);
  });
});
