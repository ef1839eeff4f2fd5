#!/usr/bin/env node
// The everything server behind a ComposedServer (onemodelcontext/compose), mounted without a prefix,
// served over Streamable HTTP: what `run.mjs --composed` hands the conformance suite, so every
// scored server scenario also runs through the composing gateway.
//
//   npm run build && node testing/conformance/composed_server.mjs --http 3000
//   node testing/conformance/run.mjs --composed --leg server
//
// The everything server runs as a stdio child (examples/everything/server.mjs), mounted as "".
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHttpHandler } from "onemodelcontext";
import { ComposedServer } from "onemodelcontext/compose";
import { serve, spawnProcess } from "onemodelcontext/node";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const flag = process.argv.indexOf("--http");
const port = Number(process.argv[flag + 1]);
if (flag === -1 || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error("composed_server: --http PORT (0 to 65535) is required");
  process.exit(2);
}
const composed = new ComposedServer({
  name: "onemodelcontext-composed",
  version: "0.1.0",
  onReport: (error) => console.error(`composed_server: ${error.message}`),
});
await composed.mount(
  "",
  spawnProcess(process.execPath, [join(ROOT, "examples/everything/server.mjs")], { stderr: "inherit" }),
);
const http = await serve(createHttpHandler(composed, { path: "/mcp", sessions: true }), {
  port,
  hostname: "127.0.0.1",
});
console.error(`composed_server: serving ${new URL("/mcp", http.url).href}`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await http.close();
  await composed.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
