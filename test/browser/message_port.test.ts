/**
 * `fromMessagePort` in Chromium: the page and a module Worker, each end on one side of a
 * `MessageChannel`. Echo of many lines and a 3 MiB message, end-of-stream both ways, and flow control:
 * a page that stops reading makes the Worker's queued output stop at the 1 MiB bound.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_RECEIVE_WINDOW_BYTES, fromMessagePort } from "../../adapters/message_port/mod.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";

const MiB = 1024 * 1024;
let worker: Worker | undefined;

afterEach(() => {
  worker?.terminate();
  worker = undefined;
});

function startWorker(init: Record<string, unknown>, transfer: Transferable[]): Worker {
  worker = new Worker(new URL("./fixtures/message_port_worker.ts", import.meta.url), { type: "module" });
  worker.postMessage(init, transfer);
  return worker;
}

async function readAll(channel: NewlineChannel): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const line of channel) {
    if (line.kind !== "line") throw line.error;
    out.push(JSON.parse(line.text));
  }
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(ready: () => boolean, what: string, limitMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!ready()) {
    if (Date.now() - start > limitMs) throw new Error(`Not reached within ${limitMs} ms: ${what}`);
    await sleep(10);
  }
}

describe("fromMessagePort between the page and a module Worker", () => {
  it("echoes 2,000 lines and a 3 MiB message in order, then end-of-stream ends both directions", async () => {
    const { port1, port2 } = new MessageChannel();
    startWorker({ mode: "echo", port: port2 }, [port2]);
    const conn = fromMessagePort(port1);
    const channel = new NewlineChannel(conn);
    const messages: unknown[] = Array.from({ length: 2_000 }, (_, i) => ({ id: i, s: "ß😀".repeat(i % 40) }));
    messages.push({ big: "B".repeat(3 * MiB) }, { last: true });
    const received = readAll(channel);
    for (const m of messages) await channel.send(m);
    await channel.closeOutput(); // end-of-stream: the Worker's echo loop ends, it closes, our input ends
    expect(await received).toEqual(messages);
    await conn.closed;
    expect(conn.closeError()).toBeUndefined();
    expect(conn.maxBytesInTransit).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
  });

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

  it("the page's readable ends when the Worker closes its output, with nothing lost", async () => {
    const { port1, port2 } = new MessageChannel();
    const reports = new MessageChannel();
    startWorker({ mode: "flood", port: port2, report: reports.port2, count: 50, size: 100 }, [port2, reports.port2]);
    const received = await readAll(new NewlineChannel(fromMessagePort(port1)));
    expect(received.map((m) => (m as { i: number }).i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    reports.port1.close();
  });

  it("a page that stops reading makes the Worker's queued output stop at the bound; reading again resumes in order", async () => {
    const { port1, port2 } = new MessageChannel();
    const reports = new MessageChannel();
    const count = 400;
    const size = 10 * 1024;
    startWorker({ mode: "flood", port: port2, report: reports.port2, count, size }, [port2, reports.port2]);
    let last = { accepted: 0, queued: 0, inTransit: 0, maxInTransit: 0 };
    let done: { maxInTransit: number } | undefined;
    let failed: string | undefined;
    reports.port1.onmessage = (event) => {
      if (event.data.failed) failed = event.data.failed;
      else if (event.data.done) done = event.data;
      else last = event.data;
    };
    const conn = fromMessagePort(port1); // granted its window, but nobody reads yet
    const messageBytes = JSON.stringify({ i: count - 1, pad: "w".repeat(size) }).length + 1;
    await until(() => failed !== undefined || (last.inTransit === DEFAULT_RECEIVE_WINDOW_BYTES && last.queued + messageBytes > MiB), "Worker blocked");
    expect(failed).toBeUndefined();
    const acceptedAtBound = last.accepted;
    await sleep(300);
    expect(last.accepted).toBe(acceptedAtBound);
    expect(last.accepted).toBeLessThan(count);
    expect(last.queued).toBeLessThanOrEqual(MiB + messageBytes);
    expect(last.queued).toBeGreaterThanOrEqual(MiB - messageBytes);
    expect(last.inTransit).toBe(DEFAULT_RECEIVE_WINDOW_BYTES);
    expect(last.maxInTransit).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
    expect(conn.bufferedInputBytes).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
    console.info(
      `[message_port chromium flow] Worker queuedOutputBytes at the bound=${last.queued} message=${messageBytes} ` +
        `accepted=${last.accepted}/${count} inTransit=${last.inTransit} page buffered=${conn.bufferedInputBytes}`,
    );

    const received = await readAll(new NewlineChannel(conn));
    expect(received.length).toBe(count);
    expect(received.every((m, i) => (m as { i: number }).i === i)).toBe(true);
    while (!done) await sleep(10);
    expect(done.maxInTransit).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
    reports.port1.close();
  });
});
