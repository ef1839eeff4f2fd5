// The HTTP benchmark server (bench/http/ours_server.mjs) with OpenTelemetry, for bench/otel.mjs.
// BENCH_OTEL=none: nothing loaded. api: @opentelemetry/api imported, no SDK registered. sdk: the
// stock Node SDK (@opentelemetry/sdk-node) exporting every span and the metrics over OTLP/HTTP JSON
// to OTEL_EXPORTER_OTLP_ENDPOINT (the bench's sink). Prints its URL as the first line of stdout.
// Modes that only explain where the sdk's cost goes (not the figures):
//   ctx: the stock context manager (AsyncLocalStorage) registered and entered once, nothing else:
//        the library takes its untraced path, so this is the context manager's tax on the process
//        (on Node 20 AsyncLocalStorage installs async_hooks, paid by every promise and resource).
//   sdk-notrace: the sdk with OTEL_TRACES_EXPORTER=none (no tracer provider: metrics and the
//        context manager only).
//   sdk-nometrics: the sdk with OTEL_METRICS_EXPORTER=none (spans only).
//   sdk-sampled: the sdk keeping 1 % of the traces (OTEL_TRACES_SAMPLER=parentbased_traceidratio).
//   sdk-drop: the sdk with a trace exporter that drops every batch (spans made and batched, never
//        serialised or sent): what the OTLP export itself costs is sdk minus sdk-drop.
//   base: no NodeSDK; the providers assembled by hand (BasicTracerProvider + BatchSpanProcessor +
//        OTLP/HTTP exporter, MeterProvider + periodic OTLP reader, AsyncLocalStorage, W3C propagator).
// BENCH_OTEL_COUNT=1 counts async resources by type (async_hooks init) and prints them per request
// on stderr at SIGTERM.
import { ContextServer, createHttpHandler } from "onemodelcontext";
import { serve } from "onemodelcontext/node";
import { callTool, TOOLS } from "../peers/tools.mjs";

const mode = process.env.BENCH_OTEL ?? "none";
let sdk;
if (mode === "api") await import("@opentelemetry/api");
if (mode === "ctx") {
  const { context } = await import("@opentelemetry/api");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  context.with(context.active(), () => {}); // as the SDK's first export does: AsyncLocalStorage is on
}
if (mode.startsWith("sdk")) {
  if (mode === "sdk-notrace") process.env.OTEL_TRACES_EXPORTER = "none";
  if (mode === "sdk-nometrics") process.env.OTEL_METRICS_EXPORTER = "none";
  if (mode === "sdk-sampled") {
    process.env.OTEL_TRACES_SAMPLER = "parentbased_traceidratio";
    process.env.OTEL_TRACES_SAMPLER_ARG = "0.01";
  }
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const dropping = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  sdk = new NodeSDK({ instrumentations: [], ...(mode === "sdk-drop" ? { traceExporter: dropping } : {}) });
  sdk.start();
}
if (mode === "base") {
  const { context, metrics, propagation, trace } = await import("@opentelemetry/api");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const { W3CTraceContextPropagator } = await import("@opentelemetry/core");
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
  const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-http");
  const { MeterProvider, PeriodicExportingMetricReader } = await import("@opentelemetry/sdk-metrics");
  const { BasicTracerProvider, BatchSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }))],
    }),
  );
  metrics.setGlobalMeterProvider(
    new MeterProvider({
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: `${endpoint}/v1/metrics` }),
          exportIntervalMillis: 1000,
        }),
      ],
    }),
  );
}
const counts = new Map();
if (process.env.BENCH_OTEL_COUNT === "1") {
  const { createHook } = await import("node:async_hooks");
  createHook({ init: (_id, type) => counts.set(type, (counts.get(type) ?? 0) + 1) }).enable();
}
const server = new ContextServer({ name: "bench-otel-http", version: "1.0.0", capabilities: { tools: {} } });
server.handle("tools/list", () => ({ tools: TOOLS }));
let calls = 0;
server.handle("tools/call", (params) => (calls++, callTool(params)));
const http = await serve(createHttpHandler(server, { path: "/mcp" }), { port: 0, hostname: "127.0.0.1" });
process.stdout.write(`${new URL("/mcp", http.url).href}\n`);
process.once("SIGTERM", () => {
  if (counts.size > 0) {
    const rows = [...counts].sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${(n / calls).toFixed(2)}`);
    process.stderr.write(`async resources per call (${mode}, ${calls} calls): ${rows.join(", ")}\n`);
  }
  void http.close().then(() => sdk?.shutdown()).then(() => process.exit(0));
});
