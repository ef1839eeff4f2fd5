// The memory bench server of bench/http/features_server.mjs (ContextServer with its feature layer
// behind createHttpHandler + serve), on the built checkout `DIST` (default this one), answering
// lines on stdin: `gc` → "mem <process.memoryUsage() after full GCs>", `snap FILE` → a heap
// snapshot after full GCs, then "snap FILE". Run with --expose-gc. Prints its URL first.
import { createInterface } from "node:readline";
import { writeHeapSnapshot } from "node:v8";

const dist = process.env.DIST ? `file://${process.env.DIST.replace(/\/?$/, "/")}` : undefined;
const { ContextServer, createHttpHandler } = await import(dist ? `${dist}src/mod.js` : "onemodelcontext");
const { serve } = await import(dist ? `${dist}adapters/node/mod.js` : "onemodelcontext/node");
const server = new ContextServer({ name: "bench-ours-features", version: "1.0.0" });
server.tool("echo", { description: "Returns its text argument" }, (args) => String(args?.text));
const http = await serve(
  createHttpHandler(server, { path: "/mcp", maxStreams: Number(process.env.MAX_STREAMS ?? 1000) }),
  { port: 0, hostname: "127.0.0.1" },
);
process.stdout.write(`${new URL("/mcp", http.url).href}\n`);
const fullGc = () => {
  for (let i = 0; i < 4; i++) globalThis.gc();
};
createInterface({ input: process.stdin }).on("line", (line) => {
  const [command, file] = line.split(" ");
  fullGc();
  if (command === "snap") {
    writeHeapSnapshot(file);
    process.stdout.write(`snap ${file}\n`);
  } else {
    process.stdout.write(`mem ${JSON.stringify(process.memoryUsage())}\n`);
  }
});
process.once("SIGTERM", () => void http.close().then(() => process.exit(0)));
