import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { nodeWritable } from "../../../adapters/node/_node_streams.ts";
import { ClosedError, WriteFailedError } from "../../../src/wire/errors.ts";
import { flushMicrotasks } from "../../../testing/fake_time_provider.ts";

const settledSoon = async (promise: Promise<unknown>): Promise<boolean> => {
  let settled = false;
  promise.then(() => (settled = true), () => (settled = true));
  for (let i = 0; i < 5; i++) {
    await flushMicrotasks();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return settled;
};

describe("nodeWritable", () => {
  it("resolves a write once Node handed its bytes on (here at once), in order", async () => {
    const seen: string[] = [];
    const sink = new Writable({
      write: (chunk, _encoding, callback) => (seen.push(String(chunk)), callback()),
    });
    const writer = nodeWritable(sink).getWriter();
    await writer.write(new TextEncoder().encode("a"));
    await writer.write(new TextEncoder().encode("b"));
    expect(seen).toEqual(["a", "b"]);
  });

  it("keeps a write pending while Node still holds its bytes", async () => {
    const sink = new Writable({ write: () => {} }); // never completes: a reader that stopped
    const writer = nodeWritable(sink).getWriter();
    expect(await settledSoon(writer.write(new Uint8Array([1])))).toBe(false);
  });

  it("rejects the write in flight with ClosedError when the stream closes under it", async () => {
    const sink = new Writable({ write: () => {} });
    const writer = nodeWritable(sink).getWriter();
    const write = writer.write(new Uint8Array([1]));
    await flushMicrotasks();
    sink.destroy();
    await expect(write).rejects.toBeInstanceOf(ClosedError);
  });

  it("rejects with WriteFailedError carrying the cause when Node's write fails, and every later write too", async () => {
    const epipe = Object.assign(new Error("EPIPE"), { code: "EPIPE" });
    const sink = new Writable({ write: (_chunk, _encoding, callback) => callback(epipe) });
    sink.on("error", () => {});
    const writer = nodeWritable(sink).getWriter();
    const first = await writer.write(new Uint8Array([1])).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(WriteFailedError);
    expect((first as WriteFailedError).cause).toBe(epipe);
    await expect(writer.write(new Uint8Array([2]))).rejects.toBeDefined();
  });

  it("adds no listeners per write", async () => {
    const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    const writer = nodeWritable(sink).getWriter();
    const before = sink.listenerCount("close") + sink.listenerCount("error");
    for (let i = 0; i < 20; i++) await writer.write(new Uint8Array([i]));
    expect(sink.listenerCount("close") + sink.listenerCount("error")).toBe(before);
  });
});
