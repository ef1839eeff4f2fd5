import { describe, expect, it } from "vitest";
import { FakeTimeProvider, flushMicrotasks } from "../../testing/fake_time_provider.ts";

describe("FakeTimeProvider", () => {
  it("starts at a fixed instant and moves only on advance", async () => {
    const time = new FakeTimeProvider();
    expect(time.now()).toBe(1_000_000);
    await flushMicrotasks();
    expect(time.now()).toBe(1_000_000);
    await time.advance(250);
    expect(time.now()).toBe(1_000_250);
    expect(new FakeTimeProvider({ start: 0 }).now()).toBe(0);
  });

  it("fires a timer when due and not a millisecond earlier", async () => {
    const time = new FakeTimeProvider();
    let fired = 0;
    time.setTimer(() => fired++, 5_000);
    await time.advance(4_999);
    expect(fired).toBe(0);
    await time.advance(1);
    expect(fired).toBe(1);
    await time.advance(10_000);
    expect(fired).toBe(1);
  });

  it("fires due timers in due order, ties in the order they were set, at their due instant", async () => {
    const time = new FakeTimeProvider({ start: 0 });
    const log: string[] = [];
    const at = (name: string) => () => log.push(`${name}@${time.now()}`);
    time.setTimer(at("c"), 30);
    time.setTimer(at("a1"), 10);
    time.setTimer(at("b"), 20);
    time.setTimer(at("a2"), 10);
    time.setTimer(at("zero"), 0);
    await time.advance(100);
    expect(log).toEqual(["zero@0", "a1@10", "a2@10", "b@20", "c@30"]);
    expect(time.now()).toBe(100);
  });

  it("fires a timer set by a callback within the same advance when it falls due, ties in the order set", async () => {
    const time = new FakeTimeProvider({ start: 0 });
    const log: string[] = [];
    time.setTimer(() => {
      log.push("first");
      time.setTimer(() => log.push(`nested@${time.now()}`), 5);
      time.setTimer(() => log.push("nested-too-late"), 500);
    }, 10);
    time.setTimer(() => log.push("tie"), 10);
    time.setTimer(() => log.push("at15"), 15);
    await time.advance(20);
    expect(log).toEqual(["first", "tie", "at15", "nested@15"]); // a tie at 15: "at15" was set first
    expect(time.pendingTimers).toBe(1);
  });

  it("lets microtasks settle between timers", async () => {
    const time = new FakeTimeProvider({ start: 0 });
    const log: string[] = [];
    time.setTimer(() => {
      log.push("t1");
      void Promise.resolve()
        .then(() => log.push("t1-micro"))
        .then(() => Promise.resolve())
        .then(() => log.push("t1-micro-chain"));
    }, 10);
    time.setTimer(() => log.push("t2"), 10);
    await time.advance(10);
    expect(log).toEqual(["t1", "t1-micro", "t1-micro-chain", "t2"]);
  });

  it("lets a timer cancel a later one during the same advance", async () => {
    const time = new FakeTimeProvider();
    let fired = false;
    const later = time.setTimer(() => (fired = true), 20);
    time.setTimer(() => later.cancel(), 10);
    await time.advance(30);
    expect(fired).toBe(false);
    expect(time.pendingTimers).toBe(0);
  });

  it("refuses to go backwards or by a non-finite amount", async () => {
    const time = new FakeTimeProvider();
    await expect(time.advance(-1)).rejects.toBeInstanceOf(RangeError);
    await expect(time.advance(Number.NaN)).rejects.toBeInstanceOf(RangeError);
    await expect(time.advance(Number.POSITIVE_INFINITY)).rejects.toBeInstanceOf(RangeError);
    expect(time.now()).toBe(1_000_000);
    await time.advance(0);
    expect(time.now()).toBe(1_000_000);
  });

  it("counts pending timers; cancel removes one, twice or after firing does nothing", async () => {
    const time = new FakeTimeProvider();
    expect(time.pendingTimers).toBe(0);
    expect(time.nextDueIn).toBeUndefined();
    const a = time.setTimer(() => {}, 100);
    const b = time.setTimer(() => {}, 50);
    expect(time.pendingTimers).toBe(2);
    expect(time.nextDueIn).toBe(50);
    b.cancel();
    b.cancel();
    expect(time.pendingTimers).toBe(1);
    expect(time.nextDueIn).toBe(100);
    await time.advance(100);
    expect(time.pendingTimers).toBe(0);
    a.cancel();
    expect(time.pendingTimers).toBe(0);
  });

  it("treats negative and NaN delays as zero and an infinite one as never within reach", async () => {
    const time = new FakeTimeProvider();
    const log: string[] = [];
    time.setTimer(() => log.push("neg"), -5);
    time.setTimer(() => log.push("nan"), Number.NaN);
    time.setTimer(() => log.push("inf"), Number.POSITIVE_INFINITY);
    await time.advance(0);
    expect(log).toEqual(["neg", "nan"]);
    await time.advance(365 * 24 * 3_600_000);
    expect(log).toEqual(["neg", "nan"]);
    expect(time.pendingTimers).toBe(1);
  });

  it("throws instead of hanging on a timer that re-arms itself with no delay", async () => {
    const time = new FakeTimeProvider();
    const rearm = (): void => void time.setTimer(rearm, 0);
    time.setTimer(rearm, 0);
    await expect(time.advance(10)).rejects.toThrow(/re-arming itself/);
    await expect(time.runAll()).rejects.toThrow(/re-arming itself/);
  });

  it("runAll advances timer by timer up to a limit", async () => {
    const time = new FakeTimeProvider({ start: 0 });
    const log: number[] = [];
    time.setTimer(() => {
      log.push(time.now());
      time.setTimer(() => log.push(time.now()), 1_000);
    }, 1_000);
    time.setTimer(() => log.push(time.now()), 10_000);
    expect(await time.runAll(5_000)).toBe(2_000);
    expect(log).toEqual([1_000, 2_000]);
    expect(await time.runAll()).toBe(8_000);
    expect(log).toEqual([1_000, 2_000, 10_000]);
    expect(await time.runAll()).toBe(0);
  });
});

describe("flushMicrotasks", () => {
  it("runs queued microtasks and the ones they queue", async () => {
    let depth = 0;
    const step = (): void => {
      if (++depth < 50) queueMicrotask(step);
    };
    queueMicrotask(step);
    await flushMicrotasks();
    expect(depth).toBe(50);
  });
});
