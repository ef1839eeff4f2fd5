import { describe, expect, it } from "vitest";
import { ChangeStream } from "../../../../src/client/features/change_stream.ts";
import { settle, track } from "./helpers.ts";

describe("ChangeStream", () => {
  it("two concurrent next() calls both get an event", async () => {
    const stream = new ChangeStream(() => {});
    const a = track(stream.next());
    const b = track(stream.next());
    stream.push({ type: "toolsListChanged" });
    stream.push({ type: "promptsListChanged" });
    await settle(3);
    expect([a.value?.value, b.value?.value]).toEqual([{ type: "toolsListChanged" }, {
      type: "promptsListChanged",
    }]);
  });

  it("coalesces an event equal to one still queued, and queues it again once read", async () => {
    const stream = new ChangeStream(() => {});
    stream.push({ type: "resourceUpdated", uri: "a" });
    stream.push({ type: "resourceUpdated", uri: "a" });
    stream.push({ type: "resourceUpdated", uri: "b" });
    expect(stream.pending).toBe(2);
    expect(stream.coalesced).toBe(1);
    await stream.next();
    stream.push({ type: "resourceUpdated", uri: "a" });
    expect(stream.pending).toBe(2);
  });

  it("an end from the producer delivers the queued events first, then done (or the error)", async () => {
    const ok = new ChangeStream(() => {});
    ok.push({ type: "toolsListChanged" });
    ok.end();
    expect(await ok.next()).toEqual({ done: false, value: { type: "toolsListChanged" } });
    expect(await ok.next()).toEqual({ done: true, value: undefined });
    const failed = new ChangeStream(() => {});
    failed.push({ type: "toolsListChanged" });
    failed.end(new Error("Broke off"));
    await failed.next();
    await expect(failed.next()).rejects.toThrow("Broke off");
    expect(await failed.next()).toEqual({ done: true, value: undefined });
  });

  it("close() discards the queue and calls onClose once; a stream the producer ended does not call it", async () => {
    let closes = 0;
    const stream = new ChangeStream(() => void closes++);
    stream.push({ type: "toolsListChanged" });
    await Promise.all([stream.close(), stream.close(), stream.return()]);
    expect(closes).toBe(1);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    let later = 0;
    const ended = new ChangeStream(() => void later++);
    ended.end();
    await ended.close();
    expect(later).toBe(0);
  });

  it("ready resolves with the acknowledged filter, or rejects when the stream ends first", async () => {
    const acked = new ChangeStream(() => {});
    acked.acknowledge({ toolsListChanged: true });
    expect(await acked.ready).toEqual({ toolsListChanged: true });
    const ended = new ChangeStream(() => {});
    ended.end();
    await expect(ended.ready).rejects.toThrow(/before the server acknowledged/);
  });

  it("events pushed after the end are ignored", async () => {
    const stream = new ChangeStream(() => {});
    stream.end();
    stream.push({ type: "toolsListChanged" });
    expect(stream.pending).toBe(0);
  });
});
