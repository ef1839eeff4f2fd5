import { describe, expect, it } from "vitest";
import { RequestCancel } from "../../../../src/http/server/request_cancel.ts";
import { CancelledError } from "../../../../src/wire/errors.ts";

/** A request whose signal counts how often it was read. */
function request(): { controller: AbortController; reads: number; readonly signal: AbortSignal } {
  const controller = new AbortController();
  return {
    controller,
    reads: 0,
    get signal() {
      this.reads++;
      return controller.signal;
    },
  };
}

describe("RequestCancel", () => {
  it("reads nothing of the request until its own signal is read", () => {
    const r = request();
    const cancel = new RequestCancel(r, "Gone");
    expect(r.reads).toBe(0);
    expect(cancel.signal.aborted).toBe(false);
    expect(r.reads).toBe(1);
  });

  it("aborts when the request's signal aborts after the signal was read, naming the disconnect", () => {
    const r = request();
    const cancel = new RequestCancel(r, "The client left");
    const signal = cancel.signal;
    r.controller.abort(new Error("socket closed"));
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(CancelledError);
    expect((signal.reason as Error).message).toBe("The client left");
    expect((signal.reason as Error).cause).toEqual(new Error("socket closed"));
  });

  it("is aborted when first read after the request's signal aborted", () => {
    const r = request();
    const cancel = new RequestCancel(r, "The client left");
    r.controller.abort(new Error("socket closed"));
    expect(cancel.signal.aborted).toBe(true);
    expect((cancel.signal.reason as Error).message).toBe("The client left");
  });

  it("keeps the reason of an abort made before the signal was read", () => {
    const r = request();
    const cancel = new RequestCancel(r, "The client left");
    const reason = new CancelledError("Stopped reading");
    cancel.abort(reason);
    cancel.abort(new CancelledError("Second"));
    expect(cancel.signal.reason).toBe(reason);
  });

  it("names the disconnect when the request's signal aborted before an unobserved abort (it came first)", () => {
    const r = request();
    const cancel = new RequestCancel(r, "The client left");
    r.controller.abort(new Error("socket closed"));
    cancel.abort(new CancelledError("Stopped reading"));
    expect((cancel.signal.reason as Error).message).toBe("The client left");
  });

  it("whenAborted keeps callbacks without making a signal while only the stream is watched, and calls each once", () => {
    const r = request();
    const cancel = new RequestCancel(r, "Gone");
    cancel.watchStreamOnly();
    const calls: string[] = [];
    cancel.whenAborted(() => calls.push("first"));
    cancel.whenAborted(() => calls.push("second"));
    expect(r.reads).toBe(0);
    expect(calls).toEqual([]);
    cancel.abort(new Error("drained"));
    cancel.abort(new Error("again"));
    expect(calls).toEqual(["first", "second"]);
    cancel.whenAborted(() => calls.push("late")); // already aborted: at once
    expect(calls).toEqual(["first", "second", "late"]);
    expect(cancel.signal.reason).toEqual(new Error("drained"));
  });

  it("whenAborted still sees the request's own disconnect while the request's signal is watched", () => {
    const r = request();
    const cancel = new RequestCancel(r, "The client left");
    let called = 0;
    cancel.whenAborted(() => called++);
    expect(called).toBe(0);
    r.controller.abort(new Error("socket closed"));
    expect(called).toBe(1);
    expect(cancel.signal.reason).toBeInstanceOf(CancelledError);
  });
});
