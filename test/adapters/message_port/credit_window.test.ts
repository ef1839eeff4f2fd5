/**
 * The credit bookkeeping under `fromMessagePort` (`adapters/message_port/_credit_window.ts`), without any port: the
 * window bound, the quarter-window hand-back, and a writer that waits for credit.
 */
import { describe, expect, it } from "vitest";
import { ReceiveCredit, SendCredit } from "../../../adapters/message_port/_credit_window.ts";
import { ClosedError } from "../../../src/wire/errors.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";

describe("SendCredit", () => {
  it("takes the first grant as the peer's window and never lets bytes in transit exceed it", () => {
    const credit = new SendCredit();
    expect(credit.bytesInTransit).toBe(0);
    credit.grant(100);
    expect(credit.take(60)).toBe(60);
    expect(credit.take(60)).toBe(40); // only what is left
    expect(credit.take(1)).toBe(0);
    expect(credit.bytesInTransit).toBe(100);
    credit.grant(25); // the peer's consumer pulled 25
    expect(credit.bytesInTransit).toBe(75);
    expect(credit.take(1000)).toBe(25);
    expect(credit.maxBytesInTransit).toBe(100);
  });

  it("a writer waits while it has no credit and resumes on the next grant, not before", async () => {
    const credit = new SendCredit();
    let resumed = false;
    const waiting = credit.wait().then(() => (resumed = true));
    await flushMicrotasks();
    expect(resumed).toBe(false);
    credit.grant(1);
    await waiting;
    expect(resumed).toBe(true);
    await credit.wait(); // credit is there: no wait
  });

  it("fail() rejects waiting and later writers with the first failure; grants after it are ignored", async () => {
    const credit = new SendCredit();
    const waiting = credit.wait();
    const first = new ClosedError("The peer stopped reading");
    credit.fail(first);
    credit.fail(new ClosedError("second"));
    await expect(waiting).rejects.toBe(first);
    credit.grant(10);
    await expect(credit.wait()).rejects.toBe(first);
    expect(credit.available).toBe(0);
  });

  it("an aborted signal rejects the wait with its reason", async () => {
    const credit = new SendCredit();
    const controller = new AbortController();
    const waiting = credit.wait(controller.signal);
    controller.abort(new Error("writer aborted"));
    await expect(waiting).rejects.toThrow("writer aborted");
  });

  it("refuses a grant that is not a positive integer", () => {
    const credit = new SendCredit();
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => credit.grant(bad)).toThrow(/positive integer/);
    }
  });
});

describe("ReceiveCredit", () => {
  it("grants the window once and hands credit back in quarter-window batches", () => {
    const window = new ReceiveCredit(1000);
    expect(window.batchBytes).toBe(250);
    expect(window.initialGrant()).toBe(1000);
    expect(window.accept(600)).toBe(true);
    expect(window.outstanding).toBe(400);
    expect(window.consumed(200)).toBe(0); // below a batch: nothing yet
    expect(window.consumed(100)).toBe(300); // the batch is due: everything pulled so far
    expect(window.outstanding).toBe(700);
  });

  it("refuses data beyond the outstanding credit without recording it", () => {
    const window = new ReceiveCredit(10);
    window.initialGrant();
    expect(window.accept(11)).toBe(false);
    expect(window.outstanding).toBe(10);
    expect(window.accept(10)).toBe(true);
    expect(window.accept(1)).toBe(false);
  });

  it("never deadlocks: when the reader's buffer is empty the writer holds at least three quarters of a window", () => {
    for (const size of [1, 2, 3, 4, 5, 7, 1000, 262_144]) {
      const window = new ReceiveCredit(size);
      const send = new SendCredit();
      send.grant(window.initialGrant());
      // The writer sends as much as it can, the reader pulls it all, many rounds of odd sizes.
      for (let round = 0; round < 50; round++) {
        const n = send.take(1 + ((round * 7919) % (size + 3)));
        expect(window.accept(n)).toBe(true);
        const back = window.consumed(n);
        if (back > 0) send.grant(back);
        expect(send.available).toBeGreaterThan(0);
        expect(send.available).toBeGreaterThanOrEqual(Math.ceil(size * 0.75) - (size < 4 ? size : 0));
        expect(send.bytesInTransit).toBeLessThanOrEqual(size);
      }
    }
  });

  it("validates the window", () => {
    expect(() => new ReceiveCredit(0)).toThrow(/receiveWindowBytes/);
    expect(() => new ReceiveCredit(2.5)).toThrow(/receiveWindowBytes/);
    expect(() => new ReceiveCredit(Number.POSITIVE_INFINITY)).toThrow(/receiveWindowBytes/);
  });
});
