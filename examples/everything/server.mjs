#!/usr/bin/env node
// @ts-check
// The "everything" MCP server: every tool, resource, resource template and prompt that the MCP
// conformance suite's server scenarios call (@modelcontextprotocol/conformance; names and behaviours
// from its examples/servers/typescript/everything-server.ts), built only on the public API, both
// protocol eras, on stdio or on Streamable HTTP.
//
//   npm run build && node examples/everything/server.mjs              # stdio
//   npm run build && node examples/everything/server.mjs --http 3000  # http://127.0.0.1:3000/mcp
//
// Over HTTP: legacy sessions on (Mcp-Session-Id, GET stream, server-to-client requests over SSE), the
// modern era stateless; SIGTERM (or SIGINT) closes gracefully: no new requests, listen streams end
// with their result, requests in flight get 5 s. ONEMODELCONTEXT_STATE_KEY (64 hex characters), when
// set, is the key of the request state of input-required rounds. Behind a load balancer:
// ONEMODELCONTEXT_REPLICA=r2 starts every legacy session id with "r2." (nginx pins sessions on it,
// examples/deploy); --stateless turns legacy sessions off; --redis URL carries list changes to the
// listen streams of the other replicas over Redis pub/sub (the `redis` package; channel
// "everything:listen") and keeps tasks in Redis (keys "everything:task:<id>").
//
// The tools and prompt that ask the client (elicitation, sampling, roots; input_required in 2026-07-28)
// are in ./input_tools.mjs.
// Legacy SSE streams are resumable (ids on every event, an event store: Redis with --redis, else
// memory); test_reconnection ends its POST connection early; progress_stream is in ./resumable_tools.mjs.
// OTEL_EXPORTER_OTLP_ENDPOINT, when set, starts the OpenTelemetry Node SDK (./otel.mjs): traces and
// metrics over OTLP/HTTP, flushed before the process exits (SIGTERM included).
import { createHttpHandler } from "onemodelcontext";
import { serve, stdio } from "onemodelcontext/node";
import { createEverythingServer } from "./everything.mjs";
import { addResumableTools } from "./resumable_tools.mjs";

const stateKey = process.env.ONEMODELCONTEXT_STATE_KEY;
if (stateKey !== undefined && !/^[0-9a-fA-F]{64}$/.test(stateKey)) {
  console.error("everything: ONEMODELCONTEXT_STATE_KEY must be 64 hex characters (32 bytes)");
  process.exit(2);
}
const redisFlag = process.argv.indexOf("--redis");
/** @typedef {{ quit(): Promise<unknown> }} RedisConnection */
/**
 * @type {{
 *   bus: import("onemodelcontext/redis").RedisListenBus,
 *   publisher: RedisConnection & import("onemodelcontext/redis").RedisCommandClient & import("onemodelcontext/redis").RedisPublisher,
 *   subscriber: RedisConnection & import("onemodelcontext/redis").RedisReplyRelayOptions["subscriber"],
 *   taskStore: import("onemodelcontext/redis").RedisTaskStore,
 * } | undefined}
 */
let redis;
if (redisFlag !== -1) {
  const { createClient } = await import("redis");
  const { RedisListenBus, RedisTaskStore } = await import("onemodelcontext/redis");
  const publisher = await createClient({ url: process.argv[redisFlag + 1] }).connect();
  const subscriber = await publisher.duplicate().connect();
  const bus = await RedisListenBus.open({
    publisher,
    subscriber,
    channel: "everything:listen",
    onReport: (error) => console.error(`everything: ${error.message}`),
  });
  // Tasks live in Redis too: every replica given the same URL finds every task; their changes travel
  // on the listen bus (task_changed events).
  const taskStore = new RedisTaskStore({ client: publisher, keyPrefix: "everything:task:" });
  redis = { bus, publisher, subscriber, taskStore };
}
const telemetry = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
  ? (await import("./otel.mjs")).startTelemetry()
  : undefined;
// Tasks: ONEMODELCONTEXT_TASK_LEASE_MS is how long a running task's lease lasts (default 30 000).
const leaseText = process.env.ONEMODELCONTEXT_TASK_LEASE_MS;
const leaseMs = leaseText === undefined ? undefined : Number(leaseText);
if (leaseMs !== undefined && !(Number.isInteger(leaseMs) && leaseMs > 0)) {
  console.error(`everything: ONEMODELCONTEXT_TASK_LEASE_MS must be a positive integer, got ${leaseText}`);
  process.exit(2);
}
const server = createEverythingServer({
  stateKey,
  listenBus: redis?.bus,
  tasks: { leaseMs, store: redis?.taskStore },
});
addResumableTools(server);

const flag = process.argv.indexOf("--http");
if (flag === -1) {
  if (telemetry) {
    process.once("SIGTERM", () => void telemetry.shutdown().then(() => process.exit(0)));
  }
  await server.serve(stdio());
  await telemetry?.shutdown();
  // stdin ended and every reply was drained (or the bounded drain gave up): leave now.
  process.exit(0);
}

const port = Number(process.argv[flag + 1]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(
    `everything: --http needs a port from 0 to 65535, got ${JSON.stringify(process.argv[flag + 1] ?? null)}`,
  );
  process.exit(2);
}
const replica = process.env.ONEMODELCONTEXT_REPLICA;
if (replica !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(replica)) {
  console.error(
    `everything: ONEMODELCONTEXT_REPLICA must be 1 to 32 letters, digits, "_" or "-", got ${
      JSON.stringify(replica)
    }`,
  );
  process.exit(2);
}
const sessions = process.argv.includes("--stateless")
  ? false
  : replica === undefined
  ? true
  : { idPrefix: `${replica}.` };
// /readyz turns 503 at SIGTERM; ONEMODELCONTEXT_READINESS_GRACE ms later the listener closes (default 0).
const readinessGrace = Number(process.env.ONEMODELCONTEXT_READINESS_GRACE ?? 0);
// With --redis, legacy sessions, stream events and relayed replies live in Redis (./redis_sessions.mjs).
const shared = redis && sessions !== false
  ? await (await import("./redis_sessions.mjs")).redisSessionOptions({
    ...redis,
    onReport: (error) => console.error(`everything: ${error.message}`),
  })
  : undefined;
const http = await serve(
  createHttpHandler(server, { path: "/mcp", sessions, resumability: sessions !== false, ...shared }),
  { readinessGrace, port, hostname: "127.0.0.1" },
);
console.error(`everything: serving ${new URL("/mcp", http.url).href}`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await http.close();
  await server.close();
  if (redis) {
    await shared?.replyRelay.close();
    await redis.bus.close();
    await Promise.allSettled([redis.subscriber.quit(), redis.publisher.quit()]);
  }
  await telemetry?.shutdown();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
