import { describe, expect, it } from "vitest";
import { abortable, deferred, wakeUp } from "../../../src/stream/deferred.ts";

describe("abortable", () => {
  it("settles like the promise while the signal stays quiet", async () => {
    const d = deferred<number>();
    const controller = new AbortController();
    const waiting = abortable(d.promise, controller.signal);
    d.resolve(5);
    await expect(waiting).resolves.toBe(5);
  });

  it("rejects with the signal's reason when it aborts first", async () => {
    const controller = new AbortController();
    const waiting = abortable(new Promise(() => {}), controller.signal);
    controller.abort("stop");
    await expect(waiting).rejects.toBe("stop");
  });

  it("is the promise itself without a signal", () => {
    const p = Promise.resolve(1);
    expect(abortable(p)).toBe(p);
  });
});

describe("wakeUp", () => {
  it("wakes every waiter of the current round once, and later waiters only at the next fire", async () => {
    const wake = wakeUp();
    let woken = 0;
    void wake.wait().then(() => woken++);
    void wake.wait().then(() => woken++);
    wake.fire();
    await Promise.resolve();
    expect(woken).toBe(2);
    let late = false;
    void wake.wait().then(() => (late = true));
    await Promise.resolve();
    expect(late).toBe(false);
    wake.fire();
    await Promise.resolve();
    expect(late).toBe(true);
  });

  it("a fire with nobody waiting wakes nobody later: a wait after it waits for the next fire", async () => {
    const wake = wakeUp();
    wake.fire();
    let woken = false;
    void wake.wait().then(() => (woken = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(woken).toBe(false);
    wake.fire();
    await Promise.resolve();
    expect(woken).toBe(true);
  });
});
