// Our HTTP client against our HTTP server (createHttpHandler + serve from the Node entry), both eras:
// modern, legacy with sessions (a server-to-client request answered by POST, DELETE on close) and
// stateless legacy. One suite, registered twice: the web transport on `fetch` (src/http, as on
// every runtime) and the Node entry's transport on undici's dispatcher (adapters/node/undici_send.ts).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { httpTransport as nodeHttpTransport, serve } from "../../adapters/node.ts";
import { ContextClient, type ContextClientOptions } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { httpTransport as webHttpTransport } from "../../src/http/http_client_transport.ts";
import { createHttpHandler, type HttpHandlerOptions } from "../../src/http/mcp_http_handler.ts";
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
      for (let i = 1; i <= 3; i++) await context.sendProgress(i, 3);
      return { content: [{ type: "text", text: "done" }] };
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
    return handler(request);
  }, { idleCloseDelay: 0 }); // no proxy in front: idle connections end at once on close
  cleanup.push(() => http.close());
  return { url: new URL("/mcp", http.url).href, seen };
}

/** The transport under test: set by each registration of the suite. */
let httpTransport: typeof webHttpTransport = webHttpTransport;

async function connect(url: string, options: ContextClientOptions = {}) {
  const reports: Error[] = [];
  const client = await ContextClient.connect(httpTransport(url), {
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

  it("stateless legacy: era legacy works without a session", async () => {
    const { url, seen } = await start();
    const { client } = await connect(url, { era: "legacy" });
    expect(client.era).toBe("legacy");
    const call = await client.request<CallResult>("tools/call", { name: "echo", arguments: {} });
    expect(call.content[0].text).toBe("legacy");
    expect(seen.some((r) => r.headers.get("mcp-session-id"))).toBe(false);
  });
});
