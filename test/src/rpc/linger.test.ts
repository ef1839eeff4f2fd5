import { describe, expect, it } from "vitest";
import { type ConnectionCloseInfo, ConnectionLifecycle } from "../../../src/rpc/connection_state.ts";
import { HandlerSlots, type SlotHost } from "../../../src/rpc/handler_slots.ts";
import { InputBacklog } from "../../../src/rpc/input_backlog.ts";
import { Linger, type LingerHost } from "../../../src/rpc/linger.ts";
import { ClosedError, TimeoutError } from "../../../src/wire/errors.ts";
import type { IncomingRequest } from "../../../src/wire/json_rpc_message.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";
import { completeBlock, recordedChannel } from "../../helpers/channel.ts";

/** A linger over real parts: a recorded channel, real slots and backlog, on a fake clock. */
function setup(options: { autoComplete?: boolean } = {}) {
  const time = new FakeTimeProvider();
  const { channel, output } = recordedChannel({ timeProvider: time, writeBlockBytes: 16 }, {
    autoComplete: options.autoComplete ?? true,
  });
  const lifecycle = new ConnectionLifecycle();
  lifecycle.move("open");
  const backlog = new InputBacklog(1_000);
  const finished: ConnectionCloseInfo[] = [];
  const cutOff: Error[] = [];
  const host: LingerHost & SlotHost = {
    channel,
    lifecycle,
    backlog,
    get slots() {
      return slots;
    },
    get outputClosed() {
      return channel.outputClosed;
    },
    send: (message, signal) => channel.send(message, signal),
    sendOwnError: (reply) => channel.send(reply).catch(() => {}),
    sendFailed: () => {},
    report: () => {},
    dropFromBacklog: (match) => backlog.drop(match),
    release: (bytes) => backlog.release(bytes),
    settle: () => {},
    endError: (fallback) => fallback ?? new ClosedError("ended"),
    cutOff: (error, info) => {
      cutOff.push(error);
      lifecycle.move("closed");
      lifecycle.claim(info);
      void channel.abort(error).then(() => lifecycle.finish(info));
    },
    finish: (info) => {
      finished.push(info);
      lifecycle.finish(info);
    },
  };
  const slots = new HandlerSlots(8, host, {});
  const linger = new Linger(host, { time, shutdownTimeout: 5_000, exactProgress: false });
  return { time, channel, output, lifecycle, backlog, slots, linger, finished, cutOff };
}

const request = (id: number): IncomingRequest => ({ id, method: "m" }) as IncomingRequest;

/** Registers a handler that never ends on its own and records its signal. */
function hangingHandler(slots: HandlerSlots): AbortSignal[] {
  const signals: AbortSignal[] = [];
  slots.requestHandlers.set("m", (_p, ctx) => {
    signals.push(ctx.signal);
    return new Promise(() => {});
  });
  return signals;
}

describe("Linger after EOF", () => {
  it("gives a running handler endOfStreamTimeout of grace, aborts it then and not before, and ends within grace + shutdown", async () => {
    const { time, lifecycle, slots, linger, finished } = setup();
    const signals = hangingHandler(slots);
    await slots.dispatch(request(1), "n:1");
    lifecycle.move("eof");
    void linger.run("eof", 5_000);
    await time.advance(4_999);
    expect(signals[0]!.aborted).toBe(false);
    expect(lifecycle.state).toBe("eof");
    await time.advance(1);
    expect(signals[0]!.reason).toBeInstanceOf(TimeoutError);
    expect(lifecycle.state).toBe("stopping");
    await time.advance(4_999);
    expect(finished).toEqual([]);
    await time.advance(1);
    expect(finished).toHaveLength(1);
    expect(finished[0]!.reason).toBe("eof");
    expect(lifecycle.state).toBe("closed");
  });

  it("ends as soon as the last handler finishes within the grace, aborting nothing", async () => {
    const { time, lifecycle, slots, linger, finished, output } = setup();
    let finish!: (v: unknown) => void;
    let signal!: AbortSignal;
    slots.requestHandlers.set("m", (_p, ctx) => ((signal = ctx.signal), new Promise((r) => (finish = r))));
    await slots.dispatch(request(1), "n:1");
    lifecycle.move("eof");
    void linger.run("eof", 5_000);
    await time.advance(1_000);
    finish("ok");
    await time.advance(0);
    expect(finished).toEqual([{ reason: "eof", drain: "drained", error: undefined }]);
    expect(signal.aborted).toBe(false);
    expect(output.text()).toContain('"result":"ok"');
  });

  it("answers requests still waiting in the backlog when the grace runs out", async () => {
    const { time, lifecycle, backlog, slots, linger, output } = setup();
    hangingHandler(slots);
    await slots.dispatch(request(1), "n:1");
    backlog.push({ bytes: 64, request: request(2), key: "n:2" });
    lifecycle.move("eof");
    void linger.run("eof", 100);
    await time.advance(100);
    expect(backlog.length).toBe(0);
    expect(output.text()).toMatch(/"id":2,"error":\{"code":-32603,"message":"Request not started/);
  });
});

describe("Linger on close", () => {
  it("aborts running handlers at once with ClosedError and drops the backlog unanswered", async () => {
    const { time, lifecycle, backlog, slots, linger, finished, output } = setup();
    const signals = hangingHandler(slots);
    await slots.dispatch(request(1), "n:1");
    backlog.push({ bytes: 64, request: request(2), key: "n:2" });
    lifecycle.move("stopping");
    void linger.run("closed", 0);
    await time.advance(0);
    expect(signals[0]!.reason).toBeInstanceOf(ClosedError);
    expect(backlog.length).toBe(0);
    await time.advance(5_000);
    expect(finished.map((f) => f.reason)).toEqual(["closed"]);
    expect(output.text()).toBe("");
  });
});

describe("Linger no-progress deadline", () => {
  it("cuts off output that completes no block for shutdownTimeout while handlers still run", async () => {
    const { time, channel, lifecycle, slots, linger, cutOff } = setup({ autoComplete: false });
    hangingHandler(slots);
    await slots.dispatch(request(1), "n:1");
    await channel.send({ pad: "x".repeat(64) });
    lifecycle.move("eof");
    void linger.run("eof", 60_000);
    await time.advance(4_999);
    expect(cutOff).toEqual([]);
    await time.advance(1);
    expect(cutOff).toHaveLength(1);
    expect(cutOff[0]).toBeInstanceOf(TimeoutError);
    expect((await lifecycle.closed).drain).toBe("idle_timeout");
  });

  it("restarts the deadline at every completed block, so a slow reader is not cut off early", async () => {
    const { time, channel, output, lifecycle, slots, linger, cutOff } = setup({ autoComplete: false });
    hangingHandler(slots);
    await slots.dispatch(request(1), "n:1");
    await channel.send({ pad: "x".repeat(64) });
    lifecycle.move("eof");
    void linger.run("eof", 60_000);
    await time.advance(4_000);
    expect(await completeBlock(output)).toBe(true);
    await time.advance(4_000);
    expect(cutOff).toEqual([]);
    await time.advance(5_000);
    expect(cutOff).toHaveLength(1);
  });

  it("does not fire while nothing is pending in output", async () => {
    const { time, lifecycle, slots, linger, cutOff } = setup();
    hangingHandler(slots);
    await slots.dispatch(request(1), "n:1");
    lifecycle.move("eof");
    void linger.run("eof", 60_000);
    await time.advance(30_000);
    expect(cutOff).toEqual([]);
  });
});
