/**
 * The everything server as replicas behind nginx (examples/deploy/run.mjs), beyond plain tool calls:
 * a modern input-required round started on one replica and finished on another (round robin, one
 * shared ONEMODELCONTEXT_STATE_KEY); legacy sessions pinned to their replica by the session-id prefix
 * (ONEMODELCONTEXT_REPLICA, nginx `map $http_mcp_session_id`); the stateless legacy leg round robin
 * with no pin; and a tool-list change on one replica reaching a listen stream held by another over
 * Redis (`--redis URL`, a real redis-server started here).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, type Deployment } from "../../examples/deploy/run.mjs";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { type RedisServer, startRedisServer } from "./fixtures/redis_server.ts";

const MODERN = "2026-07-28";
const LEGACY = "2025-06-18";
const SERVER = join(import.meta.dirname, "../../examples/everything/server.mjs");
let logs = "";
const log = (text: string) => void (logs += text);
let nextId = 1;

type Reply = {
  id?: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  method?: string;
};

/** The JSON-RPC reply in a JSON or SSE body. */
function replyOf(body: string): Reply {
  if (body.startsWith("{")) return JSON.parse(body) as Reply;
  const lines = body.split("\n").filter((l) => l.startsWith("data: {")).map((l) =>
    JSON.parse(l.slice(6)) as Reply
  );
  return lines.find((m) => m.id !== undefined)!;
}

async function modernCall(url: string, name: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  };
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": MODERN,
      "Mcp-Method": "tools/call",
      "Mcp-Name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/call",
      params: { name, arguments: {}, _meta: meta, ...extra },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status, logs).toBe(200);
  return replyOf(await response.text());
}

async function legacyPost(
  url: string,
  message: Record<string, unknown>,
  session?: string,
): Promise<{ status: number; session: string | null; reply: Reply | undefined }> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": LEGACY,
  };
  if (session) headers["Mcp-Session-Id"] = session;
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.text();
  return {
    status: response.status,
    session: response.headers.get("mcp-session-id"),
    reply: body ? replyOf(body) : undefined,
  };
}

const initialize = {
  id: 0,
  method: "initialize",
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

/**
 * The replica port of each access-log line of `deployment`, in order, once there are `count` lines
 * (nginx writes a line after the response went out, so the last one may lag the client's read).
 */
async function upstreamPorts(deployment: Deployment, count: number): Promise<string[]> {
  for (let i = 0;; i++) {
    const text = readFileSync(join(deployment.nginx.prefix, "access.log"), "utf8");
    const ports = [...text.matchAll(/upstream=(\S+)/g)].map((m) =>
      m[1]!.split(",").at(-1)!.trim().split(":").at(-1)!
    );
    if (ports.length >= count || i === 200) return ports;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(() => {
  ensureDist(); // the everything server imports the package's dist/
});

describe("everything replicas behind nginx, round robin, one state key", () => {
  let deployment: Deployment;
  beforeAll(async () => {
    deployment = await deploy({ replicas: 3, upstreamKeepaliveTimeoutSeconds: 1, log });
  });
  afterAll(async () => {
    await deployment?.stop();
  });

  it("finishes an input-required round on another replica than the one that started it", async () => {
    const url = `${deployment.url}/mcp`;
    const first = await modernCall(url, "test_input_required_result_elicitation");
    expect(first.result?.resultType, logs).toBe("input_required");
    const done = await modernCall(url, "test_input_required_result_elicitation", {
      requestState: first.result!.requestState,
      inputResponses: { user_name: { action: "accept", content: { name: "Bo" } } },
    });
    expect(done.result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "Hello, Bo!" }],
    });
    const [a, b] = (await upstreamPorts(deployment, 2)).slice(-2);
    expect(a).not.toBe(b); // round robin: the retry went to the next replica
  });

  it("loses a legacy session without the pin: a session minted on one replica is unknown (404) on the others", async () => {
    // Without the pin (this deployment), a session minted on one replica is unknown to the next one.
    const url = `${deployment.url}/mcp`;
    const init = await legacyPost(url, initialize);
    expect(init.session).toMatch(/^r[123]\./);
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await legacyPost(url, { id: nextId++, method: "tools/list", params: {} }, init.session!)).status,
      );
    }
    expect(statuses.filter((s) => s === 404).length).toBeGreaterThan(0);
  });
});

describe("legacy sessions behind nginx", () => {
  it("keeps a legacy session on its replica across many calls with the Mcp-Session-Id pin (3 replicas)", async () => {
    const deployment = await deploy({ replicas: 3, sessions: true, upstreamKeepaliveTimeoutSeconds: 1, log });
    try {
      const url = `${deployment.url}/mcp`;
      const sessions: string[] = [];
      for (let s = 0; s < 3; s++) {
        const init = await legacyPost(url, initialize);
        expect(init.status, logs).toBe(200);
        sessions.push(init.session!);
        expect((await legacyPost(url, { method: "notifications/initialized" }, init.session!)).status).toBe(
          202,
        );
      }
      expect(new Set(sessions.map((id) => id.split(".")[0])).size).toBe(3); // initialize went round robin
      for (let i = 0; i < 30; i++) {
        const session = sessions[i % 3]!;
        const call = await legacyPost(url, {
          id: nextId++,
          method: "tools/call",
          params: { name: "test_simple_text", arguments: {} },
        }, session);
        expect(call.status, `${session}: ${JSON.stringify(call.reply)}`).toBe(200);
        expect(JSON.stringify(call.reply?.result)).toContain("simple text");
      }
      const ports = (await upstreamPorts(deployment, 36)).slice(-30); // 3 initialize, 3 initialized, 30 calls
      const portOf = Object.fromEntries(deployment.replicas.map((r) => [r.name, String(r.port)]));
      ports.forEach((port, i) => expect(port).toBe(portOf[sessions[i % 3]!.split(".")[0]!]));
    } finally {
      await deployment.stop();
    }
  });

  it("needs no pin on the stateless legacy leg: calls without a session go round robin and all succeed", async () => {
    const deployment = await deploy({
      replicas: 3,
      command: [process.execPath, SERVER, "--stateless"],
      upstreamKeepaliveTimeoutSeconds: 1,
      log,
    });
    try {
      const url = `${deployment.url}/mcp`;
      const init = await legacyPost(url, initialize);
      expect(init.status, logs).toBe(200);
      expect(init.session).toBeNull();
      for (let i = 0; i < 6; i++) {
        const call = await legacyPost(url, {
          id: nextId++,
          method: "tools/call",
          params: { name: "test_simple_text", arguments: {} },
        });
        expect(call.status).toBe(200);
        expect(JSON.stringify(call.reply?.result)).toContain("simple text");
      }
      expect(new Set((await upstreamPorts(deployment, 7)).slice(-6)).size).toBe(3); // initialize, 6 calls
    } finally {
      await deployment.stop();
    }
  });
});

describe("list changes across replicas over Redis", () => {
  let redis: RedisServer;
  let deployment: Deployment;
  beforeAll(async () => {
    redis = await startRedisServer();
    deployment = await deploy({
      replicas: 2,
      command: [process.execPath, SERVER, "--redis", `redis://127.0.0.1:${redis.port}`],
      upstreamKeepaliveTimeoutSeconds: 1,
      log,
    });
  });
  afterAll(async () => {
    await deployment?.stop();
    await redis?.kill();
  });

  it("tells a listen stream held by one replica about a tool-list change made on another", async () => {
    const [r1, r2] = deployment.replicas;
    const listen = await fetch(`http://127.0.0.1:${r1!.port}/mcp`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: nextId++,
        method: "subscriptions/listen",
        params: {
          notifications: { toolsListChanged: true },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(listen.status, logs).toBe(200);
    const reader = listen.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    const until = async (text: string) => {
      while (!seen.includes(text)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`The listen stream ended before ${text}: ${seen}`);
        seen += value;
      }
    };
    await until("notifications/subscriptions/acknowledged");
    const changed = await modernCall(`http://127.0.0.1:${r2!.port}/mcp`, "test_trigger_tool_change");
    expect(JSON.stringify(changed.result)).toContain("Mutation triggered");
    await until("notifications/tools/list_changed");
    await reader.cancel();
  });
});
