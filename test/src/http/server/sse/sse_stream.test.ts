import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_BUFFERED_BYTES,
  NO_FRAME_YET,
  SSE_HEADERS,
  SseStream,
} from "../../../../../src/http/server/sse/sse_stream.ts";
import { WHEN_CLOSED } from "../../../../../src/http/server/long_streams.ts";
import { CancelledError, ClosedError, InvalidOptionError } from "../../../../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../../testing/fake_time_provider.ts";

const decoder = new TextDecoder();

/** Tracks a promise's outcome without awaiting it. */
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; error?: unknown } = { settled: false };
  promise.then(
    () => void (state.settled = true),
    (error: unknown) => void ((state.settled = true), (state.error = error)),
  );
  return state;
}

/** A frame of exactly `bytes` bytes: "data: " + payload + "\n\n". */
function payloadFor(bytes: number): string {
  return "x".repeat(bytes - 8);
}

async function readText(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string | undefined> {
  const { done, value } = await reader.read();
  return done ? undefined : decoder.decode(value);
}

describe("SseStream", () => {
  it("serves a Response with the SSE headers", () => {
    const stream = new SseStream({ keepAliveInterval: 0 });
    const response = stream.response();
    expect(response.status).toBe(200);
    for (const [name, value] of Object.entries(SSE_HEADERS)) expect(response.headers.get(name)).toBe(value);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    stream.abort();
  });

  it("serves its events as the body of its Response", async () => {
    const stream = new SseStream({ keepAliveInterval: 0 });
    const body = stream.response().text();
    await stream.write({ jsonrpc: "2.0", id: 1, result: { ok: true } });
    await stream.close();
    expect(await body).toBe('data: {"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n\n');
  });

  it("delivers JSON messages in order and ends after close", async () => {
    const stream = new SseStream({ keepAliveInterval: 0 });
    const reader = stream.readable.getReader();
    await stream.write({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } });
    await stream.write({ jsonrpc: "2.0", id: 1, result: {} }, { id: "e1" });
    const closed = track(stream.close());
    expect(await readText(reader)).toBe(
      'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\n',
    );
    expect(await readText(reader)).toBe('id: e1\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
    expect(await readText(reader)).toBeUndefined();
    await flushMicrotasks();
    expect(closed).toEqual({ settled: true });
    expect(stream.signal.aborted).toBe(false);
  });

  it("rejects messages JSON cannot write, and writes nothing for them", async () => {
    const stream = new SseStream({ keepAliveInterval: 0 });
    await expect(stream.write(undefined)).rejects.toThrow(/Cannot send undefined/);
    await expect(stream.write({ n: 1n })).rejects.toBeInstanceOf(TypeError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    await expect(stream.write(cycle)).rejects.toBeInstanceOf(TypeError);
    expect(stream.bufferedBytes).toBe(0);
    stream.abort();
  });

  it("defaults its bound to 1 MiB and refuses a bad one", () => {
    const stream = new SseStream({ keepAliveInterval: 0 });
    expect(stream.maxBufferedBytes).toBe(DEFAULT_MAX_BUFFERED_BYTES);
    expect(DEFAULT_MAX_BUFFERED_BYTES).toBe(1024 * 1024);
    stream.abort();
    expect(() => new SseStream({ maxBufferedBytes: 0 })).toThrow(InvalidOptionError);
    expect(() => new SseStream({ keepAliveInterval: -1 })).toThrow(InvalidOptionError);
  });

  describe("backpressure", () => {
    it("accepts writes up to exactly the bound without a reader", async () => {
      const stream = new SseStream({ maxBufferedBytes: 100, keepAliveInterval: 0 });
      const writes = Array.from({ length: 4 }, () => track(stream.writeEvent({ data: payloadFor(25) })));
      await flushMicrotasks();
      expect(writes).toEqual(Array.from({ length: 4 }, () => ({ settled: true })));
      expect(stream.bufferedBytes).toBe(100);
      stream.abort();
    });

    it("holds the write that would pass the bound until the reader takes a frame", async () => {
      const stream = new SseStream({ maxBufferedBytes: 100, keepAliveInterval: 0 });
      for (let i = 0; i < 4; i++) void stream.writeEvent({ data: payloadFor(25) });
      const fifth = track(stream.writeEvent({ data: payloadFor(25) }));
      await flushMicrotasks();
      expect(fifth.settled).toBe(false);
      expect(stream.bufferedBytes).toBe(100);
      const reader = stream.readable.getReader();
      expect(await readText(reader)).toHaveLength(25);
      await flushMicrotasks();
      expect(fifth).toEqual({ settled: true });
      expect(stream.bufferedBytes).toBe(100);
      stream.abort();
    });

    it("lets one frame larger than the bound into an empty stream, and nothing after it", async () => {
      const stream = new SseStream({ maxBufferedBytes: 100, keepAliveInterval: 0 });
      await stream.writeEvent({ data: payloadFor(500) });
      expect(stream.bufferedBytes).toBe(500);
      const next = track(stream.writeEvent({ data: "a" }));
      await flushMicrotasks();
      expect(next.settled).toBe(false);
      await readText(stream.readable.getReader());
      await flushMicrotasks();
      expect(next.settled).toBe(true);
      stream.abort();
    });

    it("keeps memory at the bound while a client never reads 10,000 writes", async () => {
      const stream = new SseStream({ maxBufferedBytes: 64 * 1024, keepAliveInterval: 0 });
      const frame = payloadFor(1024);
      const writes = Array.from({ length: 10_000 }, () => track(stream.writeEvent({ data: frame })));
      await flushMicrotasks();
      expect(stream.bufferedBytes).toBe(64 * 1024);
      expect(writes.filter((w) => w.settled)).toHaveLength(64);
      stream.abort();
      await flushMicrotasks();
      expect(writes.slice(0, 64).every((w) => w.settled && w.error === undefined)).toBe(true);
      expect(writes.slice(64).every((w) => w.settled && w.error instanceof CancelledError)).toBe(true);
    });

    it("admits waiting writers in arrival order", async () => {
      const stream = new SseStream({ maxBufferedBytes: 10, keepAliveInterval: 0 });
      await stream.writeEvent({ data: "0" });
      const order: number[] = [];
      const writes = [1, 2, 3].map((n) => stream.writeEvent({ data: String(n) }).then(() => order.push(n)));
      const reader = stream.readable.getReader();
      const seen: string[] = [];
      for (let i = 0; i < 4; i++) seen.push((await readText(reader))!);
      await Promise.all(writes);
      expect(order).toEqual([1, 2, 3]);
      expect(seen).toEqual(["data: 0\n\n", "data: 1\n\n", "data: 2\n\n", "data: 3\n\n"]);
      stream.abort();
    });

    it("rejects a waiting write with its signal's reason and lets the next writer in", async () => {
      const stream = new SseStream({ maxBufferedBytes: 10, keepAliveInterval: 0 });
      await stream.writeEvent({ data: "0" });
      const controller = new AbortController();
      const waiting = stream.writeEvent({ data: "1" }, controller.signal);
      const after = track(stream.writeEvent({ data: "2" }));
      controller.abort(new Error("Caller gave up"));
      await expect(waiting).rejects.toThrow("Caller gave up");
      const reader = stream.readable.getReader();
      expect(await readText(reader)).toBe("data: 0\n\n");
      expect(await readText(reader)).toBe("data: 2\n\n");
      expect(after.settled).toBe(true);
      stream.abort();
    });
  });

  describe("cancel and abort", () => {
    it("rejects waiting and later writes with CancelledError and fires the signal when the reader cancels", async () => {
      const stream = new SseStream({ maxBufferedBytes: 10, keepAliveInterval: 0 });
      const aborts: unknown[] = [];
      stream.signal.addEventListener("abort", () => aborts.push(stream.signal.reason));
      await stream.writeEvent({ data: "0" });
      const waiting = stream.writeEvent({ data: "1" });
      await stream.readable.cancel("client went away");
      const error = await waiting.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CancelledError);
      expect(error).toMatchObject({ code: "cancelled", cause: "client went away" });
      expect(aborts).toHaveLength(1);
      expect(aborts[0]).toBe(error);
      await expect(stream.write({})).rejects.toBeInstanceOf(CancelledError);
      expect(stream.bufferedBytes).toBe(0);
      await stream.closed;
    });

    it("calls onCancel once with the same reason the signal carries, and a signal asked for after the cancel is already aborted", async () => {
      const reasons: unknown[] = [];
      const stream = new SseStream({ keepAliveInterval: 0, onCancel: (reason) => reasons.push(reason) });
      await stream.readable.cancel("client went away");
      stream.abort(new Error("later"));
      expect(reasons).toHaveLength(1);
      expect(reasons[0]).toBeInstanceOf(CancelledError);
      expect(stream.signal.aborted).toBe(true);
      expect(stream.signal.reason).toBe(reasons[0]);
    });

    it("does not call onCancel for a stream that ends normally", async () => {
      const reasons: unknown[] = [];
      const stream = new SseStream({ keepAliveInterval: 0, onCancel: (reason) => reasons.push(reason) });
      await stream.writeEvent({ data: "0" });
      const closing = stream.close();
      const reader = stream.readable.getReader();
      while (!(await reader.read()).done);
      await closing;
      await stream.closed;
      expect(reasons).toEqual([]);
      expect(stream.signal.aborted).toBe(false);
    });

    it("errors the reader and rejects writes with the reason on abort", async () => {
      const stream = new SseStream({ keepAliveInterval: 0 });
      const reader = stream.readable.getReader();
      const reason = new Error("Server shutting down");
      stream.abort(reason);
      await expect(reader.read()).rejects.toBe(reason);
      await expect(stream.write({})).rejects.toBe(reason);
      expect(stream.signal.aborted).toBe(true);
    });

    it("does nothing on abort once the reader saw the end", async () => {
      const stream = new SseStream({ keepAliveInterval: 0 });
      const reader = stream.readable.getReader();
      void stream.close();
      expect(await reader.read()).toEqual({ done: true, value: undefined });
      stream.abort();
      expect(stream.signal.aborted).toBe(false);
    });
  });

  describe("close", () => {
    it("refuses writes after close with ClosedError but delivers writers already waiting", async () => {
      const stream = new SseStream({ maxBufferedBytes: 10, keepAliveInterval: 0 });
      await stream.writeEvent({ data: "0" });
      const waiting = track(stream.writeEvent({ data: "1" }));
      const closing = stream.close();
      await expect(stream.writeEvent({ data: "2" })).rejects.toBeInstanceOf(ClosedError);
      const reader = stream.readable.getReader();
      expect(await readText(reader)).toBe("data: 0\n\n");
      expect(await readText(reader)).toBe("data: 1\n\n");
      expect(await readText(reader)).toBeUndefined();
      await closing;
      expect(waiting).toEqual({ settled: true });
    });

    it("waits for the reader before it resolves", async () => {
      const stream = new SseStream({ keepAliveInterval: 0 });
      await stream.writeEvent({ data: "last" });
      const closing = track(stream.close());
      await flushMicrotasks();
      expect(closing.settled).toBe(false);
      const reader = stream.readable.getReader();
      await reader.read();
      await reader.read();
      await flushMicrotasks();
      expect(closing.settled).toBe(true);
    });

    it("resolves at once when the stream was cancelled", async () => {
      const stream = new SseStream({ keepAliveInterval: 0 });
      await stream.writeEvent({ data: "never read" });
      await stream.readable.cancel();
      await stream.close();
      expect(stream.signal.aborted).toBe(true);
    });
  });

  describe("keep-alive", () => {
    it("sends a comment after a quiet interval, not before", async () => {
      const time = new FakeTimeProvider();
      const stream = new SseStream({ timeProvider: time, keepAliveInterval: 15_000 });
      const reader = stream.readable.getReader();
      const first = reader.read();
      const got = track(first);
      await time.advance(14_999);
      expect(got.settled).toBe(false);
      await time.advance(1);
      expect(decoder.decode((await first).value)).toBe(":\n\n");
      const second = track(reader.read());
      await time.advance(14_999);
      expect(second.settled).toBe(false);
      await time.advance(1);
      expect(second.settled).toBe(true);
      stream.abort();
    });

    it("skips the comment after an interval in which something was written", async () => {
      const time = new FakeTimeProvider();
      const stream = new SseStream({ timeProvider: time, keepAliveInterval: 1_000 });
      const reader = stream.readable.getReader();
      await time.advance(500);
      await stream.writeEvent({ data: "busy" });
      expect(await readText(reader)).toBe("data: busy\n\n");
      await time.advance(500); // the tick at 1 000 found a write: no comment
      expect(stream.bufferedBytes).toBe(0);
      await time.advance(1_000); // the tick at 2 000 found the stream idle
      expect(stream.bufferedBytes).toBe(3);
      expect(await readText(reader)).toBe(":\n\n");
      stream.abort();
    });

    it("does not pile up comments while the client is not reading", async () => {
      const time = new FakeTimeProvider();
      const stream = new SseStream({ timeProvider: time, keepAliveInterval: 1_000 });
      await time.advance(10_000);
      expect(stream.bufferedBytes).toBe(3);
      stream.abort();
    });

    it("stops its timer on close and on cancel, and sets none when disabled", async () => {
      const time = new FakeTimeProvider();
      const closed = new SseStream({ timeProvider: time, keepAliveInterval: 1_000 });
      expect(time.pendingTimers).toBe(1);
      const reader = closed.readable.getReader();
      void closed.close();
      await reader.read();
      expect(time.pendingTimers).toBe(0);
      const cancelled = new SseStream({ timeProvider: time, keepAliveInterval: 1_000 });
      await cancelled.readable.cancel();
      expect(time.pendingTimers).toBe(0);
      new SseStream({ timeProvider: time, keepAliveInterval: 0 }).abort();
      expect(time.pendingTimers).toBe(0);
    });
  });

  it("pollFrame gives frames as they are, says NO_FRAME_YET and tells its reader once when one comes, then ends", async () => {
    const stream = new SseStream({ keepAliveInterval: 0 });
    let ready = 0;
    const reader = { frameReady: () => void ready++ };
    expect(stream.pollFrame(reader)).toBe(NO_FRAME_YET);
    await stream.write({ n: 1 });
    await stream.write({ n: 2 });
    expect(ready).toBe(1); // once per wait, not per write
    expect(decoder.decode(stream.pollFrame(reader) as Uint8Array)).toBe('data: {"n":1}\n\n');
    expect(decoder.decode(stream.pollFrame(reader) as Uint8Array)).toBe('data: {"n":2}\n\n');
    expect(stream.bufferedBytes).toBe(0);
    expect(stream.pollFrame(reader)).toBe(NO_FRAME_YET);
    const closed = stream.close();
    await flushMicrotasks();
    expect(ready).toBe(2);
    expect(stream.pollFrame(reader)).toBeUndefined();
    await closed;
  });

  it("pollFrame tells a waiting reader of a cancel and then throws the reason", () => {
    const stream = new SseStream({ keepAliveInterval: 0 });
    let ready = 0;
    const reader = { frameReady: () => void ready++ };
    expect(stream.pollFrame(reader)).toBe(NO_FRAME_YET);
    stream.cancel(new Error("gone"));
    expect(ready).toBe(1);
    expect(() => stream.pollFrame(reader)).toThrow(CancelledError);
  });

  it("tells WHEN_CLOSED callbacks once it ended, in order, and at once after; closed still resolves", async () => {
    const stream = new SseStream({ keepAliveInterval: 0 });
    const calls: string[] = [];
    stream[WHEN_CLOSED](() => calls.push("a"));
    stream[WHEN_CLOSED](() => calls.push("b"));
    const closed = track(stream.closed);
    await stream.writeEvent({ data: "x" });
    void stream.close();
    await flushMicrotasks();
    expect(calls).toEqual([]); // not before the reader took the end
    expect(decoder.decode(stream.pollFrame({ frameReady: () => {} }) as Uint8Array)).toBe("data: x\n\n");
    expect(stream.pollFrame({ frameReady: () => {} })).toBeUndefined();
    expect(calls).toEqual(["a", "b"]);
    await flushMicrotasks();
    expect(closed.settled).toBe(true);
    stream[WHEN_CLOSED](() => calls.push("late"));
    expect(calls).toEqual(["a", "b", "late"]);
    await stream.closed;
  });

  it("keeps frame order when its queue empties and fills again, over many rounds", async () => {
    const stream = new SseStream({ keepAliveInterval: 0 });
    const reader = { frameReady: () => {} };
    const got: string[] = [];
    let n = 0;
    for (let round = 0; round < 50; round++) {
      const writes = 1 + (round % 7) * 300; // past the 1,024-frame compaction now and then
      for (let i = 0; i < writes; i++) await stream.writeEvent({ data: String(n++) });
      const reads = round % 2 === 0 ? writes : Math.floor(writes / 2);
      for (let i = 0; i < reads; i++) {
        got.push(decoder.decode(stream.pollFrame(reader) as Uint8Array).slice(6, -2));
      }
    }
    for (let frame = stream.pollFrame(reader); frame !== NO_FRAME_YET; frame = stream.pollFrame(reader)) {
      got.push(decoder.decode(frame as Uint8Array).slice(6, -2));
    }
    expect(got).toEqual(Array.from({ length: n }, (_, i) => String(i)));
    expect(stream.bufferedBytes).toBe(0);
  });
});
