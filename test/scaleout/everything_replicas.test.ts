/**
 * Three replicas of the everything server (`node examples/everything/server.mjs --http PORT`) behind
 * nginx, started by examples/deploy/run.mjs: modern-era tool calls spread round robin (nginx's access
 * log names the replica of each), a replica SIGKILLed under load fails only the calls in flight on it,
 * and a replica SIGTERMed under load fails none (serve stops listening once it accepted what the kernel
 * had queued, answers what still comes on open connections with `Connection: close`, and lets idle ones
 * end after its keepAliveTimeout). No retry: a call lost is a failure (issue 25.20).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, type Deployment } from "../../examples/deploy/run.mjs";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { HttpStatusError, StreamBrokenError } from "../../src/http/client/http_client_errors.ts";
import { httpTransport } from "../../src/http/client/http_client_transport.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";

const MODERN = "2026-07-28";
let deployment: Deployment;
let logs = "";
let nextId = 1;

/** One modern-era tools/call through nginx, as a client sends it (headers derived from the body). */
async function callTool(url: string, name: string, args: Record<string, unknown> = {}): Promise<Response> {
  const body = {
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": MODERN,
      "Mcp-Method": "tools/call",
      "Mcp-Name": name,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

/** The replica port of each access-log line, in order. */
function upstreamPorts(): string[] {
  const log = readFileSync(join(deployment.nginx.prefix, "access.log"), "utf8");
  return [...log.matchAll(/upstream=(\S+)/g)].map((m) =>
    m[1]!.split(",").map((a) => a.trim().split(":").at(-1)).join(">")
  );
}

/** Resolves once `ready()` holds, checking on each timer turn; fails after 10 s naming `what` (a hang guard, not a timing assertion). */
async function waitFor(ready: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** nginx's error log (why a call failed: a reset, a refused connection, a timeout). */
function nginxErrors(): string {
  try {
    return readFileSync(join(deployment.nginx.prefix, "error.log"), "utf8");
  } catch {
    return "";
  }
}

beforeAll(async () => {
  ensureDist(); // the everything server imports the package's dist/
  deployment = await deploy({
    replicas: 3,
    upstreamKeepaliveTimeoutSeconds: 1,
    log: (text) => (logs += text),
  });
});

afterAll(async () => {
  await deployment?.stop();
});

describe("three everything replicas behind nginx", () => {
  it("answers modern tool calls round robin across the replicas", async () => {
    for (let i = 0; i < 6; i++) {
      const reply = await callTool(`${deployment.url}/mcp`, "test_simple_text");
      expect(reply.status).toBe(200);
      expect(((await reply.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text)
        .toContain("simple text");
    }
    // nginx writes a request's log line after the response went out: wait for the sixth line.
    await waitFor(() => upstreamPorts().length >= 6, "nginx's access-log line of each of the 6 calls");
    const ports = upstreamPorts().slice(-6);
    const counts = Object.fromEntries(
      deployment.replicas.map((r) => [r.name, ports.filter((p) => p === String(r.port)).length]),
    );
    expect(counts, logs).toEqual({ r1: 2, r2: 2, r3: 2 });
  });

  /** `total` tool calls from `workers` concurrent callers; `onCall(n)` runs after call n. */
  async function load(total: number, workers: number, onCall: (n: number) => void) {
    let started = 0;
    let ok = 0;
    const failures: { n: number; status: number | undefined; text: string }[] = [];
    const worker = async () => {
      while (started < total) {
        const n = started++;
        try {
          const reply = await callTool(`${deployment.url}/mcp`, "test_simple_text");
          const text = await reply.text();
          if (reply.status === 200 && text.includes('"result"')) ok++;
          else failures.push({ n, status: reply.status, text: text.slice(0, 120) });
        } catch (error) {
          failures.push({ n, status: undefined, text: String(error) });
        }
        onCall(n);
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    return { ok, failures };
  }

  it(
    "fails no tool call when a replica is SIGTERMed under load, and the replica exits 0",
    async () => {
      let terminated: Promise<unknown> | undefined;
      const r2 = deployment.replicas.find((r) => r.name === "r2")!;
      const { ok, failures } = await load(600, 16, (n) => {
        if (n === 60) terminated = r2.stop("SIGTERM");
      });
      expect(failures, `${logs}\nnginx error.log:\n${nginxErrors()}`).toEqual([]);
      expect(ok).toBe(600);
      expect(await terminated).toEqual({ code: 0, signal: null });
    },
  );

  it("fails at most the calls in flight on a replica SIGKILLed under load, each with nginx's 502, and serves the rest", async () => {
    let killed: Promise<unknown> | undefined;
    const r3 = deployment.replicas.find((r) => r.name === "r3")!;
    const workers = 16;
    const { ok, failures } = await load(240, workers, (n) => {
      if (n === 40) killed = r3.stop("SIGKILL");
    });
    expect(await killed).toEqual({ code: null, signal: "SIGKILL" });
    expect(failures.length).toBeLessThanOrEqual(workers); // one call in flight per worker at most
    for (const failure of failures) expect(failure.status, failure.text).toBe(502); // a POST already sent is not repeated
    expect(ok + failures.length).toBe(240);
  });
});

describe("our HTTP client through nginx while replicas are SIGKILLed", () => {
  let killed: Deployment;
  let client: ContextClient;
  beforeAll(async () => {
    killed = await deploy({ replicas: 3, upstreamKeepaliveTimeoutSeconds: 1, log: (text) => (logs += text) });
    client = await ContextClient.connect(httpTransport(`${killed.url}/mcp`), {
      eraCache: new EraCache(),
      onReport: () => {},
    });
  });
  afterAll(async () => {
    await client?.close();
    await killed?.stop();
  });

  /** `total` callTool calls from `workers` concurrent callers; `onCall(n)` runs after call n. */
  async function clientLoad(
    total: number,
    workers: number,
    idempotent: boolean,
    onCall: (n: number) => void,
  ) {
    let started = 0;
    let ok = 0;
    const failures: { error: unknown; ms: number }[] = [];
    const worker = async () => {
      while (started < total) {
        const n = started++;
        const t0 = performance.now();
        try {
          const result = await client.request("tools/call", { name: "test_simple_text", arguments: {} }, {
            idempotent,
          });
          if (JSON.stringify(result).includes("simple text")) ok++;
        } catch (error) {
          failures.push({ error, ms: performance.now() - t0 });
        }
        onCall(n);
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    return { ok, failures };
  }

  it("fails only the calls in flight on the killed replica, each with a typed error (the proxy's 502 or a broken stream)", async () => {
    let stopped: Promise<unknown> | undefined;
    const workers = 16;
    const { ok, failures } = await clientLoad(240, workers, false, (n) => {
      if (n === 40) stopped = killed.replicas[2]!.stop("SIGKILL");
    });
    expect(await stopped).toEqual({ code: null, signal: "SIGKILL" });
    expect(failures.length).toBeLessThanOrEqual(workers);
    for (const { error } of failures) {
      expect(
        error instanceof StreamBrokenError ||
          (error instanceof HttpStatusError && (error as HttpStatusError).status === 502),
        String(error),
      ).toBe(true);
    }
    expect(ok + failures.length).toBe(240);
    // Not asserted (no wall-clock windows in tests): how long a failed call took, for the report.
    if (failures.length > 0) {
      console.error(
        `SIGKILL: ${failures.length} failed, slowest after ${
          Math.round(Math.max(...failures.map((f) => f.ms)))
        } ms`,
      );
    }
  });

  it("fails no call marked idempotent: a call lost with the killed replica is re-issued once on another", async () => {
    let stopped: Promise<unknown> | undefined;
    const { ok, failures } = await clientLoad(240, 16, true, (n) => {
      if (n === 40) stopped = killed.replicas[1]!.stop("SIGKILL");
    });
    expect(await stopped).toEqual({ code: null, signal: "SIGKILL" });
    expect(failures.map((f) => String(f.error))).toEqual([]);
    expect(ok).toBe(240);
  });
});
