// Our client against the official SDK 1.32 SSEServerTransport (the deprecated HTTP+SSE transport,
// 2024-11-05): detected by httpTransport (a 4xx to Streamable HTTP, then GET for the endpoint event,
// as the spec's backwards-compatibility section says), or asked for with transport: "sse"; the CLI
// reaches it with --url. Bounds: the endpoint must be same-origin, events are capped.
import { afterEach, describe, expect, it } from "vitest";
import { ContextClient } from "../../src/client/context_client.ts";
import { httpTransport } from "../../src/http/client/http_client_transport.ts";
import { serveSdkSse } from "../fixtures/sdk/http_peers/sdk_sse_server.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { CliChild } from "../node/cli_helpers.ts";

type CallResult = { content: Array<{ type: string; text: string }> };

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function sdkSse() {
  const server = await serveSdkSse();
  cleanup.push(() => server.close());
  return server;
}

/** A fetch that answers GET with an SSE body of `events` (text) and records the URLs asked for. */
function fakeSse(events: string) {
  const asked: string[] = [];
  const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    asked.push(`${init?.method ?? "GET"} ${String(input)}`);
    if ((init?.method ?? "GET") !== "GET") return Promise.resolve(new Response("no", { status: 404 }));
    return Promise.resolve(
      new Response(events, { status: 200, headers: { "content-type": "text/event-stream" } }),
    );
  };
  return { fetch, asked };
}

describe("the legacy HTTP+SSE transport (SDK 1.32 SSEServerTransport)", () => {
  it("is detected by httpTransport: Streamable HTTP gets 404, then GET finds the endpoint", async () => {
    const server = await sdkSse();
    const client = await ContextClient.connect(httpTransport(server.url), { eraCache: null });
    cleanup.push(() => client.close());
    expect(client.era).toBe("legacy");
    expect(client.serverInfo?.name).toBe("sdk1-sse");
    expect(client.negotiation.detail).toMatch(/HTTP\+SSE.*\/messages\?sessionId=/);
    const result = await client.request("tools/call", {
      name: "echo",
      arguments: { text: "hi" },
    }) as CallResult;
    expect(result.content[0]!.text).toBe("echo hi");
    expect(server.requests).toContain("GET /sse");
    expect(server.requests.filter((r) => r === "POST /messages").length).toBeGreaterThanOrEqual(3);
  });

  it('is used directly with transport: "sse", and never with "streamable-http"', async () => {
    const server = await sdkSse();
    const client = await ContextClient.connect(httpTransport(server.url, { transport: "sse" }), {
      eraCache: null,
    });
    cleanup.push(() => client.close());
    expect(server.requests[0]).toBe("GET /sse"); // no Streamable HTTP attempt first
    expect((await client.request("tools/list", {}) as { tools: unknown[] }).tools).toHaveLength(1);
    const refused = await ContextClient.connect(httpTransport(server.url, { transport: "streamable-http" }), {
      eraCache: null,
    }).catch((e) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(() => httpTransport(server.url, { transport: "ws" as never })).toThrow(/transport must be/);
  });

  it("refuses an endpoint event of another origin, without posting there", async () => {
    const { fetch, asked } = fakeSse("event: endpoint\ndata: http://evil.example/messages\n\n");
    const error = await ContextClient.connect(
      httpTransport("http://127.0.0.1:9/sse", { fetch, transport: "sse" }),
      { eraCache: null },
    ).catch((e) => e);
    expect(error.message).toMatch(/another origin/);
    expect(asked).toEqual(["GET http://127.0.0.1:9/sse"]);
  });

  it("caps events: one over maxEventBytes fails, one at the cap is read", async () => {
    const endpoint = "event: endpoint\ndata: /messages?sessionId=1\n\n";
    const big = (n: number) => `event: message\ndata: ${"x".repeat(n)}\n\n`;
    const over = fakeSse(`${endpoint.replace("/messages?sessionId=1", `/m${"y".repeat(100)}`)}`);
    const error = await ContextClient.connect(
      httpTransport("http://127.0.0.1:9/sse", { fetch: over.fetch, transport: "sse", maxEventBytes: 50 }),
      { eraCache: null, connectTimeout: 5_000 },
    ).catch((e) => e);
    expect(error.message).toMatch(/50|too large|exceeds/i);
    // At the cap: the endpoint event (21 bytes of data) passes with maxEventBytes 21.
    const at = fakeSse(endpoint + big(10));
    const held = await ContextClient.connect(
      httpTransport("http://127.0.0.1:9/sse", { fetch: at.fetch, transport: "sse", maxEventBytes: 21 }),
      { eraCache: null, connectTimeout: 5_000 },
    ).catch((e) => e);
    expect(at.asked[1]).toBe("POST http://127.0.0.1:9/messages?sessionId=1"); // got past the endpoint
    expect(held).toBeInstanceOf(Error); // the fake answers the POST 404
  });

  it("is reached by the CLI with --url", async () => {
    ensureDist();
    const server = await sdkSse();
    const call = new CliChild(["call", "echo", "text=cli", "-q", "--url", server.url]);
    expect(await call.exited).toBe(0);
    expect(call.stdout).toContain("echo cli");
  });
});
