import { describe, expect, it } from "vitest";
import { KEEP_ALIVE_TICK, KeepAliveClock } from "../../../../../src/http/server/sse/keep_alive_clock.ts";
import { SseStream } from "../../../../../src/http/server/sse/sse_stream.ts";
import { FakeTimeProvider } from "../../../../../testing/fake_time_provider.ts";

/** A stream that records the instants of its ticks. */
function ticking(time: FakeTimeProvider, start: number) {
  const ticks: number[] = [];
  return { ticks, [KEEP_ALIVE_TICK]: () => void ticks.push(time.now() - start) };
}

describe("KeepAliveClock", () => {
  it("ticks each stream every interval from when it was added, with one timer for all", async () => {
    const time = new FakeTimeProvider();
    const start = time.now();
    const clock = KeepAliveClock.of(time, 15_000);
    const a = ticking(time, start);
    const b = ticking(time, start);
    clock.add(a);
    await time.advance(5_000);
    clock.add(b);
    expect(time.pendingTimers).toBe(1);
    await time.advance(9_999);
    expect(a.ticks).toEqual([]); // not before its interval
    await time.advance(1);
    expect(a.ticks).toEqual([15_000]);
    expect(b.ticks).toEqual([]);
    await time.advance(5_000);
    expect(b.ticks).toEqual([20_000]);
    await time.advance(30_000);
    expect(a.ticks).toEqual([15_000, 30_000, 45_000]);
    expect(b.ticks).toEqual([20_000, 35_000, 50_000]);
    expect(time.pendingTimers).toBe(1);
  });

  it("drops its timer with the last stream and arms it again for the next one", async () => {
    const time = new FakeTimeProvider();
    const start = time.now();
    const clock = KeepAliveClock.of(time, 1_000);
    const a = ticking(time, start);
    clock.add(a);
    clock.delete(a);
    expect(time.pendingTimers).toBe(0);
    expect(clock.size).toBe(0);
    await time.advance(5_000);
    expect(a.ticks).toEqual([]);
    clock.add(a);
    await time.advance(1_000);
    expect(a.ticks).toEqual([6_000]);
  });

  it("is shared by time provider and interval", () => {
    const time = new FakeTimeProvider();
    expect(KeepAliveClock.of(time, 15_000)).toBe(KeepAliveClock.of(time, 15_000));
    expect(KeepAliveClock.of(time, 15_000)).not.toBe(KeepAliveClock.of(time, 10_000));
    expect(KeepAliveClock.of(time, 15_000)).not.toBe(KeepAliveClock.of(new FakeTimeProvider(), 15_000));
  });

  it("keeps one timer for a thousand idle SSE streams, each sending its keep-alive at its interval, and none once they end", async () => {
    const time = new FakeTimeProvider();
    const streams: SseStream[] = [];
    for (let i = 0; i < 1_000; i++) {
      streams.push(new SseStream({ timeProvider: time, keepAliveInterval: 15_000 }));
      if (i === 499) await time.advance(1_000); // half of them start a second later
    }
    expect(time.pendingTimers).toBe(1);
    await time.advance(14_000);
    expect(streams.filter((s) => s.bufferedBytes > 0)).toHaveLength(500);
    await time.advance(999);
    expect(streams.filter((s) => s.bufferedBytes > 0)).toHaveLength(500);
    await time.advance(1);
    expect(streams.every((s) => s.bufferedBytes === 3)).toBe(true); // ":\n\n" each
    for (const stream of streams) stream.abort();
    expect(time.pendingTimers).toBe(0);
  });
});
