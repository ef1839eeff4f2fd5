// @ts-check
// The demo MCP server on this process's stdin/stdout, both eras on one stream.
// Runs unchanged on every runtime after `npm run build`:
//   node examples/demo_server.mjs
//   deno run -A examples/demo_server.mjs
//   bun examples/demo_server.mjs
import { createDemoServer } from "./demo_tools.mjs";

/** The runtime's globals, where they exist. @type {{ Deno?: { exit(code: number): never }, Bun?: unknown }} */
const runtime = /** @type {any} */ (globalThis);
const adapter = runtime.Deno
  ? "onemodelcontext/deno"
  : runtime.Bun
  ? "onemodelcontext/bun"
  : "onemodelcontext/node";
const { stdio } = await import(adapter);
const server = createDemoServer();
await server.serve(stdio());
// stdin ended and every reply was drained (or the bounded drain gave up): leave now.
if (runtime.Deno) runtime.Deno.exit(0);
else process.exit(0);
