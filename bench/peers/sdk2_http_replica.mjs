#!/usr/bin/env node
// One replica of an official SDK 2.4 server (@modelcontextprotocol/server 2.4.0 `createMcpHandler`,
// its defaults) served with node:http, for bench/scaleout.mjs: `node sdk2_http_replica.mjs --http PORT`.
// Tool `test_simple_text` as in the everything server. SIGTERM: `http.Server#close()` (what a user of
// node:http writes), then the handler's close, then exit 0.
import { createServer } from "node:http";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";

const port = Number(process.argv[process.argv.indexOf("--http") + 1]);
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "sdk2-replica", version: "2.4.0" }, { capabilities: { tools: {} } });
  server.registerTool("test_simple_text", { description: "Returns simple text" }, async () => ({
    content: [{ type: "text", text: "This is a simple text response for testing." }],
  }));
  return server;
});

const http = createServer(async (req, res) => {
  try {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    }
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks);
    const response = await handler.fetch(
      new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, {
        method: req.method,
        headers,
        body,
      }),
    );
    res.statusCode = response.status;
    for (const [name, value] of response.headers) res.setHeader(name, value);
    if (response.body) { for await (const chunk of response.body) res.write(chunk); }
    res.end();
  } catch (error) {
    if (!res.headersSent) res.statusCode = 500;
    res.end(String(error));
  }
});
http.keepAliveTimeout = 5_000;
http.listen(port, "127.0.0.1", () => console.error(`sdk2 replica: http://127.0.0.1:${port}/mcp`));
process.once("SIGTERM", () => {
  http.close(async () => {
    await handler.close?.();
    process.exit(0);
  });
});
