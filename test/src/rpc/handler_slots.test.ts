import { describe, expect, it } from "vitest";
import { HandlerSlots, type SlotFallbacks, type SlotHost } from "../../../src/rpc/handler_slots.ts";
import { ClosedError, JsonRpcError } from "../../../src/wire/errors.ts";
import type { IncomingRequest } from "../../../src/wire/json_rpc_message.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";

function setup(
  max = 2,
  fallbacks: SlotFallbacks = {},
  options: { outputClosed?: boolean; send?: (m: Record<string, unknown>) => Promise<void> } = {},
) {
  const sent: Record<string, unknown>[] = [];
  const reports: Error[] = [];
  const dropped: string[] = [];
  const host: SlotHost = {
    send: (message) => {
      sent.push(message as Record<string, unknown>);
      return options.send ? options.send(message as Record<string, unknown>) : Promise.resolve();
    },
    sendOwnError: async (reply) => void sent.push(reply as Record<string, unknown>),
    get outputClosed() {
      return options.outputClosed ?? false;
    },
    sendFailed: () => {},
    dropFromBacklog: (match) => dropped.push(String(match({ bytes: 0, key: "n:5" }))),
    release: () => {},
    settle: () => {},
    report: (error) => reports.push(error),
  };
  return { slots: new HandlerSlots(max, host, fallbacks), sent, reports, dropped };
}

const request = (id: number, method = "m", params?: unknown): IncomingRequest =>
  ({ id, method, params }) as IncomingRequest;

function gate() {
  let open!: (v?: unknown) => void;
  const promise = new Promise((resolve) => (open = resolve));
  return { promise, open };
}

describe("HandlerSlots", () => {
  it("counts running handlers up to max (full at max, not before) and frees a slot when one ends", async () => {
    const { slots } = setup(2);
    const g = gate();
    slots.requestHandlers.set("m", () => g.promise);
    void slots.dispatch(request(1), "n:1");
    expect([slots.active, slots.full]).toEqual([1, false]);
    void slots.dispatch(request(2), "n:2");
    expect([slots.active, slots.full]).toEqual([2, true]);
    const freed = slots.freed.wait();
    g.open("done");
    await freed;
    await flushMicrotasks();
    expect([slots.active, slots.full]).toEqual([0, false]);
  });

  it("replies with the handler's result ({} for undefined), its JsonRpcError, or -32601 without a handler", async () => {
    const { slots, sent, reports } = setup(4);
    slots.requestHandlers.set("ok", (p) => p);
    slots.requestHandlers.set("none", () => undefined);
    slots.requestHandlers.set("bad", () => {
      throw new JsonRpcError(-32602, "Bad params");
    });
    for (const [id, method] of [[1, "ok"], [2, "none"], [3, "bad"], [4, "missing"]] as const) {
      await slots.dispatch(request(id, method, { a: id }), `n:${id}`);
    }
    await flushMicrotasks();
    expect(sent).toEqual([
      { jsonrpc: "2.0", id: 1, result: { a: 1 } },
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", id: 3, error: { code: -32602, message: "Bad params" } },
      { jsonrpc: "2.0", id: 4, error: { code: -32601, message: 'Method not found: "missing"' } },
    ]);
    expect(reports).toEqual([]);
  });

  it("uses the onRequest fallback, reports a handler's plain error and answers it -32603", async () => {
    const { slots, sent, reports } = setup(2, { onRequest: () => Promise.reject(new Error("boom")) });
    await slots.dispatch(request(1), "n:1");
    await flushMicrotasks();
    expect(sent).toEqual([{ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "boom" } }]);
    expect(reports.map((r) => r.message)).toEqual(["boom"]);
  });

  it("answers a second request with an id already in flight -32600 and leaves the first running", async () => {
    const { slots, sent, reports } = setup(4);
    slots.requestHandlers.set("m", () => new Promise(() => {}));
    await slots.dispatch(request(1), "n:1");
    await slots.dispatch(request(1), "n:1");
    expect(sent).toEqual([{
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32600, message: "Invalid request: id 1 is already in flight" },
    }]);
    expect(reports).toHaveLength(1);
    expect(slots.active).toBe(1);
  });

  it("awaits a barrier until its reply is queued, and does not await an ordinary request", async () => {
    const { slots, sent } = setup(4, { isBarrier: (r) => r.method === "initialize" });
    const g = gate();
    slots.requestHandlers.set("initialize", () => g.promise);
    slots.requestHandlers.set("m", () => new Promise(() => {}));
    expect(slots.dispatch(request(1, "m"), "n:1")).toBeUndefined();
    let barrierDone = false;
    void slots.dispatch(request(2, "initialize"), "n:2")!.then(() => (barrierDone = true));
    await flushMicrotasks();
    expect(barrierDone).toBe(false);
    g.open({ v: 1 });
    await flushMicrotasks();
    expect(barrierDone).toBe(true);
    expect(sent).toEqual([{ jsonrpc: "2.0", id: 2, result: { v: 1 } }]);
  });

  it("on the peer's cancel aborts the handler's signal, sends no reply, and drops the request from the backlog", async () => {
    const { slots, sent, dropped } = setup(4);
    let signal!: AbortSignal;
    slots.requestHandlers.set("m", (_p, ctx) => {
      signal = ctx.signal;
      return new Promise((_, reject) =>
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))
      );
    });
    void slots.dispatch(request(5), "n:5");
    slots.notification("notifications/cancelled", { requestId: 5 });
    await flushMicrotasks();
    expect(signal.aborted).toBe(true);
    expect(sent).toEqual([]);
    expect(dropped).toEqual(["true"]);
  });

  it("aborts every running handler's signal with the given reason", async () => {
    const { slots } = setup(4);
    const signals: AbortSignal[] = [];
    slots.requestHandlers.set("m", (_p, ctx) => (signals.push(ctx.signal), new Promise(() => {})));
    await slots.dispatch(request(1), "n:1");
    await slots.dispatch(request(2), "n:2");
    const reason = new ClosedError("closing");
    slots.abortAll(reason);
    expect(signals.map((s) => s.reason)).toEqual([reason, reason]);
  });

  it("answers a result that cannot be serialized with -32603 and reports it", async () => {
    let first = true;
    const { slots, sent, reports } = setup(2, {}, {
      send: () => (first
        ? ((first = false), Promise.reject(new TypeError("Do not know how to serialize a BigInt")))
        : Promise.resolve()),
    });
    slots.requestHandlers.set("m", () => 1n);
    await slots.dispatch(request(1), "n:1");
    await flushMicrotasks();
    expect(sent[1]).toMatchObject({ id: 1, error: { code: -32603 } });
    expect(reports).toHaveLength(1);
  });

  it("runs notification handlers (or the fallback) and reports their failures, sync or async", async () => {
    const seen: unknown[] = [];
    const { slots, reports } = setup(2, { onNotification: (method) => seen.push(method) });
    slots.notificationHandlers.set("a", () => {
      throw new Error("sync");
    });
    slots.notificationHandlers.set("b", () => Promise.reject(new Error("async")));
    slots.notification("a", undefined);
    slots.notification("b", undefined);
    slots.notification("c", undefined);
    await flushMicrotasks();
    expect(seen).toEqual(["c"]);
    expect(reports.map((r) => r.message)).toEqual(["sync", "async"]);
  });

  it("sends a request's related notification while it runs and nothing once output is closed", async () => {
    const open = setup(2);
    open.slots.requestHandlers.set("m", async (_p, ctx) => {
      await ctx.notify("notifications/progress", { n: 1 });
      return "ok";
    });
    await open.slots.dispatch(request(1), "n:1");
    await flushMicrotasks();
    expect(open.sent).toEqual([{ jsonrpc: "2.0", method: "notifications/progress", params: { n: 1 } }, {
      jsonrpc: "2.0",
      id: 1,
      result: "ok",
    }]);
    const closed = setup(2, {}, { outputClosed: true });
    closed.slots.requestHandlers.set("m", async (_p, ctx) => ctx.notify("x"));
    await closed.slots.dispatch(request(1), "n:1");
    await flushMicrotasks();
    expect(closed.sent).toEqual([]);
  });
});
