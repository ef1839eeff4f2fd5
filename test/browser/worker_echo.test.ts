/**
 * A module Worker echoes bytes over a MessageChannel: the browser suite can host Worker tests.
 * @module
 */
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../../src/stream/line_splitter.ts";

let worker: Worker | undefined;

afterEach(() => {
  worker?.terminate();
  worker = undefined;
});

function nextMessage(port: MessagePort): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("No message from the worker within 30 s")), 30_000);
    port.addEventListener(
      "message",
      (event) => {
        clearTimeout(timer);
        resolve(event.data);
      },
      { once: true },
    );
  });
}

/** Index of the first differing byte, or -1 when `a` and `b` are equal. */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.byteLength === b.byteLength ? -1 : n;
}

describe("module Worker over a MessageChannel", () => {
  it("echoes bytes back, transferred, in order", async () => {
    worker = new Worker(new URL("./echo_worker.ts", import.meta.url), { type: "module" });
    const failed = new Promise<never>((_, reject) => {
      worker!.addEventListener(
        "error",
        (event) => reject(new Error(`Worker failed to load: ${event.message}`)),
      );
    });
    const { port1, port2 } = new MessageChannel();
    port1.start();
    const ready = nextMessage(port1);
    worker.postMessage("port", [port2]);
    expect(await Promise.race([ready, failed])).toEqual({
      ready: true,
      maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
    });

    const received: Uint8Array[] = [];
    const sizes = [1, 7, 16 * 1024, 1024 * 1024];
    for (const size of sizes) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 31 + size) & 0xff);
      const expected = bytes.slice();
      const echoed = nextMessage(port1);
      port1.postMessage(bytes, [bytes.buffer]);
      expect(bytes.byteLength).toBe(0); // the buffer was transferred, not copied
      const back = await echoed;
      expect(back).toBeInstanceOf(Uint8Array);
      expect(firstDifference(back as Uint8Array, expected)).toBe(-1); // toEqual walks a MiB slowly
      received.push(back as Uint8Array);
    }
    expect(received.map((b) => b.byteLength)).toEqual(sizes);
    port1.close();
  });
});
