/**
 * The MCP HTTP handler served over the network by a runtime's `serve` adapter (adapters/<runtime>/_serve.ts):
 * JSON and SSE answers, a client disconnect, close of a listen stream. Registered by `deno test` and `bun test`.
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { FetchHandler, HttpServer, ServeOptions } from "../../adapters/_http/serve_options.ts";
import { createHttpHandler } from "../../src/http/server/create_http_handler.ts";
import { FakeServer, gate, modernRequest, SseReader } from "../src/http/server/http_handler_helpers.ts";
import { assert, assertEquals, assertStrictEquals } from "./assert.ts";
import type { TestApi } from "./test_api.ts";

/** A runtime's `serve` from adapters/<runtime>/_serve.ts. */
export type Serve = (handler: FetchHandler, options?: ServeOptions) => Promise<HttpServer>;

function mcp() {
  const server = new FakeServer();
  server.on("tools/list", () => ({ tools: [] }));
  server.on("tools/call", async ({ context }) => {
    await context.notify("notifications/progress", { progressToken: 1, progress: 1 });
    return { content: [] };
  });
  server.on("subscriptions/listen", async ({ context }) => {
    await context.notify("notifications/subscriptions/acknowledged", { notifications: {} });
    await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
    return { ended: true };
  });
  return server;
}

/** `promise`, or a failure naming `what` after `ms` (a hang guard for runners without per-test timeouts, not a timing assertion). */
async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Gave up waiting for ${what} after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Sends a test Request to `url` over the network. */
function via(url: URL, request: Request, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: request.method, headers: request.headers, body: request.body, signal });
}

/** Registers the suite on `api` for the `serve` of `runtime`. */
export function httpServeSuite(api: TestApi, runtime: string, serve: Serve): void {
  api.test(`serve on ${runtime}: JSON and SSE answers from the MCP handler`, async () => {
    const server = await serve(createHttpHandler(mcp(), { keepAliveInterval: 0 }));
    try {
      assertStrictEquals(server.url.hostname, "127.0.0.1");
      const endpoint = new URL("/mcp", server.url);
      const list = await via(endpoint, modernRequest(1, "tools/list"));
      assertEquals(await list.json(), { jsonrpc: "2.0", id: 1, result: { tools: [] } });
      const call = await via(endpoint, modernRequest(2, "tools/call", { name: "p" }));
      assertStrictEquals(call.headers.get("content-type"), "text/event-stream");
      const events = await new SseReader(call).rest();
      assertEquals(events.length, 2);
    } finally {
      await server.close();
    }
  });

  api.test(`serve on ${runtime}: a client disconnect aborts the handler's signal`, async () => {
    const started = gate();
    const sawAbort = gate();
    let signal: AbortSignal | undefined;
    const server = await serve(async (request) => {
      signal = request.signal;
      started.open();
      await new Promise((resolve) => request.signal.addEventListener("abort", resolve, { once: true }));
      sawAbort.open();
      return new Response("late");
    });
    try {
      const client = new AbortController();
      const pending = fetch(server.url, { method: "POST", body: "x", signal: client.signal }).then(
        (response) => `answered ${response.status}`,
        (error: unknown) => (error as Error).name,
      );
      await started.promise;
      assertStrictEquals(signal?.aborted, false); // not aborted while the client waits
      client.abort();
      assertStrictEquals(await pending, "AbortError"); // the client gave up; it got no answer
      // A hang here (the handler never sees the disconnect) is caught by the runner's per-test timeout.
      await withTimeout(
        sawAbort.promise,
        10_000,
        "the handler's signal to abort after the client disconnect",
      );
      assertStrictEquals(signal?.aborted, true);
    } finally {
      await server.close();
    }
  });

  api.test(`serve on ${runtime}: close ends a listen stream with its result`, async () => {
    const server = await serve(createHttpHandler(mcp(), { keepAliveInterval: 0 }));
    const response = await via(
      new URL("/mcp", server.url),
      modernRequest(9, "subscriptions/listen", { notifications: {} }),
    );
    const reader = new SseReader(response);
    assertEquals((await reader.next())?.method, "notifications/subscriptions/acknowledged");
    const closing = server.close();
    assertEquals(await reader.next(), { jsonrpc: "2.0", id: 9, result: { ended: true } });
    assert((await reader.next()) === undefined);
    await closing;
  });

  api.test(
    `serve on ${runtime}: a 64 MiB POST is answered 413, and the client reads the status, not a reset`,
    async () => {
      const server = await serve(createHttpHandler(mcp(), { keepAliveInterval: 0 }));
      try {
        const response = await withTimeout(
          fetch(new URL("/mcp", server.url), {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              Accept: "application/json, text/event-stream",
              "MCP-Protocol-Version": "2025-06-18",
            },
            body: new Uint8Array(64 * 1024 * 1024).fill(0x20),
          }),
          60_000,
          "the answer to a 64 MiB POST",
        );
        assertStrictEquals(response.status, 413);
        const answer = await response.json() as { error: { message: string } };
        assert(/exceeds 4194304 bytes/.test(answer.error.message), answer.error.message);
      } finally {
        await server.close();
      }
    },
    90_000,
  );

  // Issue 25 (the serve reset-on-close race): closing the listening socket resets a connection the
  // kernel completed but the server had not accepted yet. A node process connects and writes its
  // request while this thread is busy (so the runtime cannot accept it); close() comes right after.
  api.test(
    `serve on ${runtime}: answers a connection that completed before close() but was not accepted yet`,
    async () => {
      const server = await serve(() => new Response("ok"));
      const flag = join(tmpdir(), `accept-race-${runtime}-${process.pid}-${Date.now()}`);
      const client = spawn("node", ["-e", RACE_CLIENT, String(server.url.port), flag], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let output = "";
      client.stdout!.setEncoding("utf8").on("data", (text: string) => (output += text));
      const exited = new Promise<void>((resolve) => client.once("exit", () => resolve()));
      // Busy until the client's request is written (a hang guard bounds it; no timing is asserted).
      const giveUp = Date.now() + 20_000;
      while (!existsSync(flag) && Date.now() < giveUp) {
        /* the event loop does not run: nothing is accepted */
      }
      assert(existsSync(flag), "the client never connected");
      const closing = server.close();
      await withTimeout(exited, 20_000, "the client to finish");
      await closing;
      rmSync(flag, { force: true });
      assertStrictEquals(output.split("\r\n")[0], "HTTP/1.1 200 OK");
    },
    60_000,
  );
}

/** Connects to 127.0.0.1:argv[1], writes a GET, touches argv[2] once it is written, prints what came back. */
const RACE_CLIENT = `
const { connect } = require("node:net");
const { writeFileSync } = require("node:fs");
const [port, flag] = process.argv.slice(1);
const socket = connect(Number(port), "127.0.0.1", () => {
  socket.write("GET / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n", () => writeFileSync(flag, "1"));
});
let received = "";
socket.setEncoding("utf8").on("data", (text) => (received += text));
socket.on("error", (error) => (received += "error " + error.code));
socket.on("close", () => process.stdout.write(received));
`;
