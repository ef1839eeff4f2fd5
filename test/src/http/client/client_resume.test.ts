/**
 * The legacy HTTP client resumes a response stream that breaks before its reply (a read error
 * mid-event, a clean end) with GET + Last-Event-ID, against our own handler with resumability; and
 * ends with StreamNotResumedError when the server cannot resume it or attempts run out.
 */
import { describe, expect, it } from "vitest";
import { ContextClient } from "../../../../src/client/context_client.ts";
import { EraCache } from "../../../../src/client/era_cache.ts";
import { StreamBrokenError, StreamNotResumedError } from "../../../../src/http/client/http_client_errors.ts";
import { httpTransport } from "../../../../src/http/client/http_client_transport.ts";
import {
  createHttpHandler,
  type HttpHandlerOptions,
} from "../../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../../src/server/context_server.ts";

function server(count: number) {
  const mcp = new ContextServer({ name: "resume-test", version: "1.0.0" });
  mcp.tool("progress_stream", { description: "progress" }, async (_args, ctx) => {
    for (let n = 1; n <= count; n++) await ctx.sendProgress(n, { total: count });
    return `sent ${count}`;
  });
  return mcp;
}

/** A body that passes `limit` bytes on, then fails (a cut connection, mid-event). */
function cutAfter(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let passed = 0;
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      if (passed + value.byteLength > limit) {
        controller.enqueue(value.slice(0, Math.max(0, limit - passed)));
        void reader.cancel();
        controller.error(new TypeError("terminated: other side closed"));
        return;
      }
      passed += value.byteLength;
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** Our handler as `fetch`, every SSE response (POST and resumed GET) cut after `limit` bytes. */
function cuttingFetch(options: HttpHandlerOptions, count: number, limit: number) {
  const handler = createHttpHandler(server(count), { keepAliveInterval: 0, sessions: true, ...options });
  const seen: { method: string; lastEventId: string | null; status: number }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const response = await handler(request);
    seen.push({
      method: request.method,
      lastEventId: request.headers.get("last-event-id"),
      status: response.status,
    });
    if (response.headers.get("content-type") !== "text/event-stream" || response.body === null) {
      return response;
    }
    if (request.method === "GET" && request.headers.get("last-event-id") === null) return response;
    return new Response(cutAfter(response.body, limit), {
      status: response.status,
      headers: response.headers,
    });
  };
  return { fetch, seen, handler };
}

async function connect(fetch: typeof globalThis.fetch, maxAttempts = 5) {
  return await ContextClient.connect(
    httpTransport("http://127.0.0.1:3000/mcp", { fetch, reconnect: { maxAttempts, initialDelay: 0 } }),
    { era: "legacy", eraCache: new EraCache() },
  );
}

describe("the legacy HTTP client resumes broken response streams", () => {
  it("gets every progress notification once, in order, then the result, across streams cut mid-event", async () => {
    const { fetch, seen } = cuttingFetch({ resumability: { retry: 0 } }, 200, 1500);
    const client = await connect(fetch);
    const progress: number[] = [];
    const result = await client.callTool("progress_stream", {}, {
      onProgress: (p) => progress.push(p.progress),
    });
    expect(result.content).toEqual([{ type: "text", text: "sent 200" }]);
    expect(progress).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const resumes = seen.filter((s) => s.method === "GET" && s.lastEventId !== null);
    expect(resumes.length).toBeGreaterThan(5); // the stream really broke, many times
    expect(resumes.every((s) => s.status === 200)).toBe(true);
    await client.close();
  });

  it("ends with StreamNotResumedError when the server cannot resume (its events were evicted)", async () => {
    // A store of ~3 events: by the time the client resumes, what followed its cursor is gone.
    const { fetch } = cuttingFetch({ resumability: { retry: 0, maxBytes: 3 * 160 } }, 100, 400);
    const client = await connect(fetch);
    const error = await client.callTool("progress_stream", {}, { onProgress: () => {} }).catch((e: unknown) =>
      e
    );
    expect(error).toBeInstanceOf(StreamNotResumedError);
    expect(error).toBeInstanceOf(StreamBrokenError);
    expect((error as StreamNotResumedError).message).toMatch(/could not be resumed/);
    await client.close();
  });

  it("still reports StreamBrokenError (no resume) when the server sends no event ids", async () => {
    const { fetch, seen } = cuttingFetch({}, 50, 400);
    const client = await connect(fetch);
    const error = await client.callTool("progress_stream", {}, { onProgress: () => {} }).catch((e: unknown) =>
      e
    );
    expect(error).toBeInstanceOf(StreamBrokenError);
    expect(error).not.toBeInstanceOf(StreamNotResumedError);
    expect(seen.some((s) => s.lastEventId !== null)).toBe(false);
    await client.close();
  });
});
