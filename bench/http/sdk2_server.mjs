// HTTP benchmark server on @modelcontextprotocol/server 2.4: createMcpHandler with the low-level
// Server (the stdio peer's tools), its fetch face served by node:http through a minimal
// IncomingMessage → Request → ServerResponse bridge (bench/http/node_fetch_bridge.mjs, the same
// one the floor uses). Prints its URL as the first line of stdout.
import { createServer } from "node:http";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import { callTool, TOOLS } from "../peers/tools.mjs";
import { bridge } from "./node_fetch_bridge.mjs";

const handler = createMcpHandler(() => {
  const server = new Server({ name: "bench-sdk2-http", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: TOOLS }));
  server.setRequestHandler("tools/call", async (request) => callTool(request.params));
  return server;
});
const http = createServer(bridge((request) => handler.fetch(request)));
http.keepAliveTimeout = 5_000;
http.listen(0, "127.0.0.1", () => process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`));
process.once("SIGTERM", () => http.close(() => process.exit(0)));
