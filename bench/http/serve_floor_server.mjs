// The serve() floor: the same work as floor_server.mjs (JSON.parse the POST body, answer the echo
// tool's result as JSON) as a web fetch handler behind onemodelcontext's Node serve(): what the
// node:http ↔ Request/Response bridge costs on its own, without MCP. Prints its URL first.
import { serve } from "onemodelcontext/node";
import { callTool } from "../peers/tools.mjs";

const http = await serve(async (request) => {
  const message = JSON.parse(await request.text());
  const body = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: callTool(message.params) });
  return new Response(body, { headers: { "Content-Type": "application/json" } });
}, { port: 0, hostname: "127.0.0.1" });
process.stdout.write(`${new URL("/mcp", http.url).href}\n`);
process.once("SIGTERM", () => void http.close().then(() => process.exit(0)));
