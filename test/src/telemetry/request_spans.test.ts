/**
 * Spans and duration histograms of ContextServer and ContextClient under the stock OpenTelemetry SDK
 * (in-memory exporters), both eras, over a stream (`pipe`) and over HTTP (`tcp`).
 */
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ContextClient } from "../../../src/client/context_client.ts";
import { httpTransport } from "../../../src/http/client/http_client_transport.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import { ContextServer, type ContextServerOptions } from "../../../src/server/context_server.ts";
import { JsonRpcError } from "../../../src/wire/errors.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { registerOtel } from "../../helpers/otel.ts";

const otel = registerOtel();
afterEach(() => otel.reset());
afterAll(() => otel.shutdown());

function makeServer(options: Partial<ContextServerOptions> = {}) {
  const server = new ContextServer({
    name: "traced",
    version: "1.0.0",
    capabilities: { tools: {} },
    ...options,
  });
  server.handle("tools/call", async (params: { name: string; arguments?: { progress?: number } }, ctx) => {
    if (params.name === "fail") throw new JsonRpcError(-32050, "Refused");
    for (let i = 0; i < (params.arguments?.progress ?? 0); i++) await ctx.sendProgress(i + 1, { total: 100 });
    return params.name === "broken"
      ? { content: [{ type: "text", text: "bad" }], isError: true }
      : { content: [{ type: "text", text: "ok" }] };
  });
  return server;
}

type Era = "legacy" | "modern";
type Net = "pipe" | "tcp";

async function connect(server: ContextServer, era: Era, net: Net): Promise<ContextClient> {
  if (net === "pipe") {
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);
    return ContextClient.connect(clientSide, { era, eraCache: null });
  }
  const handler = createHttpHandler(server, { keepAliveInterval: 0, sessions: true });
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => handler(new Request(input, init));
  return ContextClient.connect(httpTransport("http://127.0.0.1/mcp", { fetch }), { era, eraCache: null });
}

const VERSIONS = { legacy: "2025-11-25", modern: "2026-07-28" };

describe("request spans and metrics", () => {
  for (const net of ["pipe", "tcp"] as const) {
    for (const era of ["legacy", "modern"] as const) {
      it(`a tools/call over ${net} (${era}): CLIENT and SERVER spans in one trace, the conventions' attributes, both histograms`, async () => {
        const server = makeServer();
        const client = await connect(server, era, net);
        otel.spans.reset();
        await client.request("tools/call", { name: "echo", arguments: {} });
        const [serverSpan] = otel.spansNamed("tools/call echo").filter((s) => s.kind === SpanKind.SERVER);
        const [clientSpan] = otel.spansNamed("tools/call echo").filter((s) => s.kind === SpanKind.CLIENT);
        expect(serverSpan).toBeDefined();
        expect(clientSpan).toBeDefined();
        expect(serverSpan!.spanContext().traceId).toBe(clientSpan!.spanContext().traceId);
        expect(serverSpan!.parentSpanContext?.spanId).toBe(clientSpan!.spanContext().spanId);
        expect(serverSpan!.attributes).toMatchObject({
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": "echo",
          "gen_ai.operation.name": "execute_tool",
          "network.transport": net,
          "mcp.protocol.version": VERSIONS[era],
        });
        expect(typeof serverSpan!.attributes["jsonrpc.request.id"]).toBe("string");
        if (net === "tcp" && era === "legacy") {
          expect(typeof serverSpan!.attributes["mcp.session.id"]).toBe("string");
        } else expect(serverSpan!.attributes["mcp.session.id"]).toBeUndefined();
        expect(clientSpan!.attributes).toMatchObject({
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": "echo",
          "network.transport": net,
          "mcp.protocol.version": VERSIONS[era],
        });
        expect(serverSpan!.status.code).not.toBe(SpanStatusCode.ERROR);
        for (const name of ["mcp.server.operation.duration", "mcp.client.operation.duration"]) {
          const points = await otel.histogram(name);
          const call = points.find((p) => p.attributes["mcp.method.name"] === "tools/call");
          expect(call?.value.count, name).toBe(1);
          expect(call?.attributes).toMatchObject({ "network.transport": net, "gen_ai.tool.name": "echo" });
        }
        await client.close();
        await server.close();
      });
    }
  }

  it("records a JSON-RPC error and a tool error as error.type, with an error status", async () => {
    const server = makeServer();
    const client = await connect(server, "modern", "pipe");
    await expect(client.request("tools/call", { name: "fail", arguments: {} })).rejects.toThrow("Refused");
    await client.request("tools/call", { name: "broken", arguments: {} });
    for (const kind of [SpanKind.SERVER, SpanKind.CLIENT]) {
      const failed = otel.spansNamed("tools/call fail").find((s) => s.kind === kind)!;
      expect(failed.attributes["error.type"]).toBe("-32050");
      expect(failed.attributes["rpc.response.status_code"]).toBe("-32050");
      expect(failed.status.code).toBe(SpanStatusCode.ERROR);
      const broken = otel.spansNamed("tools/call broken").find((s) => s.kind === kind)!;
      expect(broken.attributes["error.type"]).toBe("tool_error");
      expect(broken.status.code).toBe(SpanStatusCode.ERROR);
    }
    const points = await otel.histogram("mcp.server.operation.duration");
    expect(points.find((p) => p.attributes["error.type"] === "-32050")?.value.count).toBe(1);
    await client.close();
  });

  it("records progress notifications as span events up to maxSpanEvents, counting the rest", async () => {
    const server = makeServer({ telemetry: { maxSpanEvents: 2 } });
    const client = await connect(server, "legacy", "pipe");
    const seen: string[] = [];
    await client.request(
      "tools/call",
      { name: "chatty", arguments: { progress: 5 }, _meta: { progressToken: "p" } },
      { onNotification: (method) => void seen.push(method) },
    );
    expect(seen).toHaveLength(5);
    const span = otel.spansNamed("tools/call chatty").find((s) => s.kind === SpanKind.SERVER)!;
    const sent = otel.spansNamed("tools/call chatty").find((s) => s.kind === SpanKind.CLIENT)!;
    expect(sent.events).toHaveLength(5);
    expect(span.events.map((e) => e.name)).toEqual(["notifications/progress", "notifications/progress"]);
    expect(span.events[0]!.attributes).toMatchObject({ "mcp.progress": 1, "mcp.progress.total": 100 });
    expect(span.attributes["mcp.events.dropped"]).toBe(3);
    await client.close();
  });

  it("keeps every event under the default bound of 16", async () => {
    const server = makeServer();
    const client = await connect(server, "legacy", "pipe");
    await client.request("tools/call", {
      name: "chatty",
      arguments: { progress: 16 },
      _meta: { progressToken: "p" },
    });
    const span = otel.spansNamed("tools/call chatty").find((s) => s.kind === SpanKind.SERVER)!;
    expect(span.events).toHaveLength(16);
    expect(span.attributes["mcp.events.dropped"]).toBeUndefined();
    await client.close();
  });

  it("holds a span at 16 events under a flood of 5,000 progress notifications on one request", async () => {
    const server = makeServer();
    const client = await connect(server, "modern", "pipe");
    let seen = 0;
    await client.request(
      "tools/call",
      { name: "flood", arguments: { progress: 5_000 }, _meta: { progressToken: "f" } },
      { onNotification: () => void seen++ },
    );
    expect(seen).toBe(5_000);
    for (const kind of [SpanKind.SERVER, SpanKind.CLIENT]) {
      const span = otel.spansNamed("tools/call flood").find((s) => s.kind === kind)!;
      expect(span.events).toHaveLength(16);
      expect(span.attributes["mcp.events.dropped"]).toBe(4_984);
    }
    await client.close();
  });

  it("refuses a bad maxSpanEvents with a typed error", () => {
    expect(() => makeServer({ telemetry: { maxSpanEvents: -1 } })).toThrow(/maxSpanEvents/);
  });

  it("ignores a malformed traceparent: the request is answered and its span starts a new trace", async () => {
    const server = makeServer();
    const reply = await server.dispatch({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        name: "echo",
        arguments: {},
        _meta: {
          traceparent: "00-not-a-trace-context",
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }, { signal: new AbortController().signal, notify: () => Promise.resolve() });
    expect(reply).toMatchObject({ id: 7, result: { content: [{ text: "ok" }] } });
    const [span] = otel.spansNamed("tools/call echo");
    expect(span!.parentSpanContext).toBeUndefined();
  });

  it("extracts a well-formed traceparent from params._meta as the span's parent", async () => {
    const server = makeServer();
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    await server.dispatch({
      jsonrpc: "2.0",
      id: 8,
      method: "tools/call",
      params: {
        name: "echo",
        arguments: {},
        _meta: {
          traceparent: `00-${traceId}-b7ad6b7169203331-01`,
          tracestate: "vendor=1",
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }, { signal: new AbortController().signal, notify: () => Promise.resolve() });
    const [span] = otel.spansNamed("tools/call echo");
    expect(span!.spanContext().traceId).toBe(traceId);
    expect(span!.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(span!.spanContext().traceState?.get("vendor")).toBe("1");
  });

  it("continues the trace a forwarded request carries in _meta when no span is active (a proxy)", async () => {
    const server = makeServer();
    const client = await connect(server, "modern", "pipe");
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    await client.request("tools/call", {
      name: "echo",
      arguments: {},
      _meta: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    const sent = otel.spansNamed("tools/call echo").find((s) => s.kind === SpanKind.CLIENT)!;
    const served = otel.spansNamed("tools/call echo").find((s) => s.kind === SpanKind.SERVER)!;
    expect(sent.spanContext().traceId).toBe(traceId);
    expect(sent.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(served.parentSpanContext?.spanId).toBe(sent.spanContext().spanId);
    await client.close();
  });

  it("records nothing with telemetry: { enabled: false }", async () => {
    const server = makeServer({ telemetry: { enabled: false } });
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);
    const client = await ContextClient.connect(clientSide, {
      era: "modern",
      eraCache: null,
      telemetry: { enabled: false },
    });
    await client.request("tools/call", { name: "echo", arguments: {} });
    expect(otel.spans.getFinishedSpans()).toEqual([]);
    await client.close();
  });

  it("records the session duration of a served stream when it ends", async () => {
    const server = makeServer();
    const client = await connect(server, "legacy", "pipe");
    await client.close();
    await server.close();
    const [server_] = await otel.histogram("mcp.server.session.duration");
    expect(server_?.value.count).toBe(1);
    expect(server_?.attributes).toMatchObject({
      "network.transport": "pipe",
      "mcp.protocol.version": "2025-11-25",
    });
    const [client_] = await otel.histogram("mcp.client.session.duration");
    expect(client_?.value.count).toBe(1);
  });

  it("records the session duration of a legacy HTTP session when it ends", async () => {
    const server = makeServer();
    const client = await connect(server, "legacy", "tcp");
    await client.close(); // DELETE ends the session
    const points = await otel.histogram("mcp.server.session.duration");
    expect(points.find((p) => p.attributes["network.transport"] === "tcp")).toMatchObject({
      attributes: { "mcp.protocol.version": "2025-11-25" },
      value: { count: 1 },
    });
  });
});
