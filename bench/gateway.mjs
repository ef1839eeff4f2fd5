#!/usr/bin/env node
/**
 * `node bench/gateway.mjs [--calls=2000] [--warmup=200]`: what a ComposedServer (onemodelcontext/compose)
 * adds per call, and tools/list through a wide composition. Needs dist/ (npm run build).
 *
 * Latency of one `tools/call` (the everything server's test_simple_text), sequential, p50 and p99:
 *  - stdio upstream: our client on the spawned server directly, and on a ComposedServer in this
 *    process (in-memory stream) that mounts the same spawned server;
 *  - HTTP upstream: our client on the server's HTTP endpoint directly, and on a ComposedServer's
 *    HTTP endpoint (127.0.0.1) that mounts that endpoint.
 * Then tools/list through one ComposedServer mounting 10 in-process servers of 100 tools each:
 * mount time, list time (p50, p99 of 50) and response bytes.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ContextClient, ContextServer, createHttpHandler } from "onemodelcontext";
import { ComposedServer, inProcessTransport } from "onemodelcontext/compose";
import { httpTransport, serve, spawnProcess } from "onemodelcontext/node";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const EVERYTHING = join(ROOT, "examples/everything/server.mjs");
const arg = (name, fallback) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const CALLS = arg("calls", 2000);
const WARMUP = arg("warmup", 200);
const log = (text) => process.stderr.write(`${text}\n`);

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function latency(client) {
  const call = () => client.request("tools/call", { name: "test_simple_text", arguments: {} });
  for (let i = 0; i < WARMUP; i++) await call();
  const times = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

const connect = (transport) => ContextClient.connect(transport, { eraCache: null });
const spawnEverything = () => spawnProcess(process.execPath, [EVERYTHING], { stderr: "pipe" });
const rows = [];

// stdio upstream
{
  const direct = await connect(spawnEverything());
  rows.push(["stdio", "direct", direct.era, await latency(direct)]);
  await direct.close();
  const composed = new ComposedServer({ name: "bench", version: "1" });
  await composed.mount("", spawnEverything());
  const via = await connect(inProcessTransport(composed));
  rows.push(["stdio", "through ComposedServer", via.era, await latency(via)]);
  await via.close();
  await composed.close();
}

// HTTP upstream
{
  const { createEverythingServer } = await import(join(ROOT, "examples/everything/everything.mjs"));
  const upstream = createEverythingServer({});
  const upstreamHttp = await serve(createHttpHandler(upstream, { path: "/mcp", sessions: true }), {
    port: 0,
    hostname: "127.0.0.1",
  });
  const upstreamUrl = new URL("/mcp", upstreamHttp.url).href;
  const direct = await connect(httpTransport(upstreamUrl));
  rows.push(["HTTP", "direct", direct.era, await latency(direct)]);
  await direct.close();
  const composed = new ComposedServer({ name: "bench", version: "1" });
  await composed.mount("", httpTransport(upstreamUrl));
  const gatewayHttp = await serve(createHttpHandler(composed, { path: "/mcp", sessions: true }), {
    port: 0,
    hostname: "127.0.0.1",
  });
  const via = await connect(httpTransport(new URL("/mcp", gatewayHttp.url).href));
  rows.push(["HTTP", "through ComposedServer (HTTP both sides)", via.era, await latency(via)]);
  await via.close();
  await gatewayHttp.close();
  await composed.close();
  await upstreamHttp.close();
  await upstream.close();
}

console.log(
  `Per-call latency, tools/call test_simple_text, ${CALLS} sequential calls after ${WARMUP} warm-up\n`,
);
console.log("| upstream | path | era | p50 ms | p99 ms |\n|---|---|---|---:|---:|");
for (const [upstream, path, era, { p50, p99 }] of rows) {
  console.log(`| ${upstream} | ${path} | ${era} | ${p50.toFixed(3)} | ${p99.toFixed(3)} |`);
}
for (const kind of ["stdio", "HTTP"]) {
  const [direct, via] = rows.filter((r) => r[0] === kind);
  log(
    `${kind}: the gateway adds p50 ${(via[3].p50 - direct[3].p50).toFixed(3)} ms, p99 ${
      (via[3].p99 - direct[3].p99).toFixed(3)
    } ms`,
  );
}

// tools/list through 10 mounts of 100 tools
{
  const composed = new ComposedServer({ name: "wide", version: "1" });
  const schema = { type: "object", properties: { text: { type: "string", description: "Some text" } } };
  const started = performance.now();
  await Promise.all(Array.from({ length: 10 }, (_, m) => {
    const server = new ContextServer({ name: `s${m}`, version: "1" });
    for (let t = 0; t < 100; t++) {
      server.tool(`tool_${t}`, { description: `Tool ${t} of server ${m}`, inputSchema: schema }, () => "ok");
    }
    return composed.mount(`s${m}`, server);
  }));
  const mountMs = performance.now() - started;
  const client = await connect(inProcessTransport(composed));
  const times = [];
  let bytes = 0;
  let count = 0;
  for (let i = 0; i < 60; i++) {
    const start = performance.now();
    let cursor;
    let pageBytes = 0;
    let tools = 0;
    do {
      const page = await client.request("tools/list", cursor === undefined ? {} : { cursor });
      pageBytes += JSON.stringify(page).length;
      tools += page.tools.length;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    if (i >= 10) times.push(performance.now() - start);
    bytes = pageBytes;
    count = tools;
  }
  times.sort((a, b) => a - b);
  console.log(
    `\ntools/list through 10 mounts of 100 tools (${client.era}): ${count} tools, ${bytes} bytes of JSON ` +
      `(all pages), p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${
        percentile(times, 99).toFixed(2)
      } ms; ` +
      `mounting all 10 took ${mountMs.toFixed(0)} ms`,
  );
  await client.close();
  await composed.close();
}
process.exit(0);
