/**
 * A `ContextServer` inside a real `worker_threads` Worker and a `ContextClient` on the main thread,
 * over `fromMessagePort` on a MessageChannel: every era choice, 1,000 requests each.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MessageChannel, Worker } from "node:worker_threads";
import { build } from "rolldown";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromMessagePort } from "../../adapters/message_port.ts";
import { ContextClient } from "../../src/context_client.ts";
import { JsonRpcError } from "../../src/errors.ts";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const REQUESTS = 1_000;

const WORKER_SOURCE = (root: string) => `
import { parentPort } from "node:worker_threads";
import { fromMessagePort } from ${JSON.stringify(join(root, "adapters/message_port.ts"))};
import { ContextServer } from ${JSON.stringify(join(root, "src/context_server.ts"))};
import { LEGACY_VERSIONS } from ${JSON.stringify(join(root, "src/protocol_versions.ts"))};

function makeServer(kind) {
  const server = new ContextServer({
    name: kind === "legacy" ? "legacy-only" : "dual",
    version: "1.0.0",
    capabilities: { tools: {} },
    ...(kind === "legacy" ? { supportedVersions: [...LEGACY_VERSIONS] } : {}),
  });
  server.handle("test/add", (params, ctx) => ({ sum: params.a + params.b, era: ctx.era, protocolVersion: ctx.protocolVersion }));
  server.handle("test/fail", () => { throw new Error("handler failed on purpose"); });
  return server;
}
const servers = { dual: makeServer("dual"), legacy: makeServer("legacy") };

parentPort.on("message", ({ server, port, reply }) => {
  servers[server].serve(fromMessagePort(port)).then(
    (info) => reply.postMessage({ reason: info.reason, error: info.error ? String(info.error) : undefined }),
    (error) => reply.postMessage({ failed: String(error) }),
  ).finally(() => reply.close());
});
`;

let dir: string;
let worker: Worker;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "omc-message-port-context-"));
  writeFileSync(join(dir, "worker.ts"), WORKER_SOURCE(repo));
  await build({
    input: join(dir, "worker.ts"),
    platform: "node",
    external: [/^node:/],
    logLevel: "silent",
    output: { file: join(dir, "worker.mjs"), format: "esm" },
  });
  worker = new Worker(join(dir, "worker.mjs"));
});

afterAll(async () => {
  await worker?.terminate();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens one connection to the Worker's `server` and resolves `served` with how the server saw it end. */
function open(server: "dual" | "legacy") {
  const { port1, port2 } = new MessageChannel();
  const done = new MessageChannel();
  const served = new Promise<{ reason?: string; error?: string; failed?: string }>((resolve) => {
    done.port1.once("message", (m) => {
      done.port1.close();
      resolve(m);
    });
  });
  worker.postMessage({ server, port: port2, reply: done.port2 }, [port2, done.port2]);
  return { transport: fromMessagePort(port1), served };
}

const cases = [
  { server: "dual", era: "modern", expected: "modern", version: "2026-07-28" },
  { server: "dual", era: "legacy", expected: "legacy", version: "2025-11-25" },
  { server: "dual", era: "auto", expected: "modern", version: "2026-07-28" },
  { server: "legacy", era: "auto", expected: "legacy", version: "2025-11-25" },
  { server: "legacy", era: "legacy", expected: "legacy", version: "2025-11-25" },
] as const;

describe("ContextClient ↔ ContextServer in a worker_threads Worker over fromMessagePort", () => {
  for (const c of cases) {
    it(`era ${c.era} against the ${c.server} server: negotiates ${c.expected}, answers ${REQUESTS} concurrent requests, closes cleanly`, async () => {
      const { transport, served } = open(c.server);
      const client = await ContextClient.connect(transport, { era: c.era, eraCache: null });
      expect(client.era).toBe(c.expected);
      expect(client.protocolVersion).toBe(c.version);
      expect(client.serverInfo?.name).toBe(c.server === "dual" ? "dual" : "legacy-only");

      const started = performance.now();
      const results = await Promise.all(
        Array.from({ length: REQUESTS }, (_, i) => client.request<{ sum: number; era: string; protocolVersion: string; resultType?: string }>("test/add", { a: i, b: 1 })),
      );
      const elapsed = performance.now() - started;
      results.forEach((r, i) => expect(r.sum).toBe(i + 1));
      expect(new Set(results.map((r) => r.era))).toEqual(new Set([c.expected]));
      expect(new Set(results.map((r) => r.protocolVersion))).toEqual(new Set([c.version]));
      if (c.expected === "modern") expect(results[0].resultType).toBe("complete");
      await expect(client.request("test/fail", {})).rejects.toBeInstanceOf(JsonRpcError);
      console.info(`[message_port context node] era=${c.era} server=${c.server} → ${client.era} ${REQUESTS} requests in ${elapsed.toFixed(0)} ms (${client.negotiation.outcome})`);

      await client.close();
      expect(await served).toEqual({ reason: "eof" });
      await transport.closed;
      expect(transport.closeError()).toBeUndefined();
      expect(transport.maxBytesInTransit).toBeLessThanOrEqual(transport.receiveWindowBytes);
    });
  }

  it("sequential requests also flow (one in flight at a time), both eras", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const { transport, served } = open("dual");
      const client = await ContextClient.connect(transport, { era, eraCache: null });
      for (let i = 0; i < 200; i++) expect((await client.request<{ sum: number }>("test/add", { a: i, b: 2 })).sum).toBe(i + 2);
      await client.close();
      expect((await served).reason).toBe("eof");
    }
  });
});
