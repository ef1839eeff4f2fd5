#!/usr/bin/env node
// The "everything" MCP server: every tool, resource, resource template and prompt that the MCP
// conformance suite's server scenarios call (@modelcontextprotocol/conformance; names and behaviours
// from its examples/servers/typescript/everything-server.ts), built only on the public API, both
// protocol eras, on stdio or on Streamable HTTP.
//
//   npm run build && node examples/everything/server.mjs              # stdio
//   npm run build && node examples/everything/server.mjs --http 3000  # http://127.0.0.1:3000/mcp
//
// Over HTTP: legacy sessions on (Mcp-Session-Id, GET stream, server-to-client requests over SSE), the
// modern era stateless; SIGTERM (or SIGINT) closes gracefully: no new requests, listen streams end
// with their result, requests in flight get 5 s. ONEMODELCONTEXT_STATE_KEY (64 hex characters), when
// set, is the key of the request state of input-required rounds.
//
// The tools and prompt that ask the client (elicitation, sampling, roots; input_required in 2026-07-28)
// are in ./input_tools.mjs.
// test_reconnection closes no SSE stream (no resumable streams).
import { createHttpHandler } from "onemodelcontext";
import { serve, stdio } from "onemodelcontext/node";
import { createEverythingServer } from "./everything.mjs";

const stateKey = process.env.ONEMODELCONTEXT_STATE_KEY;
if (stateKey !== undefined && !/^[0-9a-fA-F]{64}$/.test(stateKey)) {
  console.error("everything: ONEMODELCONTEXT_STATE_KEY must be 64 hex characters (32 bytes)");
  process.exit(2);
}
const server = createEverythingServer({ stateKey });

const flag = process.argv.indexOf("--http");
if (flag === -1) {
  await server.serve(stdio());
  // stdin ended and every reply was drained (or the bounded drain gave up): leave now.
  process.exit(0);
}

const port = Number(process.argv[flag + 1]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`everything: --http needs a port from 0 to 65535, got ${JSON.stringify(process.argv[flag + 1] ?? null)}`);
  process.exit(2);
}
const http = await serve(createHttpHandler(server, { path: "/mcp", sessions: true }), { port, hostname: "127.0.0.1" });
console.error(`everything: serving ${new URL("/mcp", http.url).href}`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await http.close();
  await server.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
