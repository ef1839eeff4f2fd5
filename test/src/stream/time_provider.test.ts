import { afterEach, describe, expect, it, vi } from "vitest";
import {
  MAX_TIMER_DELAY_MS,
  SystemTimeProvider,
  systemTimeProvider,
} from "../../../src/stream/time_provider.ts";
import { delay } from "../../../src/stream/time_kit.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

describe("SystemTimeProvider", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  function stubTimers() {
    const delays: number[] = [];
    const cleared: unknown[] = [];
    let next = 0;
    vi.stubGlobal("setTimeout", (_cb: () => void, ms: number) => {
      delays.push(ms);
      return { id: next++ };
    });
    vi.stubGlobal("clearTimeout", (handle: unknown) => cleared.push(handle));
    return { delays, cleared };
  }

  it("clamps delays of 2^31 ms and more to 2^31 - 1 ms", () => {
    const { delays } = stubTimers();
    const time = new SystemTimeProvider();
    time.setTimer(() => {}, 2 ** 31);
    time.setTimer(() => {}, 2 ** 40);
    time.setTimer(() => {}, Number.MAX_VALUE);
    time.setTimer(() => {}, Number.POSITIVE_INFINITY);
    expect(delays).toEqual([MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS]);
    expect(MAX_TIMER_DELAY_MS).toBe(2 ** 31 - 1);
  });

  it("passes delays up to 2^31 - 1 through unchanged", () => {
    const { delays } = stubTimers();
    const time = new SystemTimeProvider();
    time.setTimer(() => {}, 0);
    time.setTimer(() => {}, 5_000);
    time.setTimer(() => {}, 2 ** 31 - 1);
    expect(delays).toEqual([0, 5_000, 2 ** 31 - 1]);
  });

  it("treats negative and NaN delays as zero", () => {
    const { delays } = stubTimers();
    const time = new SystemTimeProvider();
    time.setTimer(() => {}, -1);
    time.setTimer(() => {}, Number.NaN);
    time.setTimer(() => {}, Number.NEGATIVE_INFINITY);
    expect(delays).toEqual([0, 0, 0]);
  });

  it("cancels through clearTimeout with the host's handle", () => {
    const { cleared } = stubTimers();
    const handle = new SystemTimeProvider().setTimer(() => {}, 10);
    handle.cancel();
    expect(cleared).toEqual([{ id: 0 }]);
  });

  it("has a clock that never goes backwards", () => {
    const a = systemTimeProvider.now();
    const b = systemTimeProvider.now();
    expect(b).toBeGreaterThanOrEqual(a);
  });
});

describe("delay", () => {
  it("resolves after the delay on the given clock", async () => {
    const time = new FakeTimeProvider();
    let done = false;
    void delay(time, 1_000).then(() => (done = true));
    await time.advance(999);
    expect(done).toBe(false);
    await time.advance(1);
    expect(done).toBe(true);
  });

  it("rejects with the signal's reason and cancels its timer", async () => {
    const time = new FakeTimeProvider();
    const controller = new AbortController();
    const waiting = delay(time, 1_000, controller.signal);
    expect(time.pendingTimers).toBe(1);
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(time.pendingTimers).toBe(0);
  });

  it("rejects at once for an aborted signal without setting a timer", async () => {
    const time = new FakeTimeProvider();
    await expect(delay(time, 10, AbortSignal.abort("why"))).rejects.toBe("why");
    expect(time.pendingTimers).toBe(0);
  });
});
