import { describe, expect, it } from "vitest";
import { type CallHost, PendingCalls } from "../../../src/rpc/pending_calls.ts";
import { ClosedError, JsonRpcError, TransportError } from "../../../src/wire/errors.ts";
import { JsonText } from "../../../src/wire/json_text.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";

function setup(sendOutcome: () => Promise<void> = () => Promise.resolve()) {
  const sent: Array<Record<string, unknown> | JsonText> = [];
  const cancelled: Array<{ id: unknown; reason: unknown }> = [];
  const reports: Error[] = [];
  let sendFailures = 0;
  const host: CallHost = {
    send: (message) => {
      sent.push(message);
      return sendOutcome();
    },
    cancelled: (id, reason) => cancelled.push({ id, reason }),
    sendFailed: () => void sendFailures++,
    report: (error) => reports.push(error),
  };
  return { calls: new PendingCalls(host), sent, cancelled, reports, sendFailures: () => sendFailures };
}

describe("PendingCalls", () => {
  it("keeps a number id and a string id of the same digits apart", async () => {
    const { calls } = setup();
    const asNumber = calls.call("a", undefined, { id: 7 });
    const asString = calls.call("b", undefined, { id: "7" });
    calls.settle({ kind: "result", id: "7", result: "string" });
    calls.settle({ kind: "result", id: 7, result: "number" });
    expect(await Promise.all([asNumber, asString])).toEqual(["number", "string"]);
  });

  it("sends params given as JSON text inside the request's own text, equal to the object form", async () => {
    const { calls, sent } = setup();
    void calls.call("tools/call", new JsonText('{"name":"echo","_meta":{"k":"v"}}'));
    void calls.call("tools/call", { name: "echo", _meta: { k: "v" } }, { id: 'a"b' });
    void calls.call("x", new JsonText("{}"), { id: 'a"c' });
    expect(sent[0]).toBeInstanceOf(JsonText);
    expect(JSON.parse((sent[0] as JsonText).text)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", _meta: { k: "v" } },
    });
    expect((sent[0] as JsonText).text).toBe(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", _meta: { k: "v" } },
      }),
    );
    expect(JSON.parse((sent[2] as JsonText).text)).toEqual({
      jsonrpc: "2.0",
      id: 'a"c',
      method: "x",
      params: {},
    });
  });

  it("numbers requests from 1, sends them, and resolves each with its own reply", async () => {
    const { calls, sent } = setup();
    const a = calls.call("a", { x: 1 });
    const b = calls.call("b");
    expect(sent).toEqual([{ jsonrpc: "2.0", id: 1, method: "a", params: { x: 1 } }, {
      jsonrpc: "2.0",
      id: 2,
      method: "b",
    }]);
    expect(calls.size).toBe(2);
    calls.settle({ kind: "result", id: 2, result: "B" });
    calls.settle({ kind: "error", id: 1, error: new JsonRpcError(-32000, "A failed") });
    expect(await b).toBe("B");
    await expect(a).rejects.toThrow("A failed");
    expect(calls.size).toBe(0);
  });

  it("uses a caller's id and refuses one already awaiting a reply", async () => {
    const { calls } = setup();
    void calls.call("a", undefined, { id: "x" });
    await expect(calls.call("b", undefined, { id: "x" })).rejects.toBeInstanceOf(TransportError);
    expect(calls.size).toBe(1);
  });

  it("reports a reply to an unknown id and an error reply without id, and resolves nothing", () => {
    const { calls, reports } = setup();
    calls.settle({ kind: "result", id: 99, result: 1 });
    calls.settle({ kind: "error", id: undefined, error: new JsonRpcError(-32600, "bad") });
    expect(reports.map((r) => r.message)).toEqual([
      expect.stringContaining("unknown request id 99"),
      expect.stringContaining("without an id"),
    ]);
  });

  it("on abort rejects with the signal's reason, tells the peer once the request was queued, and drops the late reply quietly", async () => {
    const { calls, cancelled, reports } = setup();
    const controller = new AbortController();
    const call = calls.call("slow", undefined, { signal: controller.signal });
    controller.abort("enough");
    await expect(call).rejects.toBe("enough");
    await flushMicrotasks();
    expect(cancelled).toEqual([{ id: 1, reason: "enough" }]);
    calls.settle({ kind: "result", id: 1, result: "late" });
    expect(reports).toEqual([]);
    calls.settle({ kind: "result", id: 1, result: "again" });
    expect(reports).toHaveLength(1);
  });

  it("does not tell the peer of a cancel when the request never left (its send was refused)", async () => {
    let refuse!: (e: unknown) => void;
    const { calls, cancelled } = setup(() => new Promise((_, reject) => (refuse = reject)));
    const controller = new AbortController();
    const call = calls.call("m", undefined, { signal: controller.signal });
    controller.abort("stop");
    refuse(controller.signal.reason);
    await expect(call).rejects.toBe("stop");
    await flushMicrotasks();
    expect(cancelled).toEqual([]);
  });

  it("rejects at once for a signal already aborted, sending nothing", async () => {
    const { calls, sent } = setup();
    await expect(calls.call("m", undefined, { signal: AbortSignal.abort("no") })).rejects.toBe("no");
    expect(sent).toEqual([]);
  });

  it("rejects a call whose send fails with the send's error and asks the connection to check output", async () => {
    const failure = new ClosedError("output closed");
    const { calls, sendFailures } = setup(() => Promise.reject(failure));
    await expect(calls.call("m")).rejects.toBe(failure);
    expect(sendFailures()).toBe(1);
    expect(calls.size).toBe(0);
  });

  it("rejects every pending call at once with the given error", async () => {
    const { calls } = setup();
    const a = calls.call("a");
    const b = calls.call("b");
    const error = new ClosedError("gone");
    calls.rejectAll(error);
    await expect(a).rejects.toBe(error);
    await expect(b).rejects.toBe(error);
    expect(calls.size).toBe(0);
  });
});
