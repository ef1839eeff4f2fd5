import { describe, expect, it } from "vitest";
import { WHEN_CANCELLED, whenCancelled } from "../../../src/server/when_cancelled.ts";

describe("whenCancelled", () => {
  it("uses the context's hook when it has one, and never reads its signal", () => {
    let hooked: (() => void) | undefined;
    const context = {
      get signal(): AbortSignal {
        throw new Error("the signal was read");
      },
      [WHEN_CANCELLED](callback: () => void) {
        hooked = callback;
      },
    };
    let called = 0;
    whenCancelled(context, () => called++);
    expect(called).toBe(0);
    hooked!();
    expect(called).toBe(1);
  });

  it("listens to the signal of a context without a hook, once, and calls at once when it is aborted already", () => {
    const controller = new AbortController();
    let called = 0;
    whenCancelled({ signal: controller.signal }, () => called++);
    expect(called).toBe(0);
    controller.abort();
    controller.abort();
    expect(called).toBe(1);
    whenCancelled({ signal: controller.signal }, () => called++);
    expect(called).toBe(2);
  });
});
