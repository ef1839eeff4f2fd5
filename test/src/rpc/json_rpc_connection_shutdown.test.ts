// deno-lint-ignore-file no-explicit-any -- tests reach into loosely typed peer objects
/**
 * JsonRpcConnection ending: EOF half-close with grace (endOfStreamTimeout) then a bounded shutdown
 * (shutdownTimeout), the drain's no-progress and total deadlines, explicit close, transport faults,
 * and one-shot pipes. Every bound is shown holding and not hit early, on a FakeTimeProvider.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClosedError, TimeoutError, WriteFailedError } from "../../../src/wire/errors.ts";
import {
  type ConnectionCloseInfo,
  JsonRpcConnection,
  type JsonRpcConnectionOptions,
} from "../../../src/rpc/json_rpc_connection.ts";
import { createDuplexPair, type Duplex } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/fake_time_provider.ts";
import { RecordingWritable } from "../../../testing/recording_writable.ts";
import { manualReadable } from "../../helpers/streams.ts";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(async () => {
  await flushMicrotasks();
  await flushMicrotasks();
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

const KiB = 1024;
const MiB = 1024 * KiB;
const encoder = new TextEncoder();
const line = (message: unknown) => encoder.encode(JSON.stringify(message) + "\n");
const request = (id: number | string, method: string, params?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await flushMicrotasks();
}

/** Records the fake time at which `closed` resolved. */
function watchClosed(connection: JsonRpcConnection, time: FakeTimeProvider) {
  const state: { at?: number; info?: ConnectionCloseInfo } = {};
  void connection.closed.then((info) => {
    state.at = time.now();
    state.info = info;
  });
  return state;
}

/** A reading peer over a duplex pair. */
function readingPeer(duplex: Duplex) {
  const writer = duplex.writable.getWriter();
  const lines: string[] = [];
  const state = { ended: false };
  void (async () => {
    const reader = duplex.readable.pipeThrough(
      new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>,
    ).getReader();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += value;
      let nl: number;
      while ((nl = rest.indexOf("\n")) !== -1) {
        lines.push(rest.slice(0, nl));
        rest = rest.slice(nl + 1);
      }
    }
    state.ended = true;
  })().catch(() => (state.ended = true));
  return {
    lines,
    state,
    get messages(): any[] {
      return lines.map((l) => JSON.parse(l));
    },
    send: (message: unknown) => writer.write(line(message)),
    write: (text: string) => writer.write(encoder.encode(text)),
    end: () => writer.close(),
  };
}

/** A connection whose input the test feeds and whose output is a RecordingWritable. */
function recorded(time: FakeTimeProvider, options: JsonRpcConnectionOptions = {}, autoComplete = false) {
  const input = manualReadable();
  const output = new RecordingWritable({ autoComplete });
  const reports: Error[] = [];
  const server = new JsonRpcConnection({ readable: input.readable, writable: output.writable }, {
    timeProvider: time,
    onReport: (e) => reports.push(e),
    ...options,
  });
  return { server, input, output, reports };
}

function sleepHandler(time: FakeTimeProvider, log: { aborted: Map<number, number> }) {
  return async (p: unknown, ctx: { signal: AbortSignal }) => {
    const ms = (p as { ms: number }).ms;
    ctx.signal.addEventListener("abort", () => log.aborted.set(ms, time.now()));
    await new Promise<void>((resolve) => time.setTimer(resolve, ms)); // ignores its signal
    return { ms };
  };
}

describe("JsonRpcConnection EOF half-close", () => {
  it("with handlers of 1 s, 7 s and 20 s: delivers the first two, aborts the third at exactly 5 s, closes output at 10 s", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const [a, b] = createDuplexPair();
    const log = { aborted: new Map<number, number>() };
    const server = new JsonRpcConnection(b, { timeProvider: time }).handle("sleep", sleepHandler(time, log))
      .start();
    const closed = watchClosed(server, time);
    const peer = readingPeer(a);
    for (const [i, ms] of [1_000, 7_000, 20_000].entries()) await peer.send(request(i + 1, "sleep", { ms }));
    await peer.end();
    await settle();
    expect(server.activeHandlers).toBe(3);
    await time.advance(1_000);
    await settle();
    expect(peer.messages).toEqual([{ jsonrpc: "2.0", id: 1, result: { ms: 1_000 } }]);
    await time.advance(3_999);
    expect(log.aborted.size).toBe(0); // not hit early
    await time.advance(1);
    expect(log.aborted.get(20_000)).toBe(t0 + 5_000);
    expect(log.aborted.get(7_000)).toBe(t0 + 5_000); // both still running at the end of the grace
    await time.advance(2_000);
    await settle();
    expect(peer.messages.map((m) => m.id)).toEqual([1, 2]); // the 7 s reply still goes out
    await time.advance(2_999);
    expect(closed.at).toBeUndefined(); // not hit early
    expect(peer.state.ended).toBe(false);
    await time.advance(1);
    await settle();
    expect(closed.at).toBe(t0 + 10_000);
    expect(closed.info?.reason).toBe("eof");
    expect(peer.state.ended).toBe(true);
    expect(peer.messages.map((m) => m.id)).toEqual([1, 2]);
    await time.advance(10_000); // the 20 s handler finishing later writes nothing
    await settle();
    expect(peer.lines.length).toBe(2);
  });

  it("closes as soon as the last handler finishes and its reply is written, without waiting out any timer", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const [a, b] = createDuplexPair();
    const log = { aborted: new Map<number, number>() };
    const server = new JsonRpcConnection(b, { timeProvider: time }).handle("sleep", sleepHandler(time, log))
      .start();
    const closed = watchClosed(server, time);
    const peer = readingPeer(a);
    await peer.send(request(1, "sleep", { ms: 1_500 }));
    await peer.end();
    await time.advance(1_500);
    await settle();
    expect(closed.at).toBe(t0 + 1_500);
    expect(closed.info).toMatchObject({ reason: "eof", drain: "drained" });
    expect(peer.messages).toEqual([{ jsonrpc: "2.0", id: 1, result: { ms: 1_500 } }]);
    expect(time.pendingTimers).toBe(0); // every deadline cancelled
  });

  it("endOfStreamTimeout and shutdownTimeout change those numbers: abort at 2 s, close at 5 s", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const [a, b] = createDuplexPair();
    const log = { aborted: new Map<number, number>() };
    const server = new JsonRpcConnection(b, {
      timeProvider: time,
      endOfStreamTimeout: 2_000,
      shutdownTimeout: 3_000,
    })
      .handle("sleep", sleepHandler(time, log))
      .start();
    const closed = watchClosed(server, time);
    const peer = readingPeer(a);
    await peer.send(request(1, "sleep", { ms: 4_000 }));
    await peer.send(request(2, "sleep", { ms: 60_000 }));
    await peer.end();
    await time.advance(1_999);
    expect(log.aborted.size).toBe(0);
    await time.advance(1);
    expect(log.aborted.get(60_000)).toBe(t0 + 2_000);
    await time.advance(2_000);
    await settle();
    expect(peer.messages.map((m) => m.id)).toEqual([1]);
    await time.advance(999);
    expect(closed.at).toBeUndefined();
    await time.advance(1);
    expect(closed.at).toBe(t0 + 5_000);
  });

  it("rejects outgoing requests still pending at EOF at once with ClosedError", async () => {
    const time = new FakeTimeProvider();
    const { server, input, output } = recorded(time, {}, true);
    server.start();
    const call = server.request("client/thing");
    const outcome = call.then(() => "resolved", (e) => e);
    await settle();
    expect(output.text()).toContain('"method":"client/thing"');
    input.end();
    await settle();
    expect(await outcome).toBeInstanceOf(ClosedError);
    await expect(server.request("more")).rejects.toBeInstanceOf(ClosedError);
  });
});

describe("JsonRpcConnection drain deadlines after EOF", () => {
  it("a slow reader that keeps progressing is not cut at the no-progress deadline: 3 blocks at 2 s each drain at 6 s", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const { server, input, output } = recorded(time);
    server.handle("big", () => "z".repeat(40 * KiB)).start();
    const closed = watchClosed(server, time);
    input.push(line(request(1, "big")));
    input.end();
    await settle();
    expect(output.inFlight).toBe(true);
    for (let i = 0; i < 3; i++) {
      await time.advance(2_000);
      expect(closed.at).toBeUndefined();
      output.completeNext();
      await settle();
    }
    expect(closed.at).toBe(t0 + 6_000); // past the 5 s no-progress deadline, because every block was progress
    expect(closed.info).toMatchObject({ reason: "eof", drain: "drained" });
    expect(output.closed).toBe(true);
    expect(output.sizes).toEqual([
      16 * KiB,
      16 * KiB,
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: "z".repeat(40 * KiB) }).length + 1 - 32 * KiB,
    ]);
    expect(JSON.parse(output.text()).result.length).toBe(40 * KiB);
  });

  it("a slow reader with a few MB queued (a 16 KiB block every 2 s) is cut at the total bound of 10 s, not earlier", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const { server, input, output } = recorded(time);
    server.handle("big", () => "z".repeat(3 * MiB)).start();
    const closed = watchClosed(server, time);
    input.push(line(request(1, "big")));
    input.end();
    await settle();
    expect(server.channel.queuedOutputBytes).toBeGreaterThan(3 * MiB);
    for (let t = 2_000; t < 10_000; t += 2_000) {
      await time.advance(2_000);
      output.completeNext();
      await settle();
    }
    await time.advance(1_999);
    expect(closed.at).toBeUndefined(); // t = 9 999: still draining, progress every 2 s
    const blocksBefore = output.chunks.length;
    await time.advance(1);
    await settle();
    expect(closed.at).toBe(t0 + 10_000);
    expect(closed.info).toMatchObject({ reason: "eof", drain: "total_timeout" });
    output.completeNext();
    await settle();
    expect(output.chunks.length).toBe(blocksBefore); // nothing more is written once cut off
  });

  it("a stalled reader is cut at the no-progress deadline (5 s), not earlier", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const { server, input, output } = recorded(time);
    server.handle("big", () => "z".repeat(3 * MiB)).start();
    const closed = watchClosed(server, time);
    input.push(line(request(1, "big")));
    input.end();
    await settle();
    expect(output.inFlight).toBe(true);
    await time.advance(4_999);
    expect(closed.at).toBeUndefined();
    await time.advance(1);
    await settle();
    expect(closed.at).toBe(t0 + 5_000);
    expect(closed.info).toMatchObject({ reason: "eof", drain: "idle_timeout" });
    expect(output.chunks.length).toBe(1);
  });

  it("shutdownTimeout changes the no-progress deadline: a stalled reader is cut at 1.5 s", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const { server, input } = recorded(time, { shutdownTimeout: 1_500 });
    server.handle("big", () => "z".repeat(100 * KiB)).start();
    const closed = watchClosed(server, time);
    input.push(line(request(1, "big")));
    input.end();
    await settle();
    await time.advance(1_499);
    expect(closed.at).toBeUndefined();
    await time.advance(1);
    await settle();
    expect(closed.at).toBe(t0 + 1_500);
  });

  it("a stalled reader while a handler still waits for output room is cut at the no-progress deadline, not at the total bound", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const { server, input, output } = recorded(time);
    server
      .handle("bigLater", async (p) => {
        const { ms, kib } = p as { ms: number; kib: number };
        await new Promise<void>((resolve) => time.setTimer(resolve, ms));
        return "z".repeat(kib * KiB);
      })
      .start();
    const closed = watchClosed(server, time);
    input.push(line(request(1, "bigLater", { ms: 1_000, kib: 3 * 1024 })));
    input.push(line(request(2, "bigLater", { ms: 2_000, kib: 600 })));
    input.end();
    await settle();
    await time.advance(2_000);
    await settle();
    expect(output.inFlight).toBe(true); // the first block of the 3 MiB reply, never completed
    expect(server.activeHandlers).toBe(1); // the second reply waits for room
    await time.advance(3_999);
    expect(closed.at).toBeUndefined(); // t = 5 999: the no-progress deadline (1 s + 5 s) is not hit early
    await time.advance(1);
    await settle();
    expect(closed.at).toBe(t0 + 6_000);
    expect(closed.info).toMatchObject({ reason: "eof", drain: "idle_timeout" });
    expect(output.chunks.length).toBe(1);
    await time.advance(10_000);
    expect(server.activeHandlers).toBe(0);
    expect(output.chunks.length).toBe(1);
  });

  it("with a reader that keeps progressing, the no-progress deadline never fires during the handler phase", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const { server, input, output } = recorded(time);
    server
      .handle("bigLater", async (p) => {
        const { ms, kib } = p as { ms: number; kib: number };
        await new Promise<void>((resolve) => time.setTimer(resolve, ms));
        return "z".repeat(kib * KiB);
      })
      .start();
    const closed = watchClosed(server, time);
    input.push(line(request(1, "bigLater", { ms: 1_000, kib: 2 * 1024 })));
    input.push(line(request(2, "bigLater", { ms: 2_000, kib: 600 })));
    input.end();
    await settle();
    await time.advance(1_000);
    for (let t = 1_000; t < 9_000; t += 4_000) {
      await time.advance(4_000); // 4 s between blocks: slow, but under the 5 s no-progress deadline
      expect(closed.at).toBeUndefined();
      output.completeNext();
      await settle();
    }
    await time.advance(999);
    expect(closed.at).toBeUndefined(); // t = 9 999
    await time.advance(1);
    await settle();
    expect(closed.at).toBe(t0 + 10_000); // the total bound
    expect(closed.info?.reason).toBe("eof");
  });

  it("a reader that stalls while output is full: EOF behind waiting requests is still seen, and output is cut at the no-progress deadline", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const { server, input, output } = recorded(time);
    let handled = 0;
    server.handle("big", () => (handled++, "z".repeat(600 * KiB))).start();
    const closed = watchClosed(server, time);
    let inputEnded = false;
    void server.inputEnded.then(() => (inputEnded = true));
    for (let i = 1; i <= 6; i++) input.push(line(request(i, "big")));
    input.end();
    await settle(50);
    expect(inputEnded).toBe(true);
    expect(handled).toBeLessThan(6); // the rest wait for output room
    expect(server.channel.queuedOutputBytes).toBeLessThanOrEqual(MiB + 600 * KiB + 100);
    await time.advance(4_999);
    expect(closed.at).toBeUndefined();
    await time.advance(1);
    await settle();
    expect(closed.at).toBe(t0 + 5_000);
    expect(closed.info).toMatchObject({ reason: "eof", drain: "idle_timeout" });
    expect(output.chunks.length).toBe(1);
    await time.advance(60_000);
    expect(server.activeHandlers).toBe(0);
    expect(output.chunks.length).toBe(1);
  });

  it("requests still waiting for a slot when the EOF grace runs out are answered with an error, not dropped", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const [a, b] = createDuplexPair();
    const log = { aborted: new Map<number, number>() };
    const server = new JsonRpcConnection(b, { timeProvider: time, maxConcurrentRequests: 1 }).handle(
      "sleep",
      sleepHandler(time, log),
    ).start();
    const closed = watchClosed(server, time);
    const peer = readingPeer(a);
    await peer.send(request(1, "sleep", { ms: 60_000 }));
    await peer.send(request(2, "sleep", { ms: 10 }));
    await peer.send(request(3, "sleep", { ms: 10 }));
    await peer.end();
    await time.advance(4_999);
    expect(peer.lines).toEqual([]);
    await time.advance(1);
    await settle();
    expect(log.aborted.get(60_000)).toBe(t0 + 5_000);
    expect(peer.messages).toEqual([
      { jsonrpc: "2.0", id: 2, error: { code: -32603, message: expect.stringMatching(/not started/) } },
      { jsonrpc: "2.0", id: 3, error: { code: -32603, message: expect.stringMatching(/not started/) } },
    ]);
    await time.advance(5_000);
    expect(closed.at).toBe(t0 + 10_000);
    expect(log.aborted.has(10)).toBe(false); // they never ran
  });
});

describe("JsonRpcConnection explicit close and faults", () => {
  it("explicit close skips the grace: signals abort at once, pending calls reject at once with ClosedError, shutdown bounded by shutdownTimeout", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const [a, b] = createDuplexPair();
    const log = { aborted: new Map<number, number>() };
    const server = new JsonRpcConnection(b, { timeProvider: time }).handle("sleep", sleepHandler(time, log))
      .start();
    const closed = watchClosed(server, time);
    const peer = readingPeer(a);
    await peer.send(request(1, "sleep", { ms: 60_000 }));
    await settle();
    const call = server.request("client/x").then(() => "resolved", (e) => e);
    await settle();
    void server.close();
    await settle();
    expect(log.aborted.get(60_000)).toBe(t0);
    expect(await call).toBeInstanceOf(ClosedError);
    await time.advance(4_999);
    expect(closed.at).toBeUndefined();
    await time.advance(1);
    await settle();
    expect(closed.at).toBe(t0 + 5_000);
    expect(closed.info?.reason).toBe("closed");
  });

  it("explicit close lets a handler that honours its signal reply at once and closes without waiting", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const [a, b] = createDuplexPair();
    const server = new JsonRpcConnection(b, { timeProvider: time })
      .handle(
        "wait",
        (_p, ctx) =>
          new Promise((_resolve, reject) =>
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))
          ),
      )
      .start();
    const closed = watchClosed(server, time);
    const peer = readingPeer(a);
    await peer.send(request(1, "wait"));
    await settle();
    await server.close();
    await settle();
    expect(closed.at).toBe(t0);
    expect(peer.messages).toEqual([{
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: expect.any(String) },
    }]);
  });

  it("a transport fault mid-write: nothing written after the failed write, pending calls rejected, handlers aborted without grace, closed says fault", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const { server, input, output } = recorded(time);
    const log = { aborted: new Map<number, number>() };
    server.handle("sleep", sleepHandler(time, log)).handle("big", () => "q".repeat(100 * KiB)).start();
    const closed = watchClosed(server, time);
    const call = server.request("client/x").then(() => "resolved", (e) => e);
    await settle();
    output.completeNext(); // the request is written
    input.push(line(request(1, "sleep", { ms: 60_000 })));
    input.push(line(request(2, "big")));
    await settle();
    expect(output.inFlight).toBe(true); // first block of the big reply
    const written = output.chunks.length;
    output.fail(new Error("EPIPE"));
    await settle();
    expect(closed.info?.reason).toBe("fault");
    expect(closed.at).toBe(t0);
    expect(closed.info?.error).toBeDefined();
    expect(await call).toBeInstanceOf(Error);
    expect(await call).not.toBe("resolved");
    expect(log.aborted.get(60_000)).toBe(t0); // no grace
    await server.notify("late").catch(() => {});
    await time.advance(60_000);
    await settle();
    expect(output.chunks.length).toBe(written); // nothing after the failed write
  });

  it("a write that fails after an idle spell ends the connection with fault at once", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const { server, input, output } = recorded(time);
    const log = { aborted: new Map<number, number>() };
    server.handle("sleep", sleepHandler(time, log)).handle("m", () => "ok").start();
    const closed = watchClosed(server, time);
    const call = server.request("client/x").then(() => "resolved", (e) => e);
    input.push(line(request(1, "sleep", { ms: 60_000 })));
    await settle();
    output.completeNext();
    await time.advance(1_000);
    output.fail(new Error("EPIPE")); // fails the next write
    input.push(line(request(2, "m")));
    await settle();
    expect(closed.info?.reason).toBe("fault");
    expect(closed.at).toBe(t0 + 1_000);
    expect(await call).toBeInstanceOf(Error);
    expect(log.aborted.get(60_000)).toBe(t0 + 1_000);
    expect(output.chunks.length).toBe(2); // the request, then the failed reply; nothing after
  });

  it("abort() tears down at once: nothing more written, pending calls rejected", async () => {
    const time = new FakeTimeProvider();
    const { server, output } = recorded(time, {}, true);
    server.start();
    const call = server.request("client/x").then(() => "resolved", (e) => e);
    await settle();
    const info = await server.abort();
    expect(info.reason).toBe("fault");
    expect(await call).toBeInstanceOf(Error);
    await expect(server.notify("x")).rejects.toBeInstanceOf(Error);
    expect(output.chunks.length).toBe(1);
  });
});

describe("JsonRpcConnection one-shot pipe", () => {
  it("answers every request of `echo ... | server` (requests then EOF at once) before output closes", async () => {
    const time = new FakeTimeProvider();
    const [a, b] = createDuplexPair();
    const server = new JsonRpcConnection(b, { timeProvider: time })
      .handle("now", (p) => p)
      .handle("later", async (p) => {
        await new Promise<void>((resolve) => time.setTimer(resolve, 100));
        return p;
      })
      .start();
    const closed = watchClosed(server, time);
    const peer = readingPeer(a);
    let batch = "";
    for (let i = 0; i < 300; i++) batch += JSON.stringify(request(i, i % 2 ? "later" : "now", i)) + "\n";
    batch += JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n";
    await peer.send(request(-1, "now", "first"));
    void peer.write(batch); // everything in one write, EOF right behind it
    void peer.end();
    await settle();
    await time.advance(100);
    await settle();
    await time.advance(100);
    await settle();
    expect(closed.info?.reason).toBe("eof");
    expect(peer.state.ended).toBe(true);
    const ids = peer.messages.map((m) => m.id).sort((x, y) => x - y);
    expect(ids).toEqual([-1, ...Array.from({ length: 300 }, (_, i) => i)]);
    expect(peer.messages.every((m) => m.result === (m.id === -1 ? "first" : m.id))).toBe(true);
  });

  it("answers every request of a one-shot pipe that exceeds maxConcurrentRequests (held requests run before EOF counts)", async () => {
    const time = new FakeTimeProvider();
    const t0 = time.now();
    const [a, b] = createDuplexPair();
    let running = 0;
    let maxRunning = 0;
    const server = new JsonRpcConnection(b, { timeProvider: time, maxConcurrentRequests: 4 })
      .handle("later", async (p) => {
        maxRunning = Math.max(maxRunning, ++running);
        await new Promise<void>((resolve) => time.setTimer(resolve, 1_000));
        running--;
        return p;
      })
      .start();
    const closed = watchClosed(server, time);
    const peer = readingPeer(a);
    let batch = "";
    for (let i = 0; i < 20; i++) batch += JSON.stringify(request(i, "later", i)) + "\n";
    void peer.write(batch);
    void peer.end();
    await settle();
    for (let s = 1; s <= 5; s++) {
      await time.advance(1_000);
      await settle();
      expect(peer.lines.length).toBe(4 * s);
    }
    expect(closed.at).toBe(t0 + 5_000);
    expect(closed.info).toMatchObject({ reason: "eof", drain: "drained" });
    expect(maxRunning).toBe(4);
    expect(peer.messages.map((m) => m.id).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
  });

  it("answers a one-shot pipe over a raw readable that is already closed", async () => {
    const time = new FakeTimeProvider();
    const output = new RecordingWritable();
    let text = "";
    for (let i = 0; i < 50; i++) text += JSON.stringify(request(i, "m", i)) + "\n";
    const bytes = encoder.encode(text);
    const readable = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    });
    const server = new JsonRpcConnection({ readable, writable: output.writable }, { timeProvider: time })
      .handle("m", async (p) => {
        await Promise.resolve();
        return p;
      })
      .start();
    const info = await server.closed;
    expect(info).toMatchObject({ reason: "eof", drain: "drained" });
    expect(output.closed).toBe(true);
    const replies = output.text().trim().split("\n").map((l) => JSON.parse(l));
    expect(replies.map((r) => r.id).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});

void TimeoutError;
void WriteFailedError;
