import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "../../../adapters/node/_serve.ts";
import type { HttpServer } from "../../../adapters/_http/serve_options.ts";
import { SseStream } from "../../../src/http/server/sse/sse_stream.ts";
import { StreamReply } from "../../../src/http/server/sse/stream_reply.ts";
import { ACCEPTS_REQUEST_PARTS, READ_BODY, type ReadBody } from "../../../src/http/server/request_parts.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import {
  aborted,
  FakeServer,
  gate,
  modernRequest,
  SseReader,
} from "../../src/http/server/http_handler_helpers.ts";

const servers: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(
  handler: Parameters<typeof serve>[0],
  options: Parameters<typeof serve>[1] = {},
): Promise<HttpServer> {
  const server = await serve(handler, { idleCloseDelay: 0, ...options }); // no proxy in front: idle connections end at once on close
  servers.push(server);
  return server;
}

/** Polls `read` every 20 ms until it returns the same value 10 times in a row (the system settled), at most 20 s. */
async function settled(read: () => number): Promise<number> {
  let last = -1;
  let same = 0;
  for (let i = 0; i < 1000 && same < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = read();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

describe("serve (node:http)", () => {
  it("listens on 127.0.0.1 by default and serves request and response, body included", async () => {
    const server = await start(async (request) => {
      const body = await request.text();
      return new Response(
        JSON.stringify({
          method: request.method,
          path: new URL(request.url).pathname,
          body,
          header: request.headers.get("x-test"),
        }),
        {
          status: 201,
          headers: { "Content-Type": "application/json", "X-Reply": "yes" },
        },
      );
    });
    expect(server.url.hostname).toBe("127.0.0.1");
    const response = await fetch(new URL("/echo", server.url), {
      method: "POST",
      body: "hello",
      headers: { "X-Test": "t" },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-reply")).toBe("yes");
    expect(await response.json()).toEqual({ method: "POST", path: "/echo", body: "hello", header: "t" });
  });

  it("streams a response body chunk by chunk as the handler produces it", async () => {
    const next = gate();
    const server = await start(() => {
      let n = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (n === 1) await next.promise;
          if (n === 2) return controller.close();
          controller.enqueue(new TextEncoder().encode(`chunk${n++}\n`));
        },
      });
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    });
    const response = await fetch(server.url);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("chunk0\n");
    next.open();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("chunk1\n");
    expect((await reader.read()).done).toBe(true);
  });

  it("aborts request.signal when the client disconnects", async () => {
    const started = gate();
    const sawAbort = gate<unknown>();
    const server = await start(async (request) => {
      started.open();
      await new Promise((resolve) => request.signal.addEventListener("abort", resolve, { once: true }));
      sawAbort.open(request.signal.reason);
      return new Response("late");
    });
    const client = new AbortController();
    const pending = fetch(server.url, { method: "POST", body: "x", signal: client.signal }).catch((
      error: unknown,
    ) => error);
    await started.promise;
    client.abort();
    await pending;
    expect(await sawAbort.promise).toBeInstanceOf(Error);
  });

  it("cancels the response body when the client disconnects mid-stream", async () => {
    const cancelled = gate<unknown>();
    const server = await start(() => {
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(new TextEncoder().encode("tick\n"));
          return new Promise((resolve) => setTimeout(resolve, 5));
        },
        cancel(reason) {
          cancelled.open(reason);
        },
      });
      return new Response(body);
    });
    const client = new AbortController();
    const response = await fetch(server.url, { signal: client.signal });
    await response.body!.getReader().read();
    client.abort();
    await cancelled.promise;
  });

  it.each(["a web Response body", "a StreamReply (frames written by serve itself)"])(
    "holds a producer whose client never reads: memory stays bounded by the stream bound and the socket buffers (%s)",
    async (form) => {
      const frame = "x".repeat(1024);
      let written = 0;
      let finished = false;
      const server = await start(() => {
        const stream = new SseStream({ maxBufferedBytes: 64 * 1024, keepAliveInterval: 0 });
        void (async () => {
          for (let i = 0; i < 100_000; i++) {
            await stream.writeEvent({ data: frame });
            written += frame.length + 8;
          }
          finished = true;
          await stream.close();
        })().catch(() => {});
        return form.startsWith("a web") ? stream.response() : new StreamReply(stream) as unknown as Response;
      });
      // A raw client that sends the request and then stops reading.
      const socket = connect(Number(server.url.port), "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.url.port}\r\n\r\n`);
      socket.pause();
      const held = await settled(() => written);
      expect(finished).toBe(false);
      // 100 MiB wanted out; what left the producer is the 64 KiB bound plus kernel and socket buffers (about 4 MiB here).
      expect(held).toBeLessThan(16 * 1024 * 1024);
      expect(held).toBeGreaterThan(64 * 1024);
      // Not hit early: once the client reads, everything goes through.
      let received = 0;
      socket.on("data", (chunk: Buffer) => (received += chunk.length));
      socket.resume();
      await settled(() => (finished ? 1 : 0) + written);
      expect(finished).toBe(true);
      expect(received).toBeGreaterThan(100_000 * 1024);
      socket.destroy();
    },
    60_000,
  );

  it("closes gracefully: refuses new connections, lets a request in flight finish, then resolves", async () => {
    const release = gate();
    const arrived = gate();
    const server = await serve(async () => {
      arrived.open();
      await release.promise;
      return new Response("finished");
    });
    const pending = fetch(server.url).then((r) => r.text());
    await arrived.promise;
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(false);
    await expect(fetch(server.url)).rejects.toThrow();
    release.open();
    expect(await pending).toBe("finished");
    await closing;
    expect(closed).toBe(true);
  });

  it("answers a request that arrives on an open keep-alive connection after close() began, with Connection: close, then resolves", async () => {
    const calls: string[] = [];
    const handler = Object.assign(() => new Response("ok"), {
      drain: () => void calls.push("drain"),
      close: async () => void calls.push("close"),
    });
    const server = await serve(handler, { keepAliveTimeout: 60_000 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        const req = httpRequest(server.url, { agent }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
        });
        req.on("error", reject);
        req.end();
      });
    expect(await get()).toEqual({ status: 200, connection: "keep-alive", body: "ok" });
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    expect(calls).toEqual(["drain"]); // listen streams end first; the connection stays open
    expect(await get()).toEqual({ status: 200, connection: "close", body: "ok" }); // same socket, answered
    await closing; // the connection ended with that answer: no need to wait for keepAliveTimeout
    expect(closed).toBe(true);
    expect(calls).toEqual(["drain", "close"]);
    agent.destroy();
  });

  // Issue 25.20: closing the listening socket resets every connection the kernel completed but Node
  // had not accepted yet, and a proxy has already written its request on such a connection (a lost
  // call behind nginx). Here a worker thread connects and writes its request while this thread is
  // blocked (Atomics.wait: nothing is accepted meanwhile), and close() is called right after: the
  // request is still answered, with Connection: close.
  it("serves a connection that completed before close() but was not accepted yet", async () => {
    const server = await serve(() => new Response("ok"), { keepAliveTimeout: 60_000 });
    const written = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(
      `const { connect } = require("node:net");
      const { parentPort, workerData } = require("node:worker_threads");
      const flag = new Int32Array(workerData.shared);
      let text = "";
      const socket = connect(workerData.port, "127.0.0.1", () => {
        socket.write("GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n", () => {
          Atomics.store(flag, 0, 1);
          Atomics.notify(flag, 0);
        });
      });
      socket.setEncoding("utf8");
      socket.on("data", (chunk) => (text += chunk));
      socket.on("end", () => parentPort.postMessage({ text }));
      socket.on("error", (error) => parentPort.postMessage({ error: error.code ?? error.message }));`,
      { eval: true, workerData: { port: Number(server.url.port), shared: written.buffer } },
    );
    const outcome = new Promise<{ text?: string; error?: string }>((resolve) =>
      worker.once("message", resolve)
    );
    // Blocks this thread until the request is written (a hang guard of 10 s, not a timing assertion).
    expect(Atomics.wait(written, 0, 0, 10_000)).not.toBe("timed-out");
    void server.close();
    const { text, error } = await outcome;
    await worker.terminate();
    expect(error).toBeUndefined();
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    await server.closed;
  });

  it("with idleCloseDelay 0, ends an idle keep-alive connection as soon as close() begins", async () => {
    const server = await serve(() => new Response("ok"), { idleCloseDelay: 0, keepAliveTimeout: 60_000 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const { socketClosed } = await new Promise<{ socketClosed: Promise<void> }>((resolve, reject) => {
      const req = httpRequest(server.url, { agent }, (res) => {
        res.resume();
        res.on(
          "end",
          () => resolve({ socketClosed: new Promise((done) => req.socket!.once("close", () => done())) }),
        );
      });
      req.on("error", reject);
      req.end();
    });
    await server.close(); // would wait for keepAliveTimeout (60 s, past the test's timeout) without idleCloseDelay 0
    await socketClosed;
    agent.destroy();
  });

  it("rejects a keepAliveTimeout that is not a positive number and a negative idleCloseDelay", async () => {
    await expect(serve(() => new Response("ok"), { keepAliveTimeout: 0 })).rejects.toThrow(
      /keepAliveTimeout must be a positive number.*got 0/,
    );
    await expect(serve(() => new Response("ok"), { idleCloseDelay: -1 })).rejects.toThrow(
      /idleCloseDelay must be a non-negative number.*got -1/,
    );
  });

  it("ends a response still streaming after shutdownTimeout", async () => {
    const server = await serve(
      () =>
        new Response(new ReadableStream({ pull: () => new Promise(() => {}) }), {
          headers: { "Content-Type": "text/event-stream" },
        }),
      {
        idleCloseDelay: 0,
        shutdownTimeout: 50,
      },
    );
    const response = await fetch(server.url);
    const reading = response.body!.getReader().read().then(
      (r) => (r.done ? "ended" : "data"),
      () => "errored",
    );
    await server.close();
    expect(["ended", "errored"]).toContain(await reading);
  });

  it("closes when its signal aborts, and calls the handler's own close", async () => {
    let handlerClosed = false;
    const handler = Object.assign(() => new Response("ok"), {
      close: async () => void (handlerClosed = true),
    });
    const controller = new AbortController();
    const server = await serve(handler, { signal: controller.signal, idleCloseDelay: 0 });
    controller.abort();
    await server.closed;
    expect(handlerClosed).toBe(true);
  });

  it("serves the MCP handler: JSON replies, SSE progress, and 413 for an oversized body", async () => {
    const mcp = new FakeServer();
    mcp.on("tools/list", () => ({ tools: [] }));
    mcp.on("tools/call", async ({ context }) => {
      await context.notify("notifications/progress", { progressToken: 1, progress: 1 });
      return { content: [] };
    });
    const server = await start(createHttpHandler(mcp, { maxBodyBytes: 10_000, keepAliveInterval: 0 }));
    const endpoint = new URL("/mcp", server.url);
    const via = (request: Request) =>
      fetch(
        endpoint,
        {
          method: request.method,
          headers: request.headers,
          body: request.body,
          duplex: "half",
        } as RequestInit,
      );
    const list = await via(modernRequest(1, "tools/list"));
    expect(await list.json()).toEqual({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
    const call = await via(modernRequest(2, "tools/call", { name: "p" }));
    expect(call.headers.get("content-type")).toBe("text/event-stream");
    expect(await new SseReader(call).rest()).toHaveLength(2);
    const big = await via(modernRequest(3, "tools/list", { pad: "x".repeat(20_000) }));
    expect(big.status).toBe(413);
  });

  it("sends a JSON reply in one piece with its Content-Length in bytes, not chunked", async () => {
    const mcp = new FakeServer();
    mcp.on("tools/call", () => ({ content: [{ type: "text", text: "héllo ✓" }] }));
    const server = await start(createHttpHandler(mcp));
    const request = modernRequest(1, "tools/call", { name: "t" });
    const headers = Object.fromEntries(request.headers);
    const body = await request.text();
    const reply = await new Promise<{ headers: Record<string, unknown>; text: string }>((resolve, reject) => {
      const req = httpRequest(
        new URL("/mcp", server.url),
        { method: "POST", headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on(
            "end",
            () => resolve({ headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(reply.headers["transfer-encoding"]).toBeUndefined();
    expect(reply.headers["content-length"]).toBe(String(Buffer.byteLength(reply.text)));
    expect(JSON.parse(reply.text).result.content[0].text).toBe("héllo ✓");
  });

  it("cancels the MCP handler's work when its client disconnects before the reply, naming the disconnect", async () => {
    const started = gate();
    const cancelled = gate<unknown>();
    const mcp = new FakeServer();
    mcp.on("tools/call", async ({ context }) => {
      started.open();
      cancelled.open(await aborted(context.signal));
      return { content: [] };
    });
    const server = await start(createHttpHandler(mcp));
    const request = modernRequest(1, "tools/call", { name: "slow" });
    const client = new AbortController();
    const pending = fetch(new URL("/mcp", server.url), {
      method: "POST",
      headers: request.headers,
      body: await request.text(),
      signal: client.signal,
    }).catch((e: unknown) => e);
    await started.promise;
    client.abort();
    await pending;
    const reason = await cancelled.promise;
    expect(reason).toBeInstanceOf(Error);
    expect((reason as Error).message).toContain("HTTP disconnect");
  });

  it("ends a StreamReply still streaming after shutdownTimeout: its stream is cancelled, the client sees the cut", async () => {
    const stream = new SseStream({ keepAliveInterval: 0 });
    const server = await serve(() => new StreamReply(stream) as unknown as Response, {
      idleCloseDelay: 0,
      shutdownTimeout: 50,
    });
    const response = await fetch(server.url);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reading = response.body!.getReader().read().then(
      (r) => (r.done ? "ended" : "data"),
      () => "errored",
    );
    await server.close();
    expect(["ended", "errored"]).toContain(await reading);
    expect(stream.signal.aborted).toBe(true);
  });

  it("writes a listen stream's frames straight to the response (a StreamReply: no Response, no web stream, the request's signal never read); a disconnect still cancels its work (issue 25 item 2)", async () => {
    const started = gate();
    const cancelled = gate<unknown>();
    const mcp = new FakeServer();
    mcp.on("subscriptions/listen", async ({ context }) => {
      await context.notify("notifications/subscriptions/acknowledged", {});
      started.open();
      cancelled.open(await aborted(context.signal));
      return {};
    });
    const inner = createHttpHandler(mcp, { keepAliveInterval: 0 });
    const answers: unknown[] = [];
    let signalRead = false;
    const handler = Object.assign(async (request: Request) => {
      const signal = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(request), "signal")!.get!;
      Object.defineProperty(request, "signal", {
        get() {
          signalRead = true;
          return signal.call(request);
        },
      });
      const answer = await inner(request);
      answers.push(answer);
      return answer;
    }, { [ACCEPTS_REQUEST_PARTS]: true });
    const server = await start(handler);
    const request = modernRequest(1, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    const client = new AbortController();
    const response = await fetch(new URL("/mcp", server.url), {
      method: "POST",
      headers: request.headers,
      body: await request.text(),
      signal: client.signal,
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = new SseReader(response);
    expect((await events.next())?.method).toBe("notifications/subscriptions/acknowledged");
    await started.promise;
    expect(answers).toHaveLength(1);
    expect(answers[0]).toBeInstanceOf(StreamReply);
    client.abort();
    const reason = await cancelled.promise;
    expect(reason).toBeInstanceOf(Error);
    expect(signalRead).toBe(false);
    expect(inner.streamCount).toBe(0);
  });

  it("adds the CORS headers to a JSON reply when the handler has CORS on", async () => {
    const mcp = new FakeServer();
    mcp.on("tools/list", () => ({ tools: [] }));
    const server = await start(
      createHttpHandler(mcp, { cors: true, allowedOrigins: ["https://app.example"] }),
    );
    const request = modernRequest(1, "tools/list", {}, { headers: { Origin: "https://app.example" } });
    const response = await fetch(new URL("/mcp", server.url), {
      method: "POST",
      headers: request.headers,
      body: await request.text(),
    });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
  });

  it("gives a handler marked as accepting RequestParts a lighter request that reads its body whole, and any other handler a web Request", async () => {
    const seen: string[] = [];
    const plain = await start(async (request) => {
      seen.push(`plain ${request instanceof Request} ${await request.text()}`);
      return new Response("ok");
    });
    const marked = Object.assign(
      async (request: Request) => {
        const read = (request as unknown as { [READ_BODY]?: ReadBody })[READ_BODY];
        const bytes = await read?.call(request, 100);
        seen.push(
          `marked ${request instanceof Request} ${new TextDecoder().decode(bytes)} ${request.method} ${
            new URL(request.url).pathname
          } ${request.headers.get("x-test")}`,
        );
        return new Response("ok");
      },
      { [ACCEPTS_REQUEST_PARTS]: true },
    );
    const lighter = await start(marked);
    for (const server of [plain, lighter]) {
      const response = await fetch(new URL("/p", server.url), {
        method: "POST",
        body: "hello",
        headers: { "X-Test": "t" },
      });
      expect(await response.text()).toBe("ok");
    }
    expect(seen).toEqual(["plain true hello", "marked false hello POST /p t"]);
  });

  /** Sends a chunked POST of `chunks` on a raw socket, leaving the body unfinished; resolves with what came back once the server closed the socket. */
  async function chunkedPost(
    server: HttpServer,
    chunks: string[],
    { finish }: { finish: boolean },
  ): Promise<string> {
    const socket = connect(Number(server.url.port), "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8").on("data", (text: string) => (received += text));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
        "MCP-Protocol-Version: 2025-06-18\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
    );
    for (const chunk of chunks) socket.write(`${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`);
    if (finish) socket.write("0\r\n\r\n");
    await closed;
    return received;
  }

  it("answers 413 for a chunked body that passes maxBodyBytes while it streams, without waiting for the rest, and drops the connection", async () => {
    const mcp = new FakeServer();
    mcp.on("tools/list", () => ({ tools: [] }));
    const server = await start(createHttpHandler(mcp, { maxBodyBytes: 1000 }), { lingerTimeout: 0 });
    // 1,200 bytes of a body that never ends: the cap is passed, so the answer cannot wait for the end.
    const received = await chunkedPost(server, ["[" + " ".repeat(599), " ".repeat(600)], { finish: false });
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("answers a 64 MiB POST 413 with Connection: close, lingering so the client reads the status, not a reset (issue 25 item 6)", async () => {
    const mcp = new FakeServer();
    mcp.on("tools/list", () => ({ tools: [] }));
    const server = await start(createHttpHandler(mcp));
    const body = new Uint8Array(64 * 1024 * 1024).fill(0x20);
    const response = await fetch(new URL("/mcp", server.url), {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
      },
      body,
    });
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.json()).toMatchObject({ error: { message: /exceeds 4194304 bytes/ } });
  });

  it("lingerTimeout bounds the linger: a body that never ends is cut after it, the 413 read first", async () => {
    const mcp = new FakeServer();
    mcp.on("tools/list", () => ({ tools: [] }));
    const server = await start(createHttpHandler(mcp, { maxBodyBytes: 1000 }), { lingerTimeout: 50 });
    const received = await chunkedPost(server, ["[" + " ".repeat(599), " ".repeat(600)], { finish: false });
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received.toLowerCase()).toContain("connection: close");
  });

  it("takes a chunked body of exactly maxBodyBytes through serve()", async () => {
    const mcp = new FakeServer();
    mcp.on("tools/list", () => ({ tools: [] }));
    const server = await start(createHttpHandler(mcp, { maxBodyBytes: 1000 }));
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const received = await chunkedPost(server, [
      body.slice(0, 20),
      body.slice(20) + " ".repeat(1000 - body.length),
    ], { finish: true });
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toContain('"result":{"tools":[]}');
  });
});
