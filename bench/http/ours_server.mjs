// HTTP benchmark server on onemodelcontext: ContextServer (the stdio peer's tools) behind
// createHttpHandler, served by serve() from onemodelcontext/node on 127.0.0.1 and an ephemeral
// port. Prints its URL as the first line of stdout.
import { ContextServer, createHttpHandler } from "onemodelcontext";
import { serve } from "onemodelcontext/node";
import { callTool, TOOLS } from "../peers/tools.mjs";

const server = new ContextServer({ name: "bench-ours-http", version: "1.0.0", capabilities: { tools: {} } });
server.handle("tools/list", () => ({ tools: TOOLS }));
server.handle("tools/call", (params) => callTool(params));
const http = await serve(createHttpHandler(server, { path: "/mcp" }), { port: 0, hostname: "127.0.0.1" });
process.stdout.write(`${new URL("/mcp", http.url).href}\n`);
process.once("SIGTERM", () => void http.close().then(() => process.exit(0)));
