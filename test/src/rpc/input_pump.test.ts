import { describe, expect, it } from "vitest";
import { ConnectionLifecycle } from "../../../src/rpc/connection_state.ts";
import { HandlerSlots, type SlotHost } from "../../../src/rpc/handler_slots.ts";
import { ENTRY_OVERHEAD_BYTES, InputBacklog } from "../../../src/rpc/input_backlog.ts";
import { dispatchInput, type PumpHost, readInput } from "../../../src/rpc/input_pump.ts";
import type { Reply } from "../../../src/rpc/pending_calls.ts";
import { NewlineChannel } from "../../../src/stream/newline_channel.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";
import { RecordingWritable } from "../../../testing/recording_writable.ts";
import { manualReadable, utf8 } from "../../helpers/streams.ts";

function setup(
  options: { maxBacklog?: number; maxConcurrent?: number; readable?: ReadableStream<Uint8Array> } = {},
) {
  const input = manualReadable();
  const output = new RecordingWritable();
  const channel = new NewlineChannel({
    readable: options.readable ?? input.readable,
    writable: output.writable,
  });
  const lifecycle = new ConnectionLifecycle();
  lifecycle.move("open");
  const backlog = new InputBacklog(options.maxBacklog ?? 1_000_000);
  const settled: Reply[] = [];
  const notes: string[] = [];
  const faults: Error[] = [];
  let ended = 0;
  const host: PumpHost & SlotHost = {
    channel,
    lifecycle,
    backlog,
    get slots() {
      return slots;
    },
    answerInvalid: true,
    get outputClosed() {
      return channel.outputClosed;
    },
    report: () => {},
    settle: (reply) => settled.push(reply),
    notification: (method, params, bytes) => {
      notes.push(method);
      slots.notification(method, params, bytes);
    },
    release: (bytes) => backlog.release(bytes),
    oversizeReply: () => {},
    send: (message, signal) => channel.send(message, signal),
    sendOwnError: (reply) => channel.send(reply).catch(() => {}),
    sendFailed: () => {},
    dropFromBacklog: (match) => backlog.drop(match),
    fault: (error) => {
      faults.push(error);
      lifecycle.move("closed");
    },
    endOfInput: () => {
      ended++;
      lifecycle.move("eof");
    },
  };
  const slots = new HandlerSlots(options.maxConcurrent ?? 8, host, {});
  return { input, output, host, lifecycle, backlog, slots, settled, notes, faults, ended: () => ended };
}

const line = (value: unknown) => utf8(JSON.stringify(value) + "\n");

describe("readInput", () => {
  it("stops reading once the backlog is full and reads on when it has room again", async () => {
    const t = setup({ maxBacklog: 2 * (ENTRY_OVERHEAD_BYTES + 30) });
    void readInput(t.host);
    for (let id = 1; id <= 4; id++) t.input.push(line({ jsonrpc: "2.0", id, method: "m" }));
    await flushMicrotasks();
    expect(t.backlog.length).toBe(2);
    t.backlog.shift();
    await flushMicrotasks();
    expect(t.backlog.length).toBe(2);
    expect(t.backlog.head?.key).toBe("n:2");
  });

  it("settles replies and applies cancellations as they are read, behind requests still waiting", async () => {
    const t = setup({ maxBacklog: 1_000_000 });
    void readInput(t.host);
    t.input.push(line({ jsonrpc: "2.0", id: 1, method: "m" }));
    t.input.push(line({ jsonrpc: "2.0", id: 9, result: "r" }));
    t.input.push(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }));
    await flushMicrotasks();
    expect(t.settled).toEqual([{ kind: "result", id: 9, result: "r" }]);
    expect(t.notes).toEqual(["notifications/cancelled"]);
    expect(t.backlog.length).toBe(0);
  });

  it("reports EOF once, and a read error as a fault instead", async () => {
    const eof = setup();
    void readInput(eof.host);
    eof.input.end();
    await flushMicrotasks();
    expect([eof.ended(), eof.faults.length]).toEqual([1, 0]);
    const broken = setup({
      readable: new ReadableStream({ start: (c) => c.error(new Error("pipe broke")) }),
    });
    await readInput(broken.host);
    expect([broken.ended(), broken.faults.map((f) => f.message)]).toEqual([0, ["pipe broke"]]);
  });
});

describe("dispatchInput", () => {
  it("dispatches in order, holding a request while every slot is taken, and goes on when one frees", async () => {
    const t = setup({ maxConcurrent: 1 });
    const finish: Array<(v: unknown) => void> = [];
    t.slots.requestHandlers.set("m", () => new Promise((r) => finish.push(r)));
    void dispatchInput(t.host);
    t.backlog.push({ bytes: 64, request: { id: 1, method: "m" } as never, key: "n:1" });
    t.backlog.push({ bytes: 64, request: { id: 2, method: "m" } as never, key: "n:2" });
    await flushMicrotasks();
    expect([t.slots.active, t.backlog.length]).toEqual([1, 1]);
    finish[0]!("one");
    await flushMicrotasks();
    expect([t.slots.active, t.backlog.length, finish.length]).toEqual([1, 0, 2]);
    expect(t.output.text()).toContain('"id":1,"result":"one"');
  });

  it("returns once input ended and the backlog is empty", async () => {
    const t = setup();
    const done = dispatchInput(t.host);
    t.lifecycle.move("eof");
    t.backlog.changed.fire();
    await expect(done).resolves.toBeUndefined();
  });
});
