/**
 * A module Worker for the browser suite: takes a MessagePort from its first message and echoes every
 * byte array it receives on that port back, transferring the buffer. It imports a source module, so
 * loading it proves module Workers resolve `.ts` imports in the browser suite.
 * @module
 */
import { DEFAULT_MAX_MESSAGE_BYTES } from "../../src/stream/line_splitter.ts";

self.addEventListener("message", (event: MessageEvent) => {
  const port = event.ports[0];
  if (!port) return;
  port.addEventListener("message", (message: MessageEvent) => {
    const data: unknown = message.data;
    if (data instanceof Uint8Array) {
      port.postMessage(data, [data.buffer]);
    } else {
      port.postMessage({ unexpected: String(data) });
    }
  });
  port.start();
  port.postMessage({ ready: true, maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES });
});
