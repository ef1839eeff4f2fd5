// A JSON reply is read under `maxResponseBytes` through both senders: `fetch` (a web stream read back
// by readResponseText) and the Node entry's undici sender (`HttpReply.readText`, collected from
// undici's Node stream without a web stream). Past the cap: a typed error, and the download stops
// (the server sees its connection close before it wrote everything).
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { undiciSend } from "../../../adapters/node/_undici_send.ts";
import { errorOfStatus, HttpEndpoint } from "../../../src/http/client/http_endpoint.ts";
import { HttpStatusError } from "../../../src/http/client/http_client_errors.ts";
import { ResponseTooLargeError } from "../../../src/http/errors.ts";

const CHUNK = 16 * 1024;

/** What the server did for one reply: bytes written and whether the client hung up first. */
interface Served {
  written: number;
  closedEarly: boolean;
  done: Promise<void>;
}

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

/**
 * A server answering every POST with a JSON-RPC result padded to `pad` bytes, written in chunks with
 * no Content-Length (chunked), each chunk after the previous one drained.
 */
async function start(pad: number, { status = 200, prefix = "" } = {}) {
  const served: Served[] = [];
  const server = createServer((request, response: ServerResponse) => {
    request.resume();
    let resolve!: () => void;
    const entry: Served = { written: 0, closedEarly: false, done: new Promise((r) => (resolve = r)) };
    served.push(entry);
    response.on("close", () => {
      entry.closedEarly = !response.writableFinished;
      resolve();
    });
    response.writeHead(status, { "Content-Type": "application/json" });
    const body = Buffer.from(`${prefix}{"jsonrpc":"2.0","id":1,"result":{"pad":"${"x".repeat(pad)}"}}`);
    const write = (): void => {
      while (entry.written < body.length && !response.destroyed) {
        const chunk = body.subarray(entry.written, entry.written + CHUNK);
        entry.written += chunk.length;
        if (!response.write(chunk)) {
          response.once("drain", write);
          return;
        }
      }
      if (!response.destroyed) response.end();
    };
    write();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  cleanup.push(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, served };
}

const SENDERS = [
  { sender: "fetch", options: {} },
  { sender: "undici", options: { send: undiciSend() } },
] as const;

const post = (endpoint: HttpEndpoint, signal?: AbortSignal) =>
  endpoint.send("POST", { headers: { "content-type": "application/json" }, body: "{}", signal });

const overhead = `{"jsonrpc":"2.0","id":1,"result":{"pad":""}}`.length;

describe.each(SENDERS)("a JSON reply through the $sender sender", ({ options }) => {
  it("a body of exactly maxResponseBytes is read whole (the bound is not hit early)", async () => {
    const pad = 100_000;
    const { url } = await start(pad);
    const endpoint = new HttpEndpoint(url, { ...options, maxResponseBytes: pad + overhead });
    const messages: unknown[] = [];
    await endpoint.read(await post(endpoint), (m) => void messages.push(m));
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 1, result: { pad: "x".repeat(pad) } }]);
  });

  it("a body past maxResponseBytes fails with ResponseTooLargeError and stops the download", async () => {
    const { url, served } = await start(50 * 1024 * 1024);
    const endpoint = new HttpEndpoint(url, { ...options, maxResponseBytes: 40_000 });
    const error = await endpoint.read(await post(endpoint), () => {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).limitBytes).toBe(40_000);
    await served[0]!.done;
    expect(served[0]!.closedEarly).toBe(true);
    expect(served[0]!.written).toBeLessThan(50 * 1024 * 1024);
  });

  it("a body one byte past maxResponseBytes fails", async () => {
    const pad = 100_000;
    const { url } = await start(pad);
    const endpoint = new HttpEndpoint(url, { ...options, maxResponseBytes: pad + overhead - 1 });
    await expect(endpoint.read(await post(endpoint), () => {})).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it("a byte order mark is dropped, as TextDecoder drops it", async () => {
    const { url } = await start(10, { prefix: "\uFEFF" });
    const endpoint = new HttpEndpoint(url, options);
    const messages: unknown[] = [];
    await endpoint.read(await post(endpoint), (m) => void messages.push(m));
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 1, result: { pad: "x".repeat(10) } }]);
  });

  it("aborting while the body streams in rejects with the signal's reason", async () => {
    const { url, served } = await start(50 * 1024 * 1024);
    const endpoint = new HttpEndpoint(url, { ...options, maxResponseBytes: 100 * 1024 * 1024 });
    const controller = new AbortController();
    const response = await post(endpoint, controller.signal);
    const reason = new Error("stop");
    const reading = endpoint.read(response, () => {}, controller.signal);
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    await served[0]!.done;
    expect(served[0]!.closedEarly).toBe(true);
  });

  it("aborting a signal other than the request's while the body streams in rejects with its reason", async () => {
    const { url, served } = await start(50 * 1024 * 1024);
    const endpoint = new HttpEndpoint(url, { ...options, maxResponseBytes: 100 * 1024 * 1024 });
    const response = await post(endpoint);
    const controller = new AbortController();
    const reason = new Error("stop reading");
    const reading = endpoint.read(response, () => {}, controller.signal);
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    await served[0]!.done;
    expect(served[0]!.closedEarly).toBe(true);
  });

  it("an error page is read only up to its excerpt", async () => {
    const { url, served } = await start(50 * 1024 * 1024, { status: 502 });
    const endpoint = new HttpEndpoint(url, options);
    const error = await errorOfStatus(await post(endpoint), "tools/call", 2500);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(502);
    await served[0]!.done;
    expect(served[0]!.closedEarly).toBe(true);
  });
});
