// Our HTTP client (ContextClient.connect(httpTransport(url))) against the official SDK HTTP servers,
// served in process on 127.0.0.1 by node:http: @modelcontextprotocol/server@2.4.0 createMcpHandler
// (modern, and its stateless legacy fallback) and @modelcontextprotocol/sdk@1.32.2
// StreamableHTTPServerTransport (sessionful and stateless).
import { afterEach, describe, expect, it } from "vitest";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { httpTransport } from "../../src/http/client/http_client_transport.ts";
import {
  serveSdk1Sessionful,
  serveSdk1Stateless,
  serveSdk2,
} from "../fixtures/sdk/http_peers/sdk_http_servers.ts";

type ToolList = { tools: Array<{ name: string }> };
type CallResult = { content: Array<{ type: string; text: string }> };

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function connect(url: string, options: Parameters<typeof ContextClient.connect>[1] = {}) {
  const reports: Error[] = [];
  const client = await ContextClient.connect(httpTransport(url), {
    clientInfo: { name: "interop-http", version: "1.0.0" },
    eraCache: new EraCache(),
    onReport: (e) => reports.push(e),
    ...options,
  });
  cleanup.push(() => client.close());
  return { client, reports };
}

async function progressCall(client: ContextClient) {
  const notes: Array<[string, unknown]> = [];
  const result = await client.request<CallResult>("tools/call", {
    name: "progress",
    arguments: {},
    _meta: { progressToken: "p1" },
  }, {
    onNotification: (method, params) => notes.push([method, params]),
  });
  return { result, notes };
}

describe("HTTP client against SDK 2.4 createMcpHandler", () => {
  it("auto: discovers the modern era with server/discover, and a second connect uses the cache", async () => {
    const server = await serveSdk2();
    cleanup.push(() => server.close());
    const eraCache = new EraCache();
    const { client } = await connect(server.url, { eraCache });
    expect(client.era).toBe("modern");
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(client.serverInfo).toMatchObject({ name: "sdk2-http", version: "2.4.0" });
    expect(client.negotiation).toMatchObject({ outcome: "discovered_modern", probes: 1, learned: "modern" });
    expect(eraCache.get(`${server.origin}/mcp`)).toMatchObject({
      era: "modern",
      protocolVersion: "2026-07-28",
    });
    const again = await connect(server.url, { eraCache });
    expect(again.client.negotiation).toMatchObject({ outcome: "cached_modern", fromCache: true });
  });

  it("modern: headers derived from the body, Mcp-Param-Region from the x-mcp-header annotation, progress over SSE", async () => {
    const server = await serveSdk2();
    cleanup.push(() => server.close());
    const { client } = await connect(server.url);
    const list = await client.request<ToolList>("tools/list", {});
    expect(list.tools.map((t) => t.name)).toEqual(["echo", "progress"]);
    const call = await client.request<CallResult>("tools/call", {
      name: "echo",
      arguments: { text: "hi", region: "eu west" },
    });
    expect(call.content[0].text).toBe("echo hi eu west");
    const sent = server.seen.at(-1)!;
    expect(sent.get("mcp-protocol-version")).toBe("2026-07-28");
    expect(sent.get("mcp-method")).toBe("tools/call");
    expect(sent.get("mcp-name")).toBe("echo");
    expect(sent.get("mcp-param-region")).toBe("eu west");
    const { result, notes } = await progressCall(client);
    expect(result.content[0].text).toBe("done");
    expect(notes.map(([, p]) => (p as { progress: number }).progress)).toEqual([1, 2]);
  });

  it("legacy: the stateless legacy fallback serves initialize and later requests", async () => {
    const server = await serveSdk2();
    cleanup.push(() => server.close());
    const { client, reports } = await connect(server.url, { era: "legacy" });
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect((await client.request<ToolList>("tools/list", {})).tools).toHaveLength(2);
    expect((await progressCall(client)).notes).toHaveLength(2);
    expect(reports).toEqual([]);
  });

  it("cancellation aborts the request with the signal's reason", async () => {
    const server = await serveSdk2();
    cleanup.push(() => server.close());
    const { client } = await connect(server.url);
    const controller = new AbortController();
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(client.request("tools/list", {}, { signal: controller.signal })).rejects.toBe(reason);
  });
});

describe("HTTP client against SDK 1.32 StreamableHTTPServerTransport, sessionful", () => {
  it("auto: legacy after the probe's 400 -32000; session kept, server-to-client request answered by POST, DELETE on close", async () => {
    const server = await serveSdk1Sessionful();
    cleanup.push(() => server.close());
    const { client, reports } = await connect(server.url);
    expect(client.era).toBe("legacy");
    expect(client.negotiation).toMatchObject({ outcome: "fallback_rpc_error", probes: 1 });
    expect(client.negotiation.detail).toMatch(/HTTP 400.*-32000/);
    expect(client.serverInfo).toMatchObject({ name: "sdk1-http", version: "1.32.2" });
    expect(server.sessions.size).toBe(1);
    client.handle("roots/list", () => ({ roots: [{ uri: "file:///work" }] }));
    const asked = await client.request<CallResult>("tools/call", { name: "ask", arguments: {} });
    expect(asked.content[0].text).toBe("roots file:///work");
    expect((await progressCall(client)).notes).toHaveLength(2);
    await client.close();
    expect(server.methods).toContain("DELETE");
    expect(server.sessions.size).toBe(0);
    expect(reports).toEqual([]);
  });

  it("the GET stream delivers server-initiated notifications", async () => {
    const server = await serveSdk1Sessionful();
    cleanup.push(() => server.close());
    const { client } = await connect(server.url, { era: "legacy" });
    let received = 0;
    client.onNotification("notifications/tools/list_changed", () => void received++);
    // The GET stream opens in the background after initialize: notify until one arrives through it.
    for (let i = 0; i < 400 && received === 0; i++) {
      void [...server.servers.values()][0]?.sendToolListChanged();
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(received).toBeGreaterThan(0);
    expect(server.methods).toContain("GET");
  });

  it("re-initializes when the server forgot the session (404) and sends the request again", async () => {
    const server = await serveSdk1Sessionful();
    cleanup.push(() => server.close());
    const { client, reports } = await connect(server.url, { era: "legacy" });
    const before = [...server.sessions.keys()];
    server.sessions.clear();
    expect((await client.request<ToolList>("tools/list", {})).tools.length).toBeGreaterThan(0);
    expect([...server.sessions.keys()]).not.toEqual(before);
    expect(server.sessions.size).toBe(1);
    expect(reports.map((e) => e.message).join("\n")).toMatch(/404.*initializing again/);
  });
});

describe("HTTP client against SDK 1.32 StreamableHTTPServerTransport, stateless", () => {
  it("auto: legacy; requests and progress work without a session, and close sends no DELETE", async () => {
    const server = await serveSdk1Stateless();
    cleanup.push(() => server.close());
    const { client, reports } = await connect(server.url);
    expect(client.era).toBe("legacy");
    expect(client.negotiation.outcome).toBe("fallback_rpc_error");
    const call = await client.request<CallResult>("tools/call", { name: "echo", arguments: { text: "x" } });
    expect(call.content[0].text).toBe("echo x");
    expect((await progressCall(client)).notes).toHaveLength(2);
    await client.close();
    expect(reports).toEqual([]);
  });
});
