import { describe, expect, it } from "vitest";
import { ForwardingInputContext } from "../../../../src/server/input/forwarding_input_context.ts";
import type { InputContext } from "../../../../src/server/input/input_rounds.ts";
import type { ElicitResult } from "../../../../src/wire/protocol/v2026_07_28.ts";

/** An input context that records which member was used and answers with its own name. */
function recordingInput(name: string, calls: string[]): InputContext {
  const signal = new AbortController().signal;
  return {
    elicit: () => (calls.push(`${name}.elicit`), Promise.resolve({ action: "accept" } as ElicitResult)),
    sample: () => (calls.push(`${name}.sample`), Promise.reject(new Error("no sampling"))),
    listRoots: () => (calls.push(`${name}.listRoots`), Promise.resolve({ roots: [] })),
    canElicit: (mode) => (calls.push(`${name}.canElicit(${mode})`), true),
    canSample: () => (calls.push(`${name}.canSample`), false),
    canListRoots: () => (calls.push(`${name}.canListRoots`), true),
    round: 3,
    state: { from: name },
    once: <T>(
      key: string,
      compute: () => T | Promise<T>,
    ) => (calls.push(`${name}.once(${key})`), Promise.resolve(compute())),
    roundSignal: signal,
  };
}

class Plain extends ForwardingInputContext {
  constructor(input: InputContext, transparent: boolean) {
    super(input, transparent);
  }
}

class Overriding extends ForwardingInputContext {
  constructor(input: InputContext, readonly calls: string[]) {
    super(input, false);
  }
  override elicit(...args: Parameters<InputContext["elicit"]>): Promise<ElicitResult> {
    this.calls.push("override.elicit");
    return super.elicit(...args);
  }
}

describe("ForwardingInputContext", () => {
  it("forwards every InputContext member, state both ways", async () => {
    const calls: string[] = [];
    const input = recordingInput("input", calls);
    const ctx = new Plain(input, true);
    expect(await ctx.elicit({ message: "?", requestedSchema: { type: "object", properties: {} } }))
      .toEqual({ action: "accept" });
    await expect(ctx.sample({ messages: [], maxTokens: 1 })).rejects.toThrow("no sampling");
    expect(await ctx.listRoots()).toEqual({ roots: [] });
    expect([ctx.canElicit("url"), ctx.canSample(), ctx.canListRoots()]).toEqual([true, false, true]);
    expect(await ctx.once("id", () => 7)).toBe(7);
    expect(ctx.round).toBe(3);
    expect(ctx.roundSignal).toBe(input.roundSignal);
    expect(ctx.state).toEqual({ from: "input" });
    ctx.state = { set: true };
    expect(input.state).toEqual({ set: true });
    expect(calls).toEqual([
      "input.elicit",
      "input.sample",
      "input.listRoots",
      "input.canElicit(url)",
      "input.canSample",
      "input.canListRoots",
      "input.once(id)",
    ]);
  });

  it("built on a transparent context, forwards to that context's input in one step", () => {
    const calls: string[] = [];
    const input = recordingInput("input", calls);
    const inner = new Plain(input, true);
    // Were the call routed through `inner`, replacing its member would show.
    inner.canSample = () => (calls.push("inner.canSample"), true);
    const outer = new Plain(inner, false);
    expect(outer.canSample()).toBe(false);
    expect(calls).toEqual(["input.canSample"]);
  });

  it("built on a context that is not transparent, keeps going through it (its overrides hold)", async () => {
    const calls: string[] = [];
    const inner = new Overriding(recordingInput("input", calls), calls);
    const outer = new Plain(inner, false);
    await outer.elicit({ message: "?", requestedSchema: { type: "object", properties: {} } });
    expect(calls).toEqual(["override.elicit", "input.elicit"]);
  });
});
