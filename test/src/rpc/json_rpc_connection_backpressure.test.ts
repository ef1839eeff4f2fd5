/**
 * JsonRpcConnection under load: the concurrency limit (256 by default) holds and is not hit early,
 * the output bound (1 MiB plus one message) holds against a peer that never reads, input pauses
 * while output is full, and everything queued is delivered once the peer reads.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JsonRpcConnection, type JsonRpcConnectionOptions } from "../../../src/rpc/json_rpc_connection.ts";
import { createDuplexPair, type Duplex } from "../../../testing/duplex_pair.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";
import { retainedBytes } from "../../helpers/streams.ts";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(async () => {
  await flushMicrotasks();
  await flushMicrotasks();
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

const MiB = 1024 * 1024;
const encoder = new TextEncoder();

/** The test's side: writes requests, reads replies only once `startReading()` is called. */
function lazyPeer(duplex: Duplex) {
  const writer = duplex.writable.getWriter();
  const lines: string[] = [];
  let bytesRead = 0;
  let reading: Promise<void> | undefined;
  return {
    lines,
    writer,
    get bytesRead() {
      return bytesRead;
    },
    send: (message: unknown) => writer.write(encoder.encode(JSON.stringify(message) + "\n")),
    write: (text: string) => writer.write(encoder.encode(text)),
    startReading(onLine?: (line: string) => void): Promise<void> {
      reading ??= (async () => {
        const decoder = new TextDecoder();
        const reader = duplex.readable.getReader();
        let rest = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytesRead += value.byteLength;
          rest += decoder.decode(value, { stream: true });
          let start = 0;
          let nl: number;
          while ((nl = rest.indexOf("\n", start)) !== -1) {
            const line = rest.slice(start, nl);
            if (onLine) onLine(line);
            else lines.push(line);
            start = nl + 1;
          }
          rest = rest.slice(start);
        }
      })();
      return reading;
    },
  };
}

function setup(options: JsonRpcConnectionOptions = {}) {
  const [a, b] = createDuplexPair();
  const reports: Error[] = [];
  const server = new JsonRpcConnection(b, { onReport: (e) => reports.push(e), ...options });
  return { server, peer: lazyPeer(a), reports };
}

async function settle(turns = 30): Promise<void> {
  for (let i = 0; i < turns; i++) await flushMicrotasks();
}

/** Resolves whether `promise` settled within a few macrotask turns. */
async function settlesSoon(promise: Promise<unknown>, turns = 30): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await settle(turns);
  return done;
}

async function until(condition: () => boolean, turns = 5_000): Promise<void> {
  for (let i = 0; i < turns && !condition(); i++) await flushMicrotasks();
  expect(condition()).toBe(true);
}

function gate() {
  const waiting = new Map<number, () => void>();
  return {
    waiting,
    wait: (id: number, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        waiting.set(id, resolve);
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      }),
    release(id: number) {
      const r = waiting.get(id);
      waiting.delete(id);
      r?.();
    },
  };
}

describe("JsonRpcConnection concurrency limit", () => {
  it("runs 256 handlers at once; the 257th is not dispatched until one finishes, then it runs; nothing dropped", async () => {
    const { server, peer } = setup();
    const g = gate();
    const started: number[] = [];
    server.handle("block", async (p) => {
      const id = (p as { id: number }).id;
      started.push(id);
      await g.wait(id);
      return id;
    }).start();
    void peer.startReading();
    for (let id = 1; id <= 257; id++) {
      await peer.send({ jsonrpc: "2.0", id, method: "block", params: { id } });
    }
    await until(() => started.length === 256);
    await settle(50);
    expect(server.activeHandlers).toBe(256); // not hit early: all 256 run at once
    expect(started).not.toContain(257);
    g.release(100);
    await until(() => started.includes(257));
    expect(server.activeHandlers).toBe(256);
    for (let id = 1; id <= 257; id++) g.release(id);
    await until(() => peer.lines.length === 257);
    const ids = peer.lines.map((l) => JSON.parse(l).result).sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: 257 }, (_, i) => i + 1));
    expect(peer.lines[0]).toBe('{"jsonrpc":"2.0","id":100,"result":100}');
    await server.close();
  });

  it("with maxConcurrentRequests 4 runs the 4th at once and holds the 5th until a slot frees", async () => {
    const { server, peer } = setup({ maxConcurrentRequests: 4 });
    const g = gate();
    const started: number[] = [];
    server.handle("block", async (p) => {
      const id = (p as { id: number }).id;
      started.push(id);
      await g.wait(id);
      return id;
    }).start();
    void peer.startReading();
    for (let id = 1; id <= 6; id++) await peer.send({ jsonrpc: "2.0", id, method: "block", params: { id } });
    await until(() => started.length === 4);
    await settle(50);
    expect(started).toEqual([1, 2, 3, 4]);
    g.release(3);
    await until(() => started.length === 5);
    await settle(50);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    g.release(1);
    await until(() => started.length === 6);
    for (const id of [2, 4, 5, 6]) g.release(id);
    await until(() => peer.lines.length === 6);
    expect(peer.lines.map((l) => JSON.parse(l).id)).toEqual([3, 1, 2, 4, 5, 6]);
    await server.close();
  });

  it("a notifications/cancelled arriving while at the limit still frees a slot", async () => {
    const { server, peer } = setup({ maxConcurrentRequests: 4 });
    const g = gate();
    const started: number[] = [];
    server.handle("block", async (p, ctx) => {
      const id = (p as { id: number }).id;
      started.push(id);
      await g.wait(id, ctx.signal); // honours its signal
      return id;
    }).start();
    void peer.startReading();
    for (let id = 1; id <= 5; id++) await peer.send({ jsonrpc: "2.0", id, method: "block", params: { id } });
    await peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } });
    await until(() => started.length === 5);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    for (const id of [1, 3, 4, 5]) g.release(id);
    await until(() => peer.lines.length === 4);
    await settle();
    expect(peer.lines.map((l) => JSON.parse(l).id).sort()).toEqual([1, 3, 4, 5]); // no reply for the cancelled one
    await server.close();
  });

  it("a notifications/cancelled for the request held at the limit drops it before it runs", async () => {
    const { server, peer } = setup({ maxConcurrentRequests: 2 });
    const g = gate();
    const started: number[] = [];
    server.handle("block", async (p) => {
      const id = (p as { id: number }).id;
      started.push(id);
      await g.wait(id);
      return id;
    }).start();
    void peer.startReading();
    for (let id = 1; id <= 3; id++) await peer.send({ jsonrpc: "2.0", id, method: "block", params: { id } });
    await peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } });
    await peer.send({ jsonrpc: "2.0", id: 4, method: "block", params: { id: 4 } });
    await until(() => started.length === 2);
    g.release(1);
    await until(() => started.length === 3);
    expect(started).toEqual([1, 2, 4]);
    g.release(2);
    g.release(4);
    await until(() => peer.lines.length === 3);
    expect(peer.lines.map((l) => JSON.parse(l).id)).toEqual([1, 2, 4]);
    await server.close();
  });

  it("at the limit still reads the peer's replies to requests its handlers are waiting on", async () => {
    const [a, b] = createDuplexPair();
    const server: JsonRpcConnection = new JsonRpcConnection(b, { maxConcurrentRequests: 2 })
      .handle("ask", async (p) => {
        const answer: unknown = await server.request("client/answer", p);
        return answer;
      })
      .start();
    let calls = 0;
    const client = new JsonRpcConnection(a).handle("client/answer", (p) => ({ answered: p, n: ++calls }))
      .start();
    // Two run, the rest wait for a slot; the replies to the handlers' own requests come after them on
    // the wire and must still be read.
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => client.request("ask", { i })));
    expect(results.map((r) => (r as { answered: { i: number } }).answered.i)).toEqual([1, 2, 3, 4, 5]);
    await client.close();
    await server.closed;
  });
});

describe("JsonRpcConnection output bound against a peer that never reads", () => {
  it(
    "keeps queued output within 1 MiB plus one message while handlers produce 100 MB, pauses input, and delivers every reply once the peer reads",
    async () => {
      const { server, peer } = setup();
      const payload = "x".repeat(25 * 1024);
      const requests = 4_000; // 4 000 replies of 25 KiB: 100 MiB
      let handled = 0;
      let maxQueued = 0;
      const sample = () => (maxQueued = Math.max(maxQueued, server.channel.queuedOutputBytes));
      server.handle("big", (p) => {
        handled++;
        sample();
        return { n: (p as { n: number }).n, payload };
      }).start();
      let written = 0;
      const writing = (async () => {
        for (let n = 0; n < requests; n++) {
          await peer.send({ jsonrpc: "2.0", id: n, method: "big", params: { n } });
          written++;
        }
      })();
      // The peer does not read: the server fills its output, stops reading, and the peer's writes wait.
      await until(() => server.channel.outputFull);
      await settle(200);
      sample();
      const handledWhilePaused = handled;
      const writtenWhilePaused = written;
      await settle(200);
      expect(handled).toBe(handledWhilePaused); // input paused
      expect(written).toBe(writtenWhilePaused);
      expect(written).toBeLessThan(requests); // the peer's pipe is full: its writer waits
      expect(await settlesSoon(writing)).toBe(false);
      const messageBytes =
        JSON.stringify({ jsonrpc: "2.0", id: requests, result: { n: requests, payload } }).length + 1;
      expect(server.channel.queuedOutputBytes).toBeLessThanOrEqual(MiB + messageBytes);
      expect(server.channel.queuedOutputBytes).toBeGreaterThan(MiB - messageBytes); // the bound is reached, not undershot
      expect(server.activeHandlers).toBeLessThan(256);
      // Now the peer reads; sample the queue on every line.
      const seen = new Set<number>();
      let count = 0;
      const reading = peer.startReading((line) => {
        sample();
        count++;
        const id = Number(line.slice(line.indexOf('"id":') + 5, line.indexOf(",", line.indexOf('"id":'))));
        seen.add(id);
        if (count === requests) void server.close();
      });
      await writing;
      await reading;
      expect(count).toBe(requests);
      expect(seen.size).toBe(requests);
      expect(maxQueued).toBeLessThanOrEqual(MiB + messageBytes);
      expect((await server.closed).reason).toBe("closed");
    },
    120_000,
  );

  it(
    "keeps memory bounded under 100 000 garbage lines from a peer that never reads, then delivers every error reply in order",
    async () => {
      const { server, peer, reports } = setup();
      server.start();
      const total = 100_000;
      let maxQueued = 0;
      const line = (
        i: number,
      ) => (i % 2 === 0 ? `garbage ${i} !!\n` : `{"jsonrpc":"2.0","id":${i},"method":${i}}\n`);
      let written = 0;
      const writing = (async () => {
        for (let i = 0; i < total; i += 100) {
          let chunk = "";
          for (let j = i; j < i + 100; j++) chunk += line(j);
          await peer.write(chunk);
          written = i + 100;
        }
      })();
      await until(() => server.channel.outputFull);
      await settle(100);
      const before = retainedBytes();
      await settle(200);
      maxQueued = server.channel.queuedOutputBytes;
      expect(written).toBeLessThan(total); // input paused: the peer's writes wait
      expect(await settlesSoon(writing)).toBe(false);
      const after = retainedBytes();
      expect(after - before).toBeLessThan(4 * MiB);
      expect(maxQueued).toBeLessThanOrEqual(MiB + 200);
      const replies: string[] = [];
      let heapDuringDrain = 0;
      const reading = peer.startReading((l) => {
        replies.push(l);
        maxQueued = Math.max(maxQueued, server.channel.queuedOutputBytes);
        if (replies.length === total / 2) heapDuringDrain = process.memoryUsage().heapUsed;
        if (replies.length === total) void server.close();
      });
      await writing;
      await reading;
      expect(heapDuringDrain).toBeGreaterThan(0);
      expect(replies.length).toBe(total);
      expect(maxQueued).toBeLessThanOrEqual(MiB + 200);
      for (let i = 0; i < total; i++) {
        const r = JSON.parse(replies[i]!);
        if (i % 2 === 0) {
          expect(r.error.code).toBe(-32700);
          expect("id" in r).toBe(false);
        } else {
          expect(r.id).toBe(i);
          expect(r.error.code).toBe(-32600);
        }
      }
      expect(reports.length).toBe(total);
      await server.closed;
    },
    120_000,
  );
});

describe("JsonRpcConnection counts replies owed against output room", () => {
  it("starts no more handlers than the output room can answer when a chunk of requests arrives at once", async () => {
    const { server, peer } = setup();
    const payload = "x".repeat(25 * 1024);
    const g = gate();
    const started: number[] = [];
    server.handle("fast", () => ({ payload })).handle("slow", async (p) => {
      const id = (p as { id: number }).id;
      started.push(id);
      await g.wait(id);
      return { id, payload };
    }).start();
    // Eight replies of 25 KiB are queued (the peer does not read): about 200 KiB of 1 MiB.
    for (let id = 1; id <= 8; id++) await peer.send({ jsonrpc: "2.0", id, method: "fast" });
    await settle(50);
    expect(server.channel.queuedOutputBytes).toBeGreaterThan(4 * 25 * 1024); // the rest sits in the pipe
    // Then 200 requests in one chunk, whose handlers each owe a 25 KiB reply: only the room's worth run.
    let chunk = "";
    for (let id = 100; id < 300; id++) {
      chunk += JSON.stringify({ jsonrpc: "2.0", id, method: "slow", params: { id } }) + "\n";
    }
    await peer.write(chunk);
    await settle(100);
    const room = MiB - server.channel.queuedOutputBytes;
    const roomFor = Math.ceil(room / (25 * 1024));
    expect(server.channel.outputFull).toBe(false);
    expect(started.length).toBeLessThanOrEqual(roomFor); // holds
    expect(started.length).toBeGreaterThanOrEqual(roomFor - 2); // not hit early
    // Each answered handler makes room for the next; once the peer reads, everything is delivered.
    for (const id of started.slice(0, 5)) g.release(id);
    await settle(50);
    expect(started.length).toBeLessThanOrEqual(roomFor + 1);
    let maxQueued = 0;
    const reading = peer.startReading((line) => {
      maxQueued = Math.max(maxQueued, server.channel.queuedOutputBytes);
      peer.lines.push(line);
    });
    for (let turn = 0; started.length < 200 || g.waiting.size > 0; turn++) {
      for (const id of [...g.waiting.keys()]) g.release(id);
      await flushMicrotasks();
      expect(turn).toBeLessThan(20_000);
    }
    await until(() => peer.lines.length === 208);
    expect(maxQueued).toBeLessThanOrEqual(MiB + 26 * 1024);
    await server.close();
    await reading;
  });
});
