// Benchmark server on @modelcontextprotocol/sdk 1.32 (legacy era): the low-level Server with
// tools/list and tools/call handlers over StdioServerTransport, as its README shows.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { MAX_MESSAGE_BYTES } from "../lib/payloads.mjs";
import { callTool, lingerIfAsked, TOOLS } from "./tools.mjs";

const server = new Server({ name: "bench-sdk1", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(request.params));
await server.connect(
  new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES }),
);
lingerIfAsked();
