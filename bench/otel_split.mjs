#!/usr/bin/env node
/**
 * Where OpenTelemetry's cost goes on the server, in one process, without HTTP: CPU per
 * `server.dispatch()` of a modern tools/call echo (64 at a time), as the pieces of the stock SDK are
 * registered one after another: nothing; a stub tracer and meter that do nothing (the library's own
 * work: attributes, wrappers, the span's context); a tracer provider whose spans go nowhere (the SDK's span
 * objects, ids, attributes, our span code); + a meter provider (histogram records); + the
 * AsyncLocalStorage context manager (the handler runs in the span's context); + the OTLP/HTTP JSON
 * exporter behind a batch processor, to a sink in this process (serialisation and sending).
 *
 *   npm run build && node bench/otel_split.mjs [--calls=40000]
 */
import { createServer } from "node:http";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { ContextServer } from "onemodelcontext";

const calls = Number(process.argv.find((a) => a.startsWith("--calls="))?.slice(8) ?? 40_000);
const server = new ContextServer({ name: "split", version: "1.0.0", capabilities: { tools: {} } });
server.handle("tools/call", (params) => ({ content: [{ type: "text", text: params.arguments.text }] }));
const message = (id) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: {
    name: "echo",
    arguments: { text: "hello" },
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});
const dispatchContext = { signal: new AbortController().signal, notify: () => Promise.resolve() };

async function measure(label) {
  for (let i = 0; i < 2_000; i++) await server.dispatch(message(i), dispatchContext); // warm up
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i += 64) {
    const batch = [];
    for (let j = 0; j < 64; j++) batch.push(server.dispatch(message(i + j), dispatchContext));
    await Promise.all(batch);
  }
  const used = process.cpuUsage(start);
  const us = (used.user + used.system) / calls;
  console.log(`| ${label} | ${us.toFixed(2)} |`);
  return us;
}

const nowhere = { export: (_spans, done) => done({ code: 0 }), shutdown: () => Promise.resolve() };
console.log("| registered | µs CPU per dispatch |\n|---|---:|");
await measure("nothing (warm-up round)");
await measure("nothing");
// The library's own part: a tracer and a meter that do nothing at all.
const stubSpan = {
  spanContext: () => ({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 }),
  setAttribute: () => {},
  addEvent: () => {},
  setStatus: () => {},
  end: () => {},
  isRecording: () => true,
};
trace.setGlobalTracerProvider({ getTracer: () => ({ startSpan: () => stubSpan }) });
metrics.setGlobalMeterProvider({ getMeter: () => ({ createHistogram: () => ({ record: () => {} }) }) });
await measure("stub tracer and meter (the library's own work)");
trace.disable();
metrics.disable();
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(nowhere)] }),
);
await measure("tracer (spans dropped)");
metrics.setGlobalMeterProvider(new MeterProvider());
await measure("+ meter");
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
await measure("+ context manager, propagator");
let bytes = 0;
const sink = createServer((req, res) =>
  req.on("data", (c) => (bytes += c.length)).on("end", () => res.end("{}"))
);
await new Promise((resolve) => sink.listen(0, "127.0.0.1", resolve));
trace.disable();
const provider = new BasicTracerProvider({
  spanProcessors: [
    new BatchSpanProcessor(
      new OTLPTraceExporter({
        url: `http://127.0.0.1:${sink.address().port}/v1/traces`,
        concurrencyLimit: 10_000,
      }),
      { maxQueueSize: 100_000, maxExportBatchSize: 512, scheduledDelayMillis: 200 },
    ),
  ],
});
trace.setGlobalTracerProvider(provider);
await measure("+ OTLP/HTTP JSON export (batch)");
await provider.shutdown();
sink.close();
