/**
 * A TCP proxy on 127.0.0.1 that cuts every connection 2 s after it opened, between our legacy HTTP
 * client and the everything server (`node examples/everything/server.mjs --http 0`, resumability on):
 * `progress_stream` sends 600 progress notifications 10 ms apart, so its response stream breaks
 * several times mid-call; the client resumes each time with GET + Last-Event-ID and sees 600 of 600,
 * in order, no duplicate, then the result.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { Agent, fetch as undiciFetch } from "undici";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { httpTransport } from "../../src/http/client/http_client_transport.ts";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const CUT_AFTER_MS = 2_000;
let server: ChildProcess;
let proxy: Server;
let proxyUrl: string;
let connections = 0;
let cuts = 0;

/** Starts the everything server on a free port; resolves with its port once it serves. */
function startServer(): Promise<number> {
  server = spawn(process.execPath, [join(ROOT, "examples/everything/server.mjs"), "--http", "0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let stderr = "";
    server.stderr!.on("data", (chunk) => {
      stderr += chunk;
      const match = /serving http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    server.once("exit", (code) => reject(new Error(`The everything server exited (${code}): ${stderr}`)));
  });
}

/** A proxy to `port` that destroys both sides of every connection CUT_AFTER_MS after it opened. */
function startProxy(port: number): Promise<string> {
  proxy = createServer((downstream: Socket) => {
    connections++;
    const upstream = connect(port, "127.0.0.1");
    downstream.pipe(upstream);
    upstream.pipe(downstream);
    const cut = setTimeout(() => {
      cuts++;
      downstream.destroy();
      upstream.destroy();
    }, CUT_AFTER_MS);
    const done = () => clearTimeout(cut);
    downstream.once("close", () => {
      done();
      upstream.destroy();
    });
    upstream.once("close", () => {
      done();
      downstream.destroy();
    });
    downstream.on("error", () => {});
    upstream.on("error", () => {});
  });
  return new Promise((resolve) => {
    proxy.listen(0, "127.0.0.1", () => {
      const address = proxy.address() as { port: number };
      resolve(`http://127.0.0.1:${address.port}/mcp`);
    });
  });
}

beforeAll(async () => {
  ensureDist(); // the everything server imports the package's dist/
  proxyUrl = await startProxy(await startServer());
});

afterAll(async () => {
  server?.kill("SIGTERM");
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
});

describe("a legacy call through a proxy that cuts every connection after 2 s", () => {
  it("gets 600 of 600 progress notifications in order, once each, then the result", async () => {
    // One connection per request (no keep-alive), so a cut only ever hits a request in progress.
    const dispatcher = new Agent({ pipelining: 0 });
    const fetch = ((input: string | URL | Request, init?: RequestInit) =>
      undiciFetch(input as string, {
        ...(init as object),
        dispatcher,
      })) as unknown as typeof globalThis.fetch;
    const client = await ContextClient.connect(
      httpTransport(proxyUrl, { fetch, reconnect: { maxAttempts: 5, initialDelay: 100 } }),
      { era: "legacy", eraCache: new EraCache() },
    );
    const progress: number[] = [];
    const result = await client.callTool("progress_stream", { count: 600, intervalMs: 10 }, {
      onProgress: (update) => progress.push(update.progress),
      timeout: 60_000,
    });
    expect(result.content).toEqual([{ type: "text", text: "sent 600" }]);
    expect(progress.length).toBe(600);
    expect(progress).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    expect(cuts).toBeGreaterThanOrEqual(3); // the call's stream really was cut, again and again
    expect(connections).toBeGreaterThan(cuts);
    await client.close();
    await dispatcher.close();
  });

  it("the official SDK client (1.x) resumes the same way: 600 of 600 in order, then the result", async () => {
    const dispatcher = new Agent({ pipelining: 0 });
    const fetch = ((input: string | URL | Request, init?: RequestInit) =>
      undiciFetch(input as string, {
        ...(init as object),
        dispatcher,
      })) as unknown as typeof globalThis.fetch;
    const cutsBefore = cuts;
    const client = new SdkClient({ name: "sdk", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(proxyUrl), {
        fetch,
        reconnectionOptions: {
          initialReconnectionDelay: 100,
          maxReconnectionDelay: 1000,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 5,
        },
      }),
    );
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "progress_stream", arguments: { count: 600, intervalMs: 10 } },
      undefined,
      {
        onprogress: (update) => progress.push(update.progress),
        timeout: 60_000,
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "sent 600" }]);
    expect(progress).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    expect(cuts - cutsBefore).toBeGreaterThanOrEqual(3);
    await client.close();
    await dispatcher.close();
  });
});
