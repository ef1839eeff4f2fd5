/**
 * A `ContextServer` inside a real `worker_threads` Worker and a `ContextClient` on the main thread,
 * over `fromMessagePort` on a MessageChannel: every era choice, 1,000 requests each.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { build } from "rolldown";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RECEIVE_WINDOW_BYTES, fromMessagePort } from "../../adapters/message_port/mod.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { JsonRpcError } from "../../src/wire/errors.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { MetaKeys } from "../../src/wire/protocol_versions.ts";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const REQUESTS = 1_000;

const WORKER_SOURCE = (root: string) => `
import { parentPort } from "node:worker_threads";
import { fromMessagePort } from ${JSON.stringify(join(root, "adapters/message_port/mod.ts"))};
import { ContextServer } from ${JSON.stringify(join(root, "src/server/context_server.ts"))};
import { NewlineChannel } from ${JSON.stringify(join(root, "src/stream/newline_channel.ts"))};
import { LEGACY_VERSIONS } from ${JSON.stringify(join(root, "src/wire/protocol_versions.ts"))};

function makeServer(kind) {
  const server = new ContextServer({
    name: kind === "legacy" ? "legacy-only" : "dual",
    version: "1.0.0",
    capabilities: { tools: {} },
    ...(kind === "legacy" ? { supportedVersions: [...LEGACY_VERSIONS] } : {}),
  });
  server.handle("test/add", (params, ctx) => ({ sum: params.a + params.b, era: ctx.era, protocolVersion: ctx.protocolVersion }));
  server.handle("test/fail", () => { throw new Error("handler failed on purpose"); });
  server.handle("test/blob", (params) => ({ blob: "x".repeat(params.bytes) }));
  return server;
}
const servers = { dual: makeServer("dual"), legacy: makeServer("legacy") };

parentPort.on("message", ({ server, port, reply, report }) => {
  const conn = fromMessagePort(port);
  let channel, timer;
  if (report) {
    // Build the channel here so its queue can be watched: report it every 20 ms.
    channel = new NewlineChannel(conn);
    let max = 0;
    timer = setInterval(() => {
      max = Math.max(max, channel.queuedOutputBytes);
      report.postMessage({ queued: channel.queuedOutputBytes, max, inTransit: conn.bytesInTransit, maxInTransit: conn.maxBytesInTransit });
    }, 20);
  }
  servers[server].serve(channel ?? conn).then(
    (info) => reply.postMessage({ reason: info.reason, error: info.error ? String(info.error) : undefined }),
    (error) => reply.postMessage({ failed: String(error) }),
  ).finally(() => {
    clearInterval(timer);
    report?.close();
    reply.close();
  });
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
function open(server: "dual" | "legacy", report?: MessagePort) {
  const { port1, port2 } = new MessageChannel();
  const done = new MessageChannel();
  const served = new Promise<{ reason?: string; error?: string; failed?: string }>((resolve) => {
    done.port1.once("message", (m) => {
      done.port1.close();
      resolve(m);
    });
  });
  worker.postMessage({ server, port: port2, reply: done.port2, report }, report ? [port2, done.port2, report] : [port2, done.port2]);
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

  it("a client that stops reading makes the Worker server's queued output stop at the bound; reading again gets every reply", async () => {
    const MiB = 1024 * 1024;
    const reports = new MessageChannel();
    let last = { queued: 0, max: 0, inTransit: 0, maxInTransit: 0 };
    reports.port1.on("message", (m) => (last = m));
    const { transport, served } = open("dual", reports.port2);
    const client = new NewlineChannel(transport);
    const _meta = {
      [MetaKeys.protocolVersion]: "2026-07-28",
      [MetaKeys.clientCapabilities]: {},
      [MetaKeys.clientInfo]: { name: "stalled", version: "1" },
    };
    const count = 60;
    const replyBytes = 64 * 1024;
    const oneReply = replyBytes + 200;
    for (let id = 0; id < count; id++) await client.send({ jsonrpc: "2.0", id, method: "test/blob", params: { bytes: replyBytes, _meta } });
    const started = Date.now();
    while (!(last.inTransit === DEFAULT_RECEIVE_WINDOW_BYTES && last.queued + oneReply > MiB)) {
      if (Date.now() - started > 30_000) throw new Error(`The Worker's queue never filled: ${JSON.stringify(last)}`);
      await sleep(20);
    }
    const queuedAtBound = last.queued;
    await sleep(300);
    expect(last.queued).toBe(queuedAtBound);
    expect(last.max).toBeLessThanOrEqual(MiB + oneReply);
    expect(last.maxInTransit).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
    expect(transport.bufferedInputBytes).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
    console.info(`[message_port context node flow] server queuedOutputBytes at the bound=${last.queued} (max sampled ${last.max}) reply≈${oneReply} inTransit=${last.inTransit}`);
    const ids: number[] = [];
    while (ids.length < count) {
      const line = await client.read();
      if (!line || line.kind !== "line") throw new Error(`Unexpected input: ${JSON.stringify(line)}`);
      const message = JSON.parse(line.text) as { id: number; result: { blob: string } };
      expect(message.result.blob.length).toBe(replyBytes);
      ids.push(message.id);
    }
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
    await client.close();
    expect((await served).reason).toBe("eof");
    expect(last.max).toBeLessThanOrEqual(MiB + oneReply);
    reports.port1.close();
  });

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
