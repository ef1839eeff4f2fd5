/**
 * Trace context across processes: our client (the stock SDK, in memory) → the CLI gateway (no SDK:
 * it passes `params._meta` through) → the everything server on stdio, which starts the OpenTelemetry
 * Node SDK from OTEL_* variables and exports over OTLP/HTTP JSON to a receiver here. One trace, the
 * server's span a child of the client's; metrics exported; every span flushed when the server ends
 * (stdin EOF, and SIGTERM over HTTP).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { SpanKind } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContextClient } from "../../src/client/context_client.ts";
import { httpTransport } from "../../src/http/client/http_client_transport.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { registerOtel } from "../helpers/otel.ts";
import { OtlpReceiver } from "../helpers/otlp_receiver.ts";
import { BIN, EVERYTHING } from "./cli_helpers.ts";

const otel = registerOtel();
const receiver = new OtlpReceiver();
let gateway: ChildProcess;
let gatewayUrl: string;

function otelEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_SERVICE_NAME: "everything-under-test",
    OTEL_METRIC_EXPORT_INTERVAL: "60000",
    OTEL_BSP_SCHEDULE_DELAY: "60000",
    OTEL_LOGS_EXPORTER: "none",
    ...extra,
  };
}

/** Spawns `argv` and resolves with the URL it prints ("serving URL") on stderr. */
async function startServing(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, argv, { env, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      err += d;
      const m = /serving (http:\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`Exited (${code}) before serving: ${err}`)));
  });
  return { child, url };
}

beforeAll(async () => {
  ensureDist();
  await receiver.start();
  ({ child: gateway, url: gatewayUrl } = await startServing(
    [BIN, "serve", "--http", "0", "--", process.execPath, EVERYTHING],
    otelEnv(),
  ));
}, 120_000);

afterAll(async () => {
  if (gateway.exitCode === null) gateway.kill("SIGKILL");
  await receiver.close();
  await otel.shutdown();
});

function clientSpanOf(name: string) {
  const span = otel.spansNamed(name).find((s) => s.kind === SpanKind.CLIENT);
  expect(span).toBeDefined();
  return span!;
}

describe("trace context through the CLI gateway to a stdio server", () => {
  it("legacy: the server's span is a child of the client's, flushed when the session's process ends", async () => {
    const client = await ContextClient.connect(httpTransport(gatewayUrl), { era: "legacy", eraCache: null });
    await client.request("tools/call", { name: "test_simple_text", arguments: {} });
    await client.close(); // DELETE: the session's process gets stdin EOF and flushes its SDK
    const sent = clientSpanOf("tools/call test_simple_text");
    const { traceId, spanId } = sent.spanContext();
    await receiver.until(() => receiver.spans.some((s) => s.traceId === traceId));
    const served = receiver.spans.find((s) => s.traceId === traceId)!;
    expect(served).toMatchObject({
      name: "tools/call test_simple_text",
      kind: 2, // OTLP SPAN_KIND_SERVER
      parentSpanId: spanId,
      service: "everything-under-test",
    });
    expect(served.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "network.transport": "pipe",
      "gen_ai.tool.name": "test_simple_text",
      "mcp.protocol.version": "2025-11-25",
    });
    await receiver.until(() => receiver.metricNames.has("mcp.server.operation.duration"));
    expect(receiver.metricNames).toContain("mcp.server.session.duration");
    expect(receiver.contentTypes).toContain("application/json");
  });
});

describe("the everything server over HTTP with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("exports its spans on SIGTERM, before it exits", async () => {
    otel.spans.reset();
    const { child, url } = await startServing([EVERYTHING, "--http", "0"], otelEnv());
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const client = await ContextClient.connect(httpTransport(url), { era: "modern", eraCache: null });
    await client.request("tools/call", { name: "test_simple_text", arguments: {} });
    const { traceId, spanId } = clientSpanOf("tools/call test_simple_text").spanContext();
    await client.close();
    expect(receiver.spans.some((s) => s.traceId === traceId)).toBe(false); // still buffered (60 s delay)
    child.kill("SIGTERM");
    await exited;
    const served = receiver.spans.find((s) => s.traceId === traceId);
    expect(served).toMatchObject({ parentSpanId: spanId, attributes: { "network.transport": "tcp" } });
  });
});
