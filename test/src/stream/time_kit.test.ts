import { describe, expect, it } from "vitest";
import { TimeoutError } from "../../../src/wire/errors.ts";
import { deadline, delay, settlesWithin, timeoutSignal, withTimeout } from "../../../src/stream/time_kit.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

/** The state of a promise after the fake clock has let microtasks settle. */
function track<T>(
  promise: Promise<T>,
): { readonly state: "pending" | "resolved" | "rejected"; readonly value: unknown } {
  const out = { state: "pending" as "pending" | "resolved" | "rejected", value: undefined as unknown };
  promise.then(
    (v) => ((out.state = "resolved"), (out.value = v)),
    (e) => ((out.state = "rejected"), (out.value = e)),
  );
  return out;
}

describe("delay", () => {
  it("resolves once its time has passed, and not a millisecond earlier", async () => {
    const time = new FakeTimeProvider();
    const waited = track(delay(time, 1_000));
    await time.advance(999);
    expect(waited.state).toBe("pending");
    await time.advance(1);
    expect(waited.state).toBe("resolved");
    expect(time.pendingTimers).toBe(0);
  });

  it("rejects with the signal's reason when aborted first, and cancels its timer", async () => {
    const time = new FakeTimeProvider();
    const controller = new AbortController();
    const waited = track(delay(time, 1_000, controller.signal));
    await time.advance(10);
    controller.abort(new Error("stop"));
    await time.advance(0);
    expect(waited.state).toBe("rejected");
    expect((waited.value as Error).message).toBe("stop");
    expect(time.pendingTimers).toBe(0);
  });

  it("rejects at once for a signal already aborted, setting no timer", async () => {
    const time = new FakeTimeProvider();
    await expect(delay(time, 1_000, AbortSignal.abort("gone"))).rejects.toBe("gone");
    expect(time.pendingTimers).toBe(0);
  });
});

describe("withTimeout", () => {
  it("settles like the promise when it settles in time, and cancels the timer", async () => {
    const time = new FakeTimeProvider();
    await expect(withTimeout(time, Promise.resolve(7), 100)).resolves.toBe(7);
    await expect(withTimeout(time, Promise.reject(new Error("no")), 100)).rejects.toThrow("no");
    expect(time.pendingTimers).toBe(0);
  });

  it("rejects with a TimeoutError naming the timeout when time runs out, not before", async () => {
    const time = new FakeTimeProvider();
    const never = new Promise<never>(() => {});
    const waited = track(withTimeout(time, never, 5_000));
    await time.advance(4_999);
    expect(waited.state).toBe("pending");
    await time.advance(1);
    expect(waited.state).toBe("rejected");
    expect(waited.value).toBeInstanceOf(TimeoutError);
    expect((waited.value as TimeoutError).timeoutMs).toBe(5_000);
    expect((waited.value as Error).message).toContain("5000 ms");
  });

  it("rejects with the caller's error when one is given", async () => {
    const time = new FakeTimeProvider();
    const marker = new Error("probe deadline");
    const waited = track(withTimeout(time, new Promise(() => {}), 10, { error: () => marker }));
    await time.advance(10);
    expect(waited.value).toBe(marker);
  });

  it("sets no timer for an infinite timeout", async () => {
    const time = new FakeTimeProvider();
    const waited = track(withTimeout(time, new Promise(() => {}), Number.POSITIVE_INFINITY));
    expect(time.pendingTimers).toBe(0);
    await time.advance(1e12);
    expect(waited.state).toBe("pending");
  });

  it("stops waiting when its signal aborts, and cancels the timer", async () => {
    const time = new FakeTimeProvider();
    const controller = new AbortController();
    const waited = track(withTimeout(time, new Promise(() => {}), 1_000, { signal: controller.signal }));
    controller.abort("cancelled");
    await time.advance(0);
    expect(waited).toEqual({ state: "rejected", value: "cancelled" });
    expect(time.pendingTimers).toBe(0);
  });

  it("leaves no unhandled rejection when the losing promise rejects later", async () => {
    const time = new FakeTimeProvider();
    let fail!: (e: unknown) => void;
    const late = new Promise((_, reject) => (fail = reject));
    const waited = track(withTimeout(time, late, 10));
    await time.advance(10);
    fail(new Error("too late"));
    await time.advance(0);
    expect(waited.value).toBeInstanceOf(TimeoutError);
  });
});

describe("settlesWithin", () => {
  it("is true when the promise settles (either way) in time, false when time runs out", async () => {
    const time = new FakeTimeProvider();
    await expect(settlesWithin(time, Promise.reject(new Error("x")), 10)).resolves.toBe(true);
    const waited = track(settlesWithin(time, new Promise(() => {}), 10));
    await time.advance(9);
    expect(waited.state).toBe("pending");
    await time.advance(1);
    expect(waited).toEqual({ state: "resolved", value: false });
  });
});

describe("timeoutSignal", () => {
  it("aborts with a TimeoutError when time runs out, not before", async () => {
    const time = new FakeTimeProvider();
    const { signal } = timeoutSignal(time, 300);
    await time.advance(299);
    expect(signal.aborted).toBe(false);
    await time.advance(1);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(TimeoutError);
  });

  it("never aborts once cleared, and leaves no timer", async () => {
    const time = new FakeTimeProvider();
    const deadline = timeoutSignal(time, 300);
    deadline.clear();
    expect(time.pendingTimers).toBe(0);
    await time.advance(1_000);
    expect(deadline.signal.aborted).toBe(false);
  });

  it("follows its parent signal, with the parent's reason, and then cancels its timer", async () => {
    const time = new FakeTimeProvider();
    const parent = new AbortController();
    const { signal } = timeoutSignal(time, 300, { signal: parent.signal, reason: () => "late" });
    parent.abort("owner");
    expect(signal.reason).toBe("owner");
    expect(time.pendingTimers).toBe(0);
    const already = timeoutSignal(time, 300, { signal: AbortSignal.abort("before") });
    expect(already.signal.reason).toBe("before");
    expect(time.pendingTimers).toBe(0);
  });

  it("uses the given reason when time runs out, and can be disposed", async () => {
    const time = new FakeTimeProvider();
    const deadline = timeoutSignal(time, 5, { reason: () => "late" });
    await time.advance(5);
    expect(deadline.signal.reason).toBe("late");
    const other = timeoutSignal(time, 5);
    other[Symbol.dispose]();
    expect(time.pendingTimers).toBe(0);
  });
});

describe("deadline", () => {
  it("expires once its time passes without a restart, and not a millisecond earlier", async () => {
    const time = new FakeTimeProvider();
    let expired = 0;
    deadline(time, 100, () => expired++);
    await time.advance(99);
    expect(expired).toBe(0);
    await time.advance(1);
    expect(expired).toBe(1);
    await time.advance(1_000);
    expect(expired).toBe(1);
  });

  it("starts the full time again at every restart", async () => {
    const time = new FakeTimeProvider();
    let expired = 0;
    const idle = deadline(time, 100, () => expired++);
    await time.advance(80);
    idle.restart();
    await time.advance(80);
    expect(expired).toBe(0);
    await time.advance(20);
    expect(expired).toBe(1);
  });

  it("never expires once cancelled, even if restarted afterwards", async () => {
    const time = new FakeTimeProvider();
    let expired = 0;
    const idle = deadline(time, 100, () => expired++);
    idle.cancel();
    idle.restart();
    await time.advance(1_000);
    expect(expired).toBe(0);
    expect(time.pendingTimers).toBe(0);
  });
});
