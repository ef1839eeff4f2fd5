// Benchmark server on onemodelcontext (built dist/): ContextServer with tools/list and tools/call
// handlers over this process's stdio, as the README shows. It exits when serve() resolves (stdin EOF).
import { loadOurs } from "../lib/ours.mjs";
import { MAX_MESSAGE_BYTES } from "../lib/payloads.mjs";
import { callTool, lingerIfAsked, TOOLS } from "./tools.mjs";

const { ContextServer, stdio } = await loadOurs();
const server = new ContextServer({
  name: "bench-ours",
  version: "1.0.0",
  capabilities: { tools: {} },
  connection: { channel: { maxMessageBytes: MAX_MESSAGE_BYTES } },
});
server.handle("tools/list", () => ({ tools: TOOLS }));
server.handle("tools/call", (params) => callTool(params));
lingerIfAsked();
await server.serve(stdio());
