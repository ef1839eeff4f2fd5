/**
 * `fromMessagePort` on Node: over a `worker_threads` MessageChannel in one thread, and with a real
 * `Worker` on the other end. Round trips, a 3 MiB message, end-of-stream, abort, and flow control.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { build } from "rolldown";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_RECEIVE_WINDOW_BYTES,
  fromMessagePort,
  type MessagePortConnection,
  type MessagePortLike,
} from "../../../adapters/message_port/mod.ts";
import {
  messagePortWorkerSuite,
  readAll,
  type WorkerHandle,
} from "../../conformance/message_port_worker_suite.ts";
import { ClosedError, isTransportError } from "../../../src/wire/errors.ts";
import { NewlineChannel } from "../../../src/stream/newline_channel.ts";

const MiB = 1024 * 1024;
const repo = fileURLToPath(new URL("../../../", import.meta.url));

/** A port that reports every data message it posts, for an independent count of bytes in transit. */
function spyPort(port: MessagePort, onData: (bytes: number) => void): MessagePortLike {
  return {
    postMessage(message, transfer) {
      const m = message as { omc?: string; bytes?: ArrayBuffer };
      if (m.omc === "data") onData(m.bytes!.byteLength);
      port.postMessage(message, transfer);
    },
    addEventListener: (type, listener) => port.addEventListener(type as "message", listener),
    removeEventListener: (type, listener) => port.removeEventListener(type as "message", listener),
    start: () => port.start(),
    close: () => port.close(),
  };
}

async function echo(channel: NewlineChannel): Promise<void> {
  for await (const line of channel) {
    if (line.kind === "line") await channel.send(JSON.parse(line.text));
  }
  await channel.close();
}

/** Waits until `ready()` holds (polling), failing after `limitMs`. */
async function until(ready: () => boolean, what: string, limitMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!ready()) {
    if (Date.now() - start > limitMs) throw new Error(`Not reached within ${limitMs} ms: ${what}`);
    await sleep(10);
  }
}

function pair(options: { window?: number } = {}): { a: MessagePortConnection; b: MessagePortConnection } {
  const { port1, port2 } = new MessageChannel();
  return {
    a: fromMessagePort(port1, { receiveWindowBytes: options.window }),
    b: fromMessagePort(port2, { receiveWindowBytes: options.window }),
  };
}

describe("fromMessagePort over a worker_threads MessageChannel", () => {
  it("round-trips 10,000 lines in order through an echo, then both ends close", async () => {
    const { a, b } = pair();
    const client = new NewlineChannel(a);
    const server = new NewlineChannel(b);
    const echoing = echo(server);
    const messages = Array.from({ length: 10_000 }, (_, i) => ({ i, text: "é🙂x".repeat(i % 97) }));
    const received = readAll(client);
    for (const m of messages) await client.send(m);
    await client.closeOutput();
    expect(await received).toEqual(messages);
    await echoing;
    await client.close();
    await Promise.all([a.closed, b.closed]);
    expect(a.closeError()).toBeUndefined();
    expect(b.closeError()).toBeUndefined();
    expect(a.maxBytesInTransit).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
    expect(b.maxBytesInTransit).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
  });

  it("carries a 3 MiB message whole, in window-sized pieces", async () => {
    const { a, b } = pair();
    const client = new NewlineChannel(a);
    const server = new NewlineChannel(b);
    const echoing = echo(server);
    const big = { text: "0123456789abcdef".repeat((3 * MiB) / 16) };
    const received = readAll(client);
    await client.send(big);
    await client.send({ after: true });
    await client.closeOutput();
    const [first, second] = await received;
    expect((first as { text: string }).text.length).toBe(3 * MiB);
    expect(first).toEqual(big);
    expect(second).toEqual({ after: true });
    await echoing;
    expect(a.maxBytesInTransit).toBeLessThanOrEqual(DEFAULT_RECEIVE_WINDOW_BYTES);
    expect(a.stats.sentBytes).toBeGreaterThan(3 * MiB);
  });

  it('with chunks: "transfer", hands whole-buffer chunks over and copies views into larger buffers', async () => {
    const { port1, port2 } = new MessageChannel();
    const a = fromMessagePort(port1, { chunks: "transfer" });
    const b = fromMessagePort(port2);
    const writer = a.writable.getWriter();
    const whole = new Uint8Array(1000).fill(1);
    await writer.write(whole);
    expect(whole.byteLength).toBe(0); // handed over, not copied
    const backing = new Uint8Array(4000).fill(2);
    const view = backing.subarray(1000, 2000);
    await writer.write(view);
    expect(backing.byteLength).toBe(4000); // not detached
    expect(a.stats.copiedBytes).toBe(1000);
    await writer.close();
    const chunks: Uint8Array[] = [];
    for await (const chunk of b.readable) chunks.push(chunk);
    expect(chunks.map((c) => [c.byteLength, c[0]])).toEqual([
      [1000, 1],
      [1000, 2],
    ]);
    const mine = new Uint8Array(10);
    await fromMessagePortCopying(mine); // the default copies even a whole buffer: the writer's chunk stays intact
    expect(mine.byteLength).toBe(10);
    expect(a.stats.sentBytes).toBe(2000);
  });

  it("ends the peer's readable on writable close, and the other direction keeps working (half-close)", async () => {
    const { a, b } = pair();
    const aw = a.writable.getWriter();
    await aw.write(new TextEncoder().encode("one\n"));
    await aw.close();
    const br = b.readable.getReader();
    expect(new TextDecoder().decode((await br.read()).value)).toBe("one\n");
    expect((await br.read()).done).toBe(true);
    const bw = b.writable.getWriter();
    await bw.write(new TextEncoder().encode("reply\n"));
    await bw.close();
    const ar = a.readable.getReader();
    expect(new TextDecoder().decode((await ar.read()).value)).toBe("reply\n");
    expect((await ar.read()).done).toBe(true);
    await Promise.all([a.closed, b.closed]);
    expect(b.closeError()).toBeUndefined();
  });

  it("errors the peer's readable with a ClosedError when the writer aborts, and names the reason", async () => {
    const { a, b } = pair();
    const aw = a.writable.getWriter();
    await aw.write(new Uint8Array([104, 105]));
    await aw.abort(new Error("gave up"));
    const br = b.readable.getReader();
    const error = await (async () => {
      for (;;) if ((await br.read()).done) return undefined;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClosedError);
    expect(isTransportError(error) && error.code).toBe("closed");
    expect(String((error as Error).message)).toContain("gave up");
    expect(b.closeError()).toBe(error);
  });

  it("destroy() errors the peer's readable and fails its pending and later writes", async () => {
    const { a, b } = pair({ window: 16 });
    const bw = b.writable.getWriter();
    await bw.write(new Uint8Array(16)); // uses all of b's credit
    const pending = bw.write(new Uint8Array(8)); // waits for credit
    a.destroy(new Error("torn down"));
    await expect(pending).rejects.toBeInstanceOf(ClosedError);
    const read = b.readable.getReader().read();
    await expect(read).rejects.toBeInstanceOf(ClosedError);
    await expect(read).rejects.toThrow(/torn down/);
    await expect(a.readable.getReader().read()).rejects.toThrow(/torn down/);
  });

  it("a writer abort while waiting for credit reaches the peer at once", async () => {
    const { a, b } = pair({ window: 8 });
    const aw = a.writable.getWriter();
    const blocked = aw.write(new Uint8Array(20));
    await sleep(20);
    expect(a.bytesInTransit).toBe(8);
    await aw.abort(new Error("stop"));
    await expect(blocked).rejects.toBeDefined();
    const br = b.readable.getReader();
    await expect((async () => {
      for (;;) if ((await br.read()).done) return "ended";
    })()).rejects.toThrow(/stop/);
  });

  it("a reader that cancels fails the peer's writes with a ClosedError (EPIPE)", async () => {
    const { a, b } = pair({ window: 8 });
    await b.readable.cancel("not interested");
    const aw = a.writable.getWriter();
    await expect((async () => {
      for (;;) await aw.write(new Uint8Array(4));
    })()).rejects.toThrow(/stopped reading/);
  });

  it("a port closed without end-of-stream errors the readable (the peer thread went away)", async () => {
    const { port1, port2 } = new MessageChannel();
    const a = fromMessagePort(port1);
    port2.close();
    await expect(a.readable.getReader().read()).rejects.toThrow(/closed before end-of-stream/);
    expect(a.closeError()).toBeInstanceOf(ClosedError);
    await a.closed;
  });

  it("a port closed right after end-of-stream still delivers every byte before the end", async () => {
    const { port1, port2 } = new MessageChannel();
    const a = fromMessagePort(port1);
    const bytes = new Uint8Array(5000).map((_, i) => i & 0xff);
    port2.postMessage({ omc: "data", bytes: bytes.slice().buffer });
    port2.postMessage({ omc: "end" });
    port2.close();
    await sleep(50); // the close event has fired; nothing was read yet
    const got: number[] = [];
    for await (const chunk of a.readable) got.push(...chunk);
    expect(got).toEqual([...bytes]);
    expect(a.closeError()).toBeUndefined();
  });

  it("refuses a peer that sends beyond its credit with a protocol error", async () => {
    const { port1, port2 } = new MessageChannel();
    const a = fromMessagePort(port1, { receiveWindowBytes: 4 });
    port2.postMessage({ omc: "data", bytes: new ArrayBuffer(5) });
    await expect(a.readable.getReader().read()).rejects.toThrow(/5 bytes with only 4 bytes of credit/);
    const why = a.closeError();
    expect(isTransportError(why) && why.code).toBe("protocol");
    port2.close();
  });

  it("keeps the sender's queue at its bound and the bytes in transit within the window while the reader stops", async () => {
    const window = DEFAULT_RECEIVE_WINDOW_BYTES;
    const { port1, port2 } = new MessageChannel();
    let posted = 0;
    let maxInTransit = 0;
    // deno-lint-ignore prefer-const -- read by the spy before it is assigned
    let receiver!: MessagePortConnection;
    const sender = fromMessagePort(
      spyPort(port1, (n) => {
        posted += n;
        const delivered = receiver ? receiver.stats.receivedBytes - receiver.bufferedInputBytes : 0;
        maxInTransit = Math.max(maxInTransit, posted - delivered);
      }),
    );
    receiver = fromMessagePort(port2);
    const out = new NewlineChannel(sender);
    const input = new NewlineChannel(receiver);

    const message = (i: number) => ({ i, pad: "p".repeat(8 * 1024) });
    const messageBytes = JSON.stringify(message(999)).length + 1;
    const total = 600; // ≈ 4.8 MiB: far beyond queue + window
    let accepted = 0;
    const sending = (async () => {
      for (let i = 0; i < total; i++) {
        await out.send(message(i));
        accepted++;
      }
      await out.closeOutput();
    })();

    // Blocked for sure: no credit left and the next message does not fit the queue. Then hold still
    // a while and check that nothing more was accepted.
    await until(
      () => sender.bytesInTransit === window && out.queuedOutputBytes + messageBytes > MiB,
      "sender blocked",
    );
    const acceptedAtBound = accepted;
    await sleep(300);
    expect(accepted).toBe(acceptedAtBound);
    const queued = out.queuedOutputBytes;
    expect(accepted).toBeLessThan(total);
    expect(queued).toBeLessThanOrEqual(MiB + messageBytes);
    expect(queued).toBeGreaterThanOrEqual(MiB - messageBytes); // the bound is reached, not stopped short
    expect(sender.bytesInTransit).toBe(window); // no credit left: the window is full, not stopped short
    expect(maxInTransit).toBeLessThanOrEqual(window);
    expect(sender.maxBytesInTransit).toBeLessThanOrEqual(window);
    expect(receiver.bufferedInputBytes).toBeLessThanOrEqual(window);
    console.info(
      `[message_port flow] window=${window} queuedOutputBytes at the bound=${queued} message=${messageBytes} ` +
        `accepted=${accepted}/${total} inTransit=${sender.bytesInTransit} maxInTransit(spy)=${maxInTransit}`,
    );

    const received = await readAll(input);
    await sending;
    expect(received.length).toBe(total);
    expect(received.every((m, i) => (m as { i: number }).i === i)).toBe(true);
    expect(maxInTransit).toBeLessThanOrEqual(window);
  });

  it("a small window bounds the bytes in transit to the window", async () => {
    const { port1, port2 } = new MessageChannel();
    let posted = 0;
    let maxInTransit = 0;
    // deno-lint-ignore prefer-const -- read by the spy before it is assigned
    let receiver!: MessagePortConnection;
    const sender = fromMessagePort(
      spyPort(port1, (n) => {
        posted += n;
        maxInTransit = Math.max(
          maxInTransit,
          posted - (receiver.stats.receivedBytes - receiver.bufferedInputBytes),
        );
      }),
    );
    receiver = fromMessagePort(port2, { receiveWindowBytes: 1000 });
    const writer = sender.writable.getWriter();
    const writing = (async () => {
      for (let i = 0; i < 50; i++) await writer.write(new Uint8Array(700).fill(i));
      await writer.close();
    })();
    await until(() => posted === 1000, "the window filled");
    await sleep(100);
    expect(posted).toBe(1000); // and not a byte more while nobody reads
    const bytes: number[] = [];
    for await (const chunk of receiver.readable) bytes.push(...chunk);
    await writing;
    expect(bytes.length).toBe(50 * 700);
    expect(bytes.every((v, i) => v === Math.floor(i / 700))).toBe(true);
    expect(maxInTransit).toBeLessThanOrEqual(1000);
    expect(maxInTransit).toBe(1000);
  });

  it("works over a port that only has postMessage and onmessage (no addEventListener)", async () => {
    const { port1, port2 } = new MessageChannel();
    const bare = (
      port: MessagePort,
    ): MessagePortLike & { onmessage: ((event: { data: unknown }) => void) | null } => {
      const shim = {
        onmessage: null as ((event: { data: unknown }) => void) | null,
        postMessage: (message: unknown, transfer: ArrayBuffer[]) => port.postMessage(message, transfer),
        close: () => port.close(),
      };
      port.on("message", (data: unknown) => shim.onmessage?.({ data }));
      return shim;
    };
    const a = fromMessagePort(bare(port1));
    const b = fromMessagePort(bare(port2), { receiveWindowBytes: 100 });
    const writing = (async () => {
      const w = a.writable.getWriter();
      for (let i = 0; i < 20; i++) await w.write(new Uint8Array(30).fill(i));
      await w.close();
    })();
    let n = 0;
    for await (const chunk of b.readable) n += chunk.byteLength;
    await writing;
    expect(n).toBe(600);
    expect(a.maxBytesInTransit).toBe(100);
    await b.close(); // sends end: a's readable ends
    expect((await a.readable.getReader().read()).done).toBe(true);
    await Promise.all([a.closed, b.closed]);
  });

  it("validates receiveWindowBytes", () => {
    const { port1 } = new MessageChannel();
    expect(() => fromMessagePort(port1, { receiveWindowBytes: 0 })).toThrow(/receiveWindowBytes/);
    expect(() => fromMessagePort(port1, { receiveWindowBytes: 1.5 })).toThrow(/receiveWindowBytes/);
    expect(() => fromMessagePort(port1, { receiveWindowBytes: Infinity })).toThrow(/receiveWindowBytes/);
    expect(() => fromMessagePort(port1, { chunks: "move" as "copy" })).toThrow(/chunks/);
    port1.close();
  });
});

async function fromMessagePortCopying(chunk: Uint8Array): Promise<void> {
  const { port1, port2 } = new MessageChannel();
  const a = fromMessagePort(port1);
  const b = fromMessagePort(port2);
  const w = a.writable.getWriter();
  await w.write(chunk);
  await w.close();
  for await (const c of b.readable) expect(c.byteLength).toBe(chunk.byteLength);
  expect(a.stats.copiedBytes).toBe(chunk.byteLength);
}

// ---- a real worker_threads Worker ----

let dir: string;
const bundles = new Map<string, string>();

/** Lets the Workers written for the browser run in worker_threads: `self` over `parentPort`. */
const SELF_SHIM = `import { parentPort } from "node:worker_threads";
globalThis.self = {
  addEventListener(type, listener, options) {
    if (type !== "message") return;
    const wrapped = (data) => listener({ data });
    if (options?.once) parentPort.once("message", wrapped);
    else parentPort.on("message", wrapped);
  },
};`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "omc-message-port-"));
  for (const fixture of ["message_port_worker", "message_port_context_worker"]) {
    const file = join(dir, `${fixture}.mjs`);
    await build({
      input: join(repo, `test/conformance/workers/${fixture}.ts`),
      platform: "node",
      external: [/^node:/],
      logLevel: "silent",
      output: { file, format: "esm", banner: SELF_SHIM },
    });
    bundles.set(fixture, file);
  }
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function startWorker(fixture: "stream" | "context"): WorkerHandle & { worker: Worker } {
  const worker = new Worker(
    bundles.get(fixture === "stream" ? "message_port_worker" : "message_port_context_worker")!,
  );
  const exited = new Promise<number>((resolve, reject) => {
    worker.once("exit", resolve);
    worker.once("error", reject);
  });
  exited.catch(() => {}); // awaited by the tests that expect an exit
  return {
    worker,
    exited,
    postMessage: (message, transfer) => worker.postMessage(message, transfer as MessagePort[]),
    terminate: () => worker.terminate(),
  };
}

messagePortWorkerSuite(
  { test: (name, fn, timeoutMs = 60_000) => void it(name, fn, timeoutMs) },
  "node",
  startWorker,
);

describe("fromMessagePort with a real worker_threads Worker (Node only)", () => {
  it("a terminated Worker errors the readable: the port's close event stands in for an abort", async () => {
    const { port1, port2 } = new MessageChannel();
    const { worker } = startWorker("stream");
    worker.postMessage({ mode: "echo", port: port2 }, [port2]);
    const conn = fromMessagePort(port1);
    const reader = conn.readable.getReader();
    const writer = conn.writable.getWriter();
    await writer.write(new TextEncoder().encode('{"x":1}\n'));
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"x":1}\n');
    await worker.terminate();
    await expect(reader.read()).rejects.toThrow(/closed before end-of-stream/);
  });
});
