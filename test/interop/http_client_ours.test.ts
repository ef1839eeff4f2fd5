// Our HTTP client against our HTTP server (createHttpHandler + serve from the Node entry), both eras:
// modern, legacy with sessions (a server-to-client request answered by POST, DELETE on close) and
// stateless legacy. One suite, registered twice: the web transport on `fetch` (src/http, as on
// every runtime) and the Node entry's transport on undici's dispatcher (adapters/node/_undici_send.ts).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { httpTransport as nodeHttpTransport, serve } from "../../adapters/node/mod.ts";
import { ContextClient, type ContextClientOptions } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { httpTransport as webHttpTransport } from "../../src/http/client/http_client_transport.ts";
import { createHttpHandler, type HttpHandlerOptions } from "../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../src/server/context_server.ts";

const TOOLS = [
  {
    name: "echo",
    inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
  },
  {
    name: "broken",
    inputSchema: { type: "object", properties: { o: { type: "object", "x-mcp-header": "O" } } },
  },
];

function server(): ContextServer {
  const mcp = new ContextServer({ name: "ours-http", version: "1.0.0", capabilities: { tools: {} } });
  mcp.handle("tools/list", () => ({ tools: TOOLS }));
  mcp.handle("tools/call", async (params: { name: string; arguments?: { region?: string } }, context) => {
    if (params.name === "progress") {
      for (let i = 1; i <= 3; i++) await context.sendProgress(i, { total: 3 });
      return { content: [{ type: "text", text: "done" }] };
    }
    if (params.name === "big-progress") {
      await context.sendProgress(1, { total: 1, message: "p".repeat(8192) });
      return { content: [{ type: "text", text: "done" }] };
    }
    if (params.name === "wait") {
      const signal = context.signal;
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      return { content: [{ type: "text", text: "cancelled" }] };
    }
    if (params.name === "sample") {
      const answer = (await context.request("sampling/createMessage", { messages: [], maxTokens: 5 })) as {
        model: string;
      };
      return { content: [{ type: "text", text: `sampled ${answer.model}` }] };
    }
    return { content: [{ type: "text", text: `${context.era} ${params.arguments?.region ?? ""}`.trim() }] };
  });
  return mcp;
}

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function start(options: HttpHandlerOptions = {}) {
  const seen: Request[] = [];
  const handler = createHttpHandler(server(), { path: "/mcp", keepAliveInterval: 0, ...options });
  const http = await serve((request) => {
    seen.push(request);
    const { pathname } = new URL(request.url);
    // A moved endpoint: /old and /hop redirect (307 keeps the POST and its body) to /mcp.
    if (pathname === "/old") return new Response(null, { status: 307, headers: { Location: "/mcp" } });
    if (pathname === "/hop") return new Response(null, { status: 308, headers: { Location: "/old" } });
    // /chain/N takes N redirects to reach /mcp.
    const chain = /^\/chain\/(\d+)$/.exec(pathname);
    if (chain) {
      const left = Number(chain[1]) - 1;
      return new Response(null, {
        status: 307,
        headers: { Location: left === 0 ? "/mcp" : `/chain/${left}` },
      });
    }
    return handler(request);
  }, { idleCloseDelay: 0 }); // no proxy in front: idle connections end at once on close
  cleanup.push(() => http.close());
  return { url: new URL("/mcp", http.url).href, base: http.url, seen };
}

/** The transport under test: set by each registration of the suite. */
let httpTransport: typeof webHttpTransport = webHttpTransport;

async function connect(
  url: string,
  options: ContextClientOptions = {},
  transportOptions: Parameters<typeof webHttpTransport>[1] = {},
) {
  const reports: Error[] = [];
  const client = await ContextClient.connect(httpTransport(url, transportOptions), {
    eraCache: new EraCache(),
    onReport: (e) => reports.push(e),
    ...options,
  });
  cleanup.push(() => client.close());
  return { client, reports };
}

type CallResult = { content: Array<{ text: string }> };

const SENDERS = [
  { sender: "fetch", transport: webHttpTransport },
  { sender: "undici", transport: nodeHttpTransport },
] as const;

describe.each(SENDERS)("our HTTP client ($sender) against our HTTP server", ({ transport }) => {
  beforeEach(() => {
    httpTransport = transport;
  });

  it("modern: discovered, invalid tools dropped, Mcp-Param-Region sent and accepted, progress over SSE", async () => {
    const { url, seen } = await start();
    const { client, reports } = await connect(url);
    expect(client.era).toBe("modern");
    expect(client.negotiation.outcome).toBe("discovered_modern");
    expect(client.serverInfo).toMatchObject({ name: "ours-http" });
    const list = await client.request<{ tools: Array<{ name: string }> }>("tools/list", {});
    expect(list.tools.map((t) => t.name)).toEqual(["echo"]);
    expect(reports.map((e) => e.message)).toEqual([expect.stringMatching(/Dropped tool "broken"/)]);
    const call = await client.request<CallResult>("tools/call", {
      name: "echo",
      arguments: { region: "eu-west" },
    });
    expect(call.content[0].text).toBe("modern eu-west");
    expect(seen.at(-1)!.headers.get("mcp-param-region")).toBe("eu-west");
    const progress: number[] = [];
    await client.request("tools/call", { name: "progress", arguments: {}, _meta: { progressToken: "p" } }, {
      onNotification: (_m, p) => void progress.push((p as { progress: number }).progress),
    });
    expect(progress).toEqual([1, 2, 3]);
  });

  it("legacy with sessions: a server-to-client request is answered by POST, and close ends the session with DELETE", async () => {
    const { url, seen } = await start({ sessions: true });
    const { client } = await connect(url, { era: "legacy", capabilities: { sampling: {} } });
    client.handle(
      "sampling/createMessage",
      () => ({ role: "assistant", content: { type: "text", text: "hi" }, model: "m1" }),
    );
    const call = await client.request<CallResult>("tools/call", { name: "sample", arguments: {} });
    expect(call.content[0].text).toBe("sampled m1");
    const session = seen.find((r) => r.headers.get("mcp-session-id"))!.headers.get("mcp-session-id");
    expect(session).toBeTruthy();
    await client.close();
    const del = seen.find((r) => r.method === "DELETE")!;
    expect(del.headers.get("mcp-session-id")).toBe(session);
  });

  it("an SSE event over maxEventBytes fails the request (typed), an event under it passes", async () => {
    const { url } = await start();
    const { client } = await connect(url, {}, { maxEventBytes: 4096 });
    const big = { name: "big-progress", arguments: {}, _meta: { progressToken: "p" } };
    const error = await client.request("tools/call", big).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).cause ?? error)).toMatch(/4096/);
    const roomy = await connect(url, {}, { maxEventBytes: 64 * 1024 });
    expect((await roomy.client.request<CallResult>("tools/call", big)).content[0].text).toBe("done");
  });

  it("aborting a request rejects it with the signal's reason, and the client goes on", async () => {
    const { url } = await start();
    const { client } = await connect(url);
    const abort = new AbortController();
    const waiting = client.request("tools/call", { name: "wait", arguments: {} }, { signal: abort.signal });
    abort.abort(new Error("enough waiting"));
    await expect(waiting).rejects.toThrow("enough waiting");
    const call = await client.request<CallResult>("tools/call", { name: "echo", arguments: {} });
    expect(call.content[0].text).toBe("modern");
  });

  it("follows redirects (308 then 307, the POST kept) to the moved endpoint, as fetch does", async () => {
    const { base, seen } = await start();
    const { client } = await connect(new URL("/hop", base).href);
    expect(client.era).toBe("modern");
    const call = await client.request<CallResult>("tools/call", { name: "echo", arguments: {} });
    expect(call.content[0].text).toBe("modern");
    expect(seen.filter((r) => new URL(r.url).pathname === "/hop").length).toBeGreaterThan(0);
  });

  it("stateless legacy: era legacy works without a session", async () => {
    const { url, seen } = await start();
    const { client } = await connect(url, { era: "legacy" });
    expect(client.era).toBe("legacy");
    const call = await client.request<CallResult>("tools/call", { name: "echo", arguments: {} });
    expect(call.content[0].text).toBe("legacy");
    expect(seen.some((r) => r.headers.get("mcp-session-id"))).toBe(false);
  });
});

describe("the Node entry's transport on undici: its own options", () => {
  it("maxRedirections: 0 follows no redirect (connect fails with the 307), 1 follows one hop but not two", async () => {
    const { base } = await start();
    const connectOver = (path: string, maxRedirections: number) =>
      ContextClient.connect(nodeHttpTransport(new URL(path, base).href, { maxRedirections }), {
        eraCache: new EraCache(),
      });
    await expect(connectOver("/old", 0)).rejects.toThrow(/307/);
    const one = await connectOver("/old", 1);
    cleanup.push(() => one.close());
    expect(one.era).toBe("modern");
    await expect(connectOver("/hop", 1)).rejects.toThrow(/307|308/);
  });

  it("follows 20 redirects by default (fetch's limit), not 21", async () => {
    const { base } = await start();
    const connectOver = (path: string) =>
      ContextClient.connect(nodeHttpTransport(new URL(path, base).href), { eraCache: new EraCache() });
    const twenty = await connectOver("/chain/20");
    cleanup.push(() => twenty.close());
    expect(twenty.era).toBe("modern");
    await expect(connectOver("/chain/21")).rejects.toThrow(/307/);
  });

  it("refuses a maxRedirections that is not a whole number ≥ 0, and a dispatcher that is not one", () => {
    expect(() => nodeHttpTransport("http://127.0.0.1:1/mcp", { maxRedirections: -1 })).toThrow(
      /maxRedirections/,
    );
    expect(() => nodeHttpTransport("http://127.0.0.1:1/mcp", { maxRedirections: 1.5 })).toThrow(
      /maxRedirections/,
    );
    expect(() => nodeHttpTransport("http://127.0.0.1:1/mcp", { dispatcher: {} as never })).toThrow(
      /dispatcher/,
    );
  });
});
