/**
 * `fromMessagePort` in Chromium: the Worker suite (test/conformance/message_port_worker_suite.ts) with
 * module Workers, plus what only a browser shows: the Worker object and its global scope as the port,
 * and a terminated Worker that sends no signal at all.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { fromMessagePort } from "../../adapters/message_port/mod.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { messagePortWorkerSuite, readAll } from "../conformance/message_port_worker_suite.ts";

let worker: Worker | undefined;

afterEach(() => {
  worker?.terminate();
  worker = undefined;
});

function startWorker(init: Record<string, unknown>, transfer: Transferable[]): Worker {
  worker = new Worker(new URL("../conformance/workers/message_port_worker.ts", import.meta.url), {
    type: "module",
  });
  worker.postMessage(init, transfer);
  return worker;
}

const started: Worker[] = [];
messagePortWorkerSuite(
  { test: (name, fn, timeoutMs = 60_000) => void it(name, fn, timeoutMs) },
  "chromium",
  (fixture) => {
    const url = fixture === "stream"
      ? new URL("../conformance/workers/message_port_worker.ts", import.meta.url)
      : new URL("../conformance/workers/message_port_context_worker.ts", import.meta.url);
    const w = new Worker(url, { type: "module" });
    started.push(w);
    return {
      postMessage: (message, transfer) => w.postMessage(message, transfer),
      terminate: () => w.terminate(),
    };
  },
);
afterAll(() => started.forEach((w) => w.terminate()));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("fromMessagePort with a module Worker (Chromium only)", () => {
  it("works over the Worker object and the Worker's own global scope, without a MessageChannel", async () => {
    const w = startWorker({ mode: "self-echo" }, []);
    const conn = fromMessagePort(w);
    const channel = new NewlineChannel(conn);
    const messages = Array.from({ length: 300 }, (_, i) => ({ i, pad: "x".repeat(i * 10) }));
    const received = readAll(channel);
    for (const m of messages) await channel.send(m);
    await channel.closeOutput();
    expect(await received).toEqual(messages);
    expect(conn.closeError()).toBeUndefined();
  });

  it("a terminated Worker sends no signal in Chromium (no port close event); the owner's destroy() ends the reader", async () => {
    const { port1, port2 } = new MessageChannel();
    const w = startWorker({ mode: "echo", port: port2 }, [port2]);
    const conn = fromMessagePort(port1);
    const reader = conn.readable.getReader();
    const writer = conn.writable.getWriter();
    await writer.write(new TextEncoder().encode("[1]\n"));
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("[1]\n");
    w.terminate();
    let settled = false;
    const read = reader.read().finally(() => (settled = true));
    await sleep(300);
    expect(settled).toBe(false); // this is why the wire has explicit end and abort messages
    conn.destroy(new Error("The Worker was terminated"));
    await expect(read).rejects.toThrow(/Worker was terminated/);
    await conn.closed;
  });
});
