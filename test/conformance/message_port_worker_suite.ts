/**
 * `fromMessagePort` with a real Worker on the other end, written once and registered on Node
 * (`worker_threads`) and Chromium (a module Worker). The Workers run test/conformance/workers/*.ts.
 * Web APIs only.
 * @module
 */
import { DEFAULT_RECEIVE_WINDOW_BYTES, fromMessagePort } from "../../adapters/message_port/mod.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { JsonRpcError } from "../../src/wire/errors.ts";
import { MetaKeys } from "../../src/wire/protocol_versions.ts";
import { assert, assertEquals, assertStrictEquals } from "./assert.ts";
import type { TestApi } from "./test_api.ts";

/** A started Worker, as each host gives it. */
export interface WorkerHandle {
  postMessage(message: unknown, transfer: Transferable[]): void;
  terminate(): void | Promise<unknown>;
  /** The exit code, where the host reports one (Node); a Worker whose ports all closed exits by itself there. */
  readonly exited?: Promise<number>;
}

/** Starts `workers/message_port_worker.ts` (`"stream"`) or `workers/message_port_context_worker.ts` (`"context"`). */
export type StartWorker = (fixture: "stream" | "context") => WorkerHandle;

const MiB = 1024 * 1024;
const REQUESTS = 1_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `ready` every 10 ms; a liveness bound, never a timing assertion. */
async function until(ready: () => boolean, what: string, limitMs = 30_000): Promise<void> {
  for (let waited = 0; !ready(); waited += 10) {
    if (waited > limitMs) throw new Error(`Not reached within ${limitMs} ms: ${what}`);
    await sleep(10);
  }
}

/** Every message `channel` reads until its input ends; a bad line throws. */
export async function readAll(channel: NewlineChannel): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const line of channel) {
    if (line.kind !== "line") throw line.error;
    out.push(JSON.parse(line.text));
  }
  return out;
}

/** Listens on a report port, keeping the last report (and the final one, and a failure). */
function reports<T>() {
  const { port1, port2 } = new MessageChannel();
  const seen: { last?: T; done?: { maxInTransit: number }; failed?: string } = {};
  port1.onmessage = (event: MessageEvent) => {
    const data = event.data as { failed?: string; done?: boolean };
    if (data.failed) seen.failed = data.failed;
    else if (data.done) seen.done = event.data;
    else seen.last = event.data as T;
  };
  return { port: port2, seen, close: () => port1.close() };
}

const cases = [
  { server: "dual", era: "modern", expected: "modern", version: "2026-07-28" },
  { server: "dual", era: "legacy", expected: "legacy", version: "2025-11-25" },
  { server: "dual", era: "auto", expected: "modern", version: "2026-07-28" },
  { server: "legacy", era: "auto", expected: "legacy", version: "2025-11-25" },
  { server: "legacy", era: "legacy", expected: "legacy", version: "2025-11-25" },
] as const;

/** Registers the Worker behaviours on `api`; `runtime` prefixes the names. */
export function messagePortWorkerSuite(api: TestApi, runtime: string, start: StartWorker): void {
  const name = (behaviour: string): string => `[${runtime}] fromMessagePort with a Worker: ${behaviour}`;

  /** Starts the stream Worker in `mode` on a fresh channel; the caller's end is `port1`. */
  const streamWorker = (init: Record<string, unknown>, transfer: Transferable[] = []) => {
    const { port1, port2 } = new MessageChannel();
    const worker = start("stream");
    worker.postMessage({ ...init, port: port2 }, [port2, ...transfer]);
    return { worker, port: port1 };
  };

  api.test(
    name(
      "round-trips 2,000 lines and a 3 MiB message through an echo Worker; end-of-stream ends both directions",
    ),
    async () => {
      const { worker, port } = streamWorker({ mode: "echo" });
      const conn = fromMessagePort(port);
      const channel = new NewlineChannel(conn);
      const messages: unknown[] = Array.from(
        { length: 2_000 },
        (_, i) => ({ id: i, s: "ß😀".repeat(i % 40) }),
      );
      messages.push({ big: "B".repeat(3 * MiB) }, { last: true });
      const received = readAll(channel);
      for (const m of messages) await channel.send(m);
      await channel.closeOutput(); // end-of-stream: the Worker's echo loop ends, it closes, our input ends
      assertEquals(await received, messages);
      await conn.closed;
      assertStrictEquals(conn.closeError(), undefined);
      assert(
        conn.maxBytesInTransit <= DEFAULT_RECEIVE_WINDOW_BYTES,
        `${conn.maxBytesInTransit} bytes in transit`,
      );
      if (worker.exited) {
        assertStrictEquals(
          await worker.exited,
          0,
          "The Worker did not exit by itself once its port closed",
        );
      }
      await worker.terminate();
    },
  );

  api.test(name("the readable ends when the Worker closes its output, with nothing lost"), async () => {
    const report = reports<unknown>();
    const { worker, port } = streamWorker({ mode: "flood", report: report.port, count: 50, size: 100 }, [
      report.port,
    ]);
    const received = await readAll(new NewlineChannel(fromMessagePort(port)));
    assertEquals(received.map((m) => (m as { i: number }).i), Array.from({ length: 50 }, (_, i) => i));
    report.close();
    await worker.terminate();
  });

  api.test(
    name(
      "a side that stops reading makes the Worker's queued output stop at the bound; reading again resumes in order",
    ),
    async () => {
      const count = 400;
      const size = 10 * 1024;
      const report = reports<{ accepted: number; queued: number; inTransit: number; maxInTransit: number }>();
      const { worker, port } = streamWorker({ mode: "flood", report: report.port, count, size }, [
        report.port,
      ]);
      const conn = fromMessagePort(port); // granted its window, but nobody reads yet
      const messageBytes = JSON.stringify({ i: count - 1, pad: "w".repeat(size) }).length + 1;
      const atBound = (): boolean =>
        report.seen.last?.inTransit === DEFAULT_RECEIVE_WINDOW_BYTES &&
        report.seen.last.queued + messageBytes > MiB;
      await until(() => report.seen.failed !== undefined || atBound(), "Worker blocked");
      assertStrictEquals(report.seen.failed, undefined);
      const last = report.seen.last!;
      await sleep(300); // a hold check: the Worker must not make progress while nobody reads
      assertStrictEquals(
        report.seen.last!.accepted,
        last.accepted,
        "The Worker kept sending while nobody read",
      );
      assert(last.accepted < count, `All ${count} messages accepted while nobody read`);
      assert(
        last.queued <= MiB + messageBytes && last.queued >= MiB - messageBytes,
        `Queued ${last.queued} bytes at the bound`,
      );
      assert(last.maxInTransit <= DEFAULT_RECEIVE_WINDOW_BYTES, `${last.maxInTransit} bytes in transit`);
      assert(
        conn.bufferedInputBytes <= DEFAULT_RECEIVE_WINDOW_BYTES,
        `${conn.bufferedInputBytes} bytes buffered`,
      );
      const received = await readAll(new NewlineChannel(conn));
      assertStrictEquals(received.length, count);
      assert(received.every((m, i) => (m as { i: number }).i === i), "Messages out of order");
      await until(() => report.seen.done !== undefined, "the Worker's final report");
      assert(
        report.seen.done!.maxInTransit <= DEFAULT_RECEIVE_WINDOW_BYTES,
        "Bytes in transit beyond the window",
      );
      report.close();
      await worker.terminate();
    },
  );

  /** One connection to the context Worker's `server`; `served` resolves with how the server saw it end. */
  const openContext = (worker: WorkerHandle, server: "dual" | "legacy", report?: MessagePort) => {
    const { port1, port2 } = new MessageChannel();
    const done = new MessageChannel();
    const served = new Promise<{ reason?: string; error?: string; failed?: string }>((resolve) => {
      done.port1.onmessage = (event: MessageEvent) => {
        done.port1.close();
        resolve(event.data);
      };
    });
    worker.postMessage(
      { server, port: port2, reply: done.port2, report },
      report ? [port2, done.port2, report] : [port2, done.port2],
    );
    return { transport: fromMessagePort(port1), served };
  };

  for (const c of cases) {
    api.test(
      name(
        `ContextClient (${c.era}) against the ${c.server} server: negotiates ${c.expected}, ${REQUESTS} requests, closes cleanly`,
      ),
      async () => {
        const worker = start("context");
        try {
          const { transport, served } = openContext(worker, c.server);
          const client = await ContextClient.connect(transport, { era: c.era, eraCache: null });
          assertStrictEquals(client.era, c.expected);
          assertStrictEquals(client.protocolVersion, c.version);
          assertStrictEquals(client.serverInfo?.name, c.server === "dual" ? "dual" : "legacy-only");
          const results = await Promise.all(
            Array.from(
              { length: REQUESTS },
              (_, i) =>
                client.request<{ sum: number; era: string; resultType?: string }>("test/add", { a: i, b: 1 }),
            ),
          );
          results.forEach((r, i) => assertStrictEquals(r.sum, i + 1));
          assert(results.every((r) => r.era === c.expected), "A reply from the wrong era");
          if (c.expected === "modern") assertStrictEquals(results[0]!.resultType, "complete");
          const failure = await client.request("test/fail", {}).then(() => undefined, (e: unknown) => e);
          assert(failure instanceof JsonRpcError, `Expected a JsonRpcError, got ${String(failure)}`);
          await client.close();
          const outcome = await served;
          assertEquals([outcome.reason, outcome.error, outcome.failed], ["eof", undefined, undefined]);
          await transport.closed;
          assertStrictEquals(transport.closeError(), undefined);
        } finally {
          await worker.terminate();
        }
      },
    );
  }

  api.test(
    name(
      "a client that stops reading makes the Worker server's queued output stop at the bound; reading again gets every reply",
    ),
    async () => {
      const worker = start("context");
      const report = reports<{ queued: number; max: number; inTransit: number; maxInTransit: number }>();
      const { transport, served } = openContext(worker, "dual", report.port);
      const client = new NewlineChannel(transport);
      const _meta = {
        [MetaKeys.protocolVersion]: "2026-07-28",
        [MetaKeys.clientCapabilities]: {},
        [MetaKeys.clientInfo]: { name: "stalled", version: "1" },
      };
      const count = 60;
      const replyBytes = 64 * 1024;
      const oneReply = replyBytes + 200;
      for (let id = 0; id < count; id++) {
        await client.send({
          jsonrpc: "2.0",
          id,
          method: "test/blob",
          params: { bytes: replyBytes, _meta },
        });
      }
      const atBound = (): boolean =>
        report.seen.last?.inTransit === DEFAULT_RECEIVE_WINDOW_BYTES &&
        report.seen.last.queued + oneReply > MiB;
      await until(atBound, "the Worker's queue filled");
      const queuedAtBound = report.seen.last!.queued;
      await sleep(300); // a hold check: the queue must stay at the bound while nobody reads
      assertStrictEquals(
        report.seen.last!.queued,
        queuedAtBound,
        "The Worker's queue moved while nobody read",
      );
      assert(report.seen.last!.max <= MiB + oneReply, `The queue reached ${report.seen.last!.max} bytes`);
      assert(
        report.seen.last!.maxInTransit <= DEFAULT_RECEIVE_WINDOW_BYTES,
        "Bytes in transit beyond the window",
      );
      assert(
        transport.bufferedInputBytes <= DEFAULT_RECEIVE_WINDOW_BYTES,
        `${transport.bufferedInputBytes} bytes buffered`,
      );
      const ids: number[] = [];
      while (ids.length < count) {
        const line = await client.read();
        if (!line || line.kind !== "line") throw new Error(`Unexpected input: ${JSON.stringify(line)}`);
        const message = JSON.parse(line.text) as { id: number; result: { blob: string } };
        assertStrictEquals(message.result.blob.length, replyBytes);
        ids.push(message.id);
      }
      assertEquals(ids.sort((a, b) => a - b), Array.from({ length: count }, (_, i) => i));
      await client.close();
      assertStrictEquals((await served).reason, "eof");
      report.close();
      await worker.terminate();
    },
  );

  api.test(name("sequential requests also flow (one in flight at a time), both eras"), async () => {
    const worker = start("context");
    for (const era of ["modern", "legacy"] as const) {
      const { transport, served } = openContext(worker, "dual");
      const client = await ContextClient.connect(transport, { era, eraCache: null });
      for (let i = 0; i < 200; i++) {
        assertStrictEquals((await client.request<{ sum: number }>("test/add", { a: i, b: 2 })).sum, i + 2);
      }
      await client.close();
      assertStrictEquals((await served).reason, "eof");
    }
    await worker.terminate();
  });
}
