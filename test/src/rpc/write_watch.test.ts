import { describe, expect, it } from "vitest";
import { watchWrites } from "../../../src/rpc/write_watch.ts";
import { RecordingWritable } from "../../../testing/recording_writable.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";

describe("watchWrites", () => {
  it("tells of each completed write once it completes, not when it starts", async () => {
    const output = new RecordingWritable({ autoComplete: false });
    let progress = 0;
    const watched = watchWrites({ readable: new ReadableStream(), writable: output.writable }, { progress: () => progress++, failed: () => {} });
    const writer = watched.writable.getWriter();
    const written = writer.write(new Uint8Array([1, 2, 3]));
    await flushMicrotasks();
    expect(progress).toBe(0);
    output.completeNext();
    await written;
    expect(progress).toBe(1);
  });

  it("tells of a failed write the moment it fails, and the write rejects", async () => {
    const failing = new WritableStream<Uint8Array>({ write: () => Promise.reject(new Error("EPIPE")) });
    const failures: unknown[] = [];
    const watched = watchWrites({ readable: new ReadableStream(), writable: failing }, { progress: () => {}, failed: (c) => failures.push(c) });
    await expect(watched.writable.getWriter().write(new Uint8Array([1]))).rejects.toThrow("EPIPE");
    expect(failures.map((f) => (f as Error).message)).toEqual(["EPIPE"]);
  });

  it("passes destroy through and aborts the underlying stream when aborted", async () => {
    let aborted: unknown;
    let destroyed: unknown;
    const inner = new WritableStream<Uint8Array>({ abort: (reason) => void (aborted = reason) });
    const watched = watchWrites({ readable: new ReadableStream(), writable: inner, destroy: (r) => void (destroyed = r) }, { progress: () => {}, failed: () => {} });
    watched.destroy?.("now");
    await watched.writable.abort("stop");
    await flushMicrotasks();
    expect([destroyed, aborted]).toEqual(["now", "stop"]);
  });
});
