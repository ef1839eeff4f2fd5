/**
 * Readiness during a rolling stop: three everything replicas behind nginx (examples/deploy/run.mjs),
 * each with ONEMODELCONTEXT_READINESS_GRACE=1500. Under load through nginx one replica gets SIGTERM:
 * its /readyz answers 503 within 1 s while its listener is still open, no tool call through nginx
 * fails, and the replica exits 0.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, type Deployment } from "../../examples/deploy/run.mjs";
import { ensureDist } from "../fixtures/ours/build_dist.ts";

const MODERN = "2026-07-28";
let deployment: Deployment;
let logs = "";
let nextId = 1;

function callTool(url: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": MODERN,
      "Mcp-Method": "tools/call",
      "Mcp-Name": "test_simple_text",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/call",
      params: {
        name: "test_simple_text",
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
    signal: AbortSignal.timeout(10_000),
  });
}

beforeAll(async () => {
  ensureDist();
  deployment = await deploy({
    replicas: 3,
    upstreamKeepaliveTimeoutSeconds: 1,
    env: { ONEMODELCONTEXT_READINESS_GRACE: "1500" },
    log: (text) => (logs += text),
  });
}, 120_000);

afterAll(async () => {
  await deployment?.stop();
});

describe("readiness behind nginx", () => {
  it("answers /readyz 503 within 1 s of SIGTERM under load, with no failed call through nginx", async () => {
    const r2 = deployment.replicas.find((r) => r.name === "r2")!;
    const readyz = `http://127.0.0.1:${r2.port}/readyz`;
    expect((await fetch(readyz)).status).toBe(200);
    let terminated: Promise<unknown> | undefined;
    let sigterm = 0;
    let notReadyAfterMs: number | undefined;
    const probe = async () => {
      // Polls the replica's own readiness (as an orchestrator would) from the SIGTERM on.
      while (notReadyAfterMs === undefined) {
        const status = await fetch(readyz).then((r) => r.status, () => 0);
        if (status === 503) notReadyAfterMs = performance.now() - sigterm;
        if (status === 0) break;
      }
    };
    let probing: Promise<void> | undefined;
    let started = 0;
    let ok = 0;
    const failures: string[] = [];
    const worker = async () => {
      while (started < 600) {
        const n = started++;
        try {
          const reply = await callTool(`${deployment.url}/mcp`);
          const text = await reply.text();
          if (reply.status === 200 && text.includes('"result"')) ok++;
          else failures.push(`${n}: ${reply.status} ${text.slice(0, 120)}`);
        } catch (error) {
          failures.push(`${n}: ${String(error)}`);
        }
        if (n === 60) {
          sigterm = performance.now();
          terminated = r2.stop("SIGTERM");
          probing = probe();
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await probing;
    expect(failures, logs).toEqual([]);
    expect(ok).toBe(600);
    expect(notReadyAfterMs).toBeDefined();
    expect(notReadyAfterMs!).toBeLessThan(1_000);
    expect(await terminated).toEqual({ code: 0, signal: null });
  });
});
