// Benchmark server on @modelcontextprotocol/server 2.4 (both eras): the low-level Server with
// tools/list and tools/call handlers, served by serveStdio as its README shows.
import { Server } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { MAX_MESSAGE_BYTES } from "../lib/payloads.mjs";
import { callTool, lingerIfAsked, TOOLS } from "./tools.mjs";

serveStdio(
  () => {
    const server = new Server({ name: "bench-sdk2", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async () => ({ tools: TOOLS }));
    server.setRequestHandler("tools/call", async (request) => callTool(request.params));
    return server;
  },
  {
    transport: new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES }),
  },
);
lingerIfAsked();
