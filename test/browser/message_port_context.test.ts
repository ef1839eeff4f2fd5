/**
 * Chromium: a `ContextServer` inside a module Worker and a `ContextClient` in the page, over
 * `fromMessagePort` on a `MessageChannel`. Every era choice with 1,000 requests each, and a page that
 * stops reading: the server's queued output stops at the 1 MiB bound and the rest waits.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RECEIVE_WINDOW_BYTES, fromMessagePort } from "../../adapters/message_port/mod.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { MetaKeys } from "../../src/wire/protocol_versions.ts";

const MiB = 1024 * 1024;
const REQUESTS = 1_000;
let worker: Worker;

beforeAll(() => {
  worker = new Worker(new URL("./fixtures/message_port_context_worker.ts", import.meta.url), { type: "module" });
});

afterAll(() => worker?.terminate());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function open(server: "dual" | "legacy", report?: MessagePort) {
  const { port1, port2 } = new MessageChannel();
  const done = new MessageChannel();
  const served = new Promise<{ reason?: string; error?: string; failed?: string }>((resolve) => {
    done.port1.onmessage = (event) => {
      done.port1.close();
      resolve(event.data);
    };
  });
  const transfer: Transferable[] = [port2, done.port2];
  if (report) transfer.push(report);
  worker.postMessage({ server, port: port2, reply: done.port2, report }, transfer);
  return { transport: fromMessagePort(port1), served };
}

const cases = [
  { server: "dual", era: "modern", expected: "modern", version: "2026-07-28" },
  { server: "dual", era: "legacy", expected: "legacy", version: "2025-11-25" },
  { server: "dual", era: "auto", expected: "modern", version: "2026-07-28" },
  { server: "legacy", era: "auto", expected: "legacy", version: "2025-11-25" },
] as const;

describe("ContextClient in the page ↔ ContextServer in a module Worker over fromMessagePort", () => {
  for (const c of cases) {
    it(`era ${c.era} against the ${c.server} server: negotiates ${c.expected} and answers ${REQUESTS} concurrent requests`, async () => {
      const { transport, served } = open(c.server);
      const client = await ContextClient.connect(transport, { era: c.era, eraCache: null });
      expect(client.era).toBe(c.expected);
      expect(client.protocolVersion).toBe(c.version);
      const started = performance.now();
      const results = await Promise.all(
        Array.from({ length: REQUESTS }, (_, i) => client.request<{ sum: number; era: string; resultType?: string }>("test/add", { a: i, b: 1 })),
      );
      const elapsed = performance.now() - started;
      results.forEach((r, i) => expect(r.sum).toBe(i + 1));
      expect(new Set(results.map((r) => r.era))).toEqual(new Set([c.expected]));
      if (c.expected === "modern") expect(results[0].resultType).toBe("complete");
      console.info(`[message_port context chromium] era=${c.era} server=${c.server} → ${client.era} ${REQUESTS} requests in ${elapsed.toFixed(0)} ms (${client.negotiation.outcome})`);
      await client.close();
      expect(await served).toEqual({ reason: "eof" });
      expect(transport.closeError()).toBeUndefined();
    });
  }

  it("a page that stops reading makes the Worker server's queued output stop at the bound; reading again gets every reply", async () => {
    const reports = new MessageChannel();
    let last = { queued: 0, max: 0, inTransit: 0, maxInTransit: 0 };
    reports.port1.onmessage = (event) => (last = event.data);
    const { transport, served } = open("dual", reports.port2);
    const page = new NewlineChannel(transport);
    const envelope = {
      [MetaKeys.protocolVersion]: "2026-07-28",
      [MetaKeys.clientCapabilities]: {},
      [MetaKeys.clientInfo]: { name: "page", version: "1" },
    };
    const count = 60;
    const replyBytes = 64 * 1024;
    for (let id = 0; id < count; id++) {
      await page.send({ jsonrpc: "2.0", id, method: "test/blob", params: { bytes: replyBytes, _meta: envelope } });
    }
    // Nobody reads: the Worker's replies fill the window, then its queue, then it stops reading.
    const oneReply = replyBytes + 200;
    const started = Date.now();
    while (!(last.inTransit === DEFAULT_RECEIVE_WINDOW_BYTES && last.queued + oneReply > MiB)) {
      if (Date.now() - started > 30_000) throw new Error(`The Worker's queue never filled: ${JSON.stringify(last)}`);
      await sleep(20);
    }
    const queuedAtBound = last.queued;
    await sleep(300);
    expect(last.queued).toBe(queuedAtBound); // it holds still at the bound
    expect(last.queued).toBeLessThanOrEqual(MiB + oneReply);
    expect(last.queued).toBeGreaterThanOrEqual(MiB - oneReply);
    expect(last.max).toBeLessThanOrEqual(MiB + oneReply);
    expect(last.inTransit).toBe(DEFAULT_RECEIVE_WINDOW_BYTES);
    expect(last.maxInTransit).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
    expect(transport.bufferedInputBytes).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
    console.info(
      `[message_port context chromium flow] server queuedOutputBytes at the bound=${last.queued} (max sampled ${last.max}) ` +
        `reply≈${oneReply} inTransit=${last.inTransit} page buffered=${transport.bufferedInputBytes}`,
    );

    const ids: number[] = [];
    while (ids.length < count) {
      const line = await page.read();
      if (!line || line.kind !== "line") throw new Error(`Unexpected input: ${JSON.stringify(line)}`);
      const message = JSON.parse(line.text) as { id: number; result: { blob: string } };
      expect(message.result.blob.length).toBe(replyBytes);
      ids.push(message.id);
    }
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
    await page.close();
    expect((await served).reason).toBe("eof");
    expect(last.max).toBeLessThanOrEqual(MiB + oneReply);
    reports.port1.close();
  });
});
