// The HTTP benchmark server (bench/http/ours_server.mjs) with OpenTelemetry, for bench/otel.mjs.
// BENCH_OTEL=none: nothing loaded. api: @opentelemetry/api imported, no SDK registered. sdk: the
// stock Node SDK (@opentelemetry/sdk-node) exporting every span and the metrics over OTLP/HTTP JSON
// to OTEL_EXPORTER_OTLP_ENDPOINT (the bench's sink). Prints its URL as the first line of stdout.
import { ContextServer, createHttpHandler } from "onemodelcontext";
import { serve } from "onemodelcontext/node";
import { callTool, TOOLS } from "../peers/tools.mjs";

const mode = process.env.BENCH_OTEL ?? "none";
let sdk;
if (mode === "api") await import("@opentelemetry/api");
if (mode === "sdk") {
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  sdk = new NodeSDK({ instrumentations: [] });
  sdk.start();
}
const server = new ContextServer({ name: "bench-otel-http", version: "1.0.0", capabilities: { tools: {} } });
server.handle("tools/list", () => ({ tools: TOOLS }));
server.handle("tools/call", (params) => callTool(params));
const http = await serve(createHttpHandler(server, { path: "/mcp" }), { port: 0, hostname: "127.0.0.1" });
process.stdout.write(`${new URL("/mcp", http.url).href}\n`);
process.once("SIGTERM", () => void http.close().then(() => sdk?.shutdown()).then(() => process.exit(0)));
