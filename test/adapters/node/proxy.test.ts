/**
 * The Node HTTP client honours HTTP_PROXY / HTTPS_PROXY / NO_PROXY (lower case too): a forward proxy
 * on loopback sees the client's requests (the MCP ones and the OAuth discovery's), and NO_PROXY
 * sends them direct. Only loopback addresses are used.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { envProxyFetch, httpTransport } from "../../../adapters/node/mod.ts";
import { ContextClient } from "../../../src/client/context_client.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import { serve } from "../../../adapters/node/_serve.ts";

const VARIABLES = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"];
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  while (cleanup.length > 0) await cleanup.pop()!();
});

/**
 * A forward proxy on 127.0.0.1: records each absolute-form request (`GET http://…`) and each tunnel
 * (`CONNECT host:port`, what undici's proxy agent opens), and forwards both.
 */
async function forwardProxy(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url!);
    const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = req.url!.split(":");
    const upstream = connect(Number(port), host!, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(() =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    })
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function mcpServer(): Promise<string> {
  const server = new ContextServer({ name: "proxied", version: "1" });
  server.tool("hello", {}, () => "hello");
  const http = await serve(createHttpHandler(server, { path: "/mcp" }), { port: 0, hostname: "127.0.0.1" });
  cleanup.push(async () => {
    await http.close();
    await server.close();
  });
  return new URL("/mcp", http.url).href;
}

function clearProxyVariables(): void {
  for (const name of VARIABLES) delete process.env[name];
}

describe("the Node HTTP client behind a forward proxy", () => {
  for (const name of ["HTTP_PROXY", "http_proxy"]) {
    it(`sends every request through ${name}`, async () => {
      clearProxyVariables();
      const proxy = await forwardProxy();
      const url = await mcpServer();
      process.env[name] = proxy.url;
      const client = await ContextClient.connect(httpTransport(url), { eraCache: null });
      await client.request("tools/call", { name: "hello", arguments: {} });
      await client.close();
      expect(proxy.seen.length).toBeGreaterThanOrEqual(1);
      expect(proxy.seen.every((line) => line === `CONNECT ${new URL(url).host}`)).toBe(true);
    });
  }

  it("goes direct to a host NO_PROXY names", async () => {
    clearProxyVariables();
    const proxy = await forwardProxy();
    const url = await mcpServer();
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = "127.0.0.1";
    const client = await ContextClient.connect(httpTransport(url), { eraCache: null });
    await client.request("tools/list", {});
    await client.close();
    expect(proxy.seen).toEqual([]);
  });

  it("sends OAuth discovery requests (envProxyFetch) through the proxy too", async () => {
    clearProxyVariables();
    const proxy = await forwardProxy();
    const url = await mcpServer();
    process.env.http_proxy = proxy.url;
    const discovery = new URL("/.well-known/oauth-protected-resource/mcp", url).href;
    const answer = await envProxyFetch()(discovery);
    await answer.body?.cancel();
    expect(proxy.seen).toEqual([`CONNECT ${new URL(url).host}`]);
  });

  it("uses the global fetch when no proxy variable is set", async () => {
    clearProxyVariables();
    const proxy = await forwardProxy();
    const url = await mcpServer();
    const client = await ContextClient.connect(httpTransport(url), { eraCache: null });
    await client.request("tools/list", {});
    await client.close();
    expect(proxy.seen).toEqual([]);
  });
});
