/**
 * `McpTelemetry`: spans and duration histograms of one side (server or client) following the
 * OpenTelemetry semantic conventions for MCP, written against the API's global registry only (see
 * `otel_globals.ts`): with nothing registered, {@linkcode McpTelemetry.globals} answers `undefined`
 * and the caller takes its untraced path.
 * @module
 */
import { integerOption } from "../stream/options.ts";
import type { TimeProvider } from "../stream/time_provider.ts";
import {
  OTEL_SPAN_KEY,
  type OtelAttributes,
  type OtelContext,
  type OtelGlobals,
  otelGlobals,
  type OtelHistogram,
  type OtelMeterProvider,
  type OtelSpan,
  type OtelTracer,
  type OtelTracerProvider,
  SpanKinds,
} from "./otel_globals.ts";
import { RequestTrace } from "./request_trace.ts";

/** Options of the telemetry of a server or a client (`telemetry` in their options). */
export interface TelemetryOptions {
  /**
   * `false` records nothing even when an OpenTelemetry SDK is registered.
   * @default true
   */
  enabled?: boolean;
  /**
   * Notifications (progress, log messages) recorded as events on one request's span; later ones are
   * only counted, in the span attribute `mcp.events.dropped`.
   * @default 16
   */
  maxSpanEvents?: number;
}

/** The default of {@linkcode TelemetryOptions.maxSpanEvents}. */
export const DEFAULT_MAX_SPAN_EVENTS = 16;

/** `network.transport`: `pipe` for stdio and `MessagePort`, `tcp` for HTTP. */
export type NetworkTransport = "pipe" | "tcp";

/** What is known of one request when its span starts. */
export interface RequestFacts {
  method: string;
  params: unknown;
  requestId?: string | number;
  networkTransport?: string;
  /** A legacy session's id (`mcp.session.id`). */
  sessionId?: string;
  protocolVersion?: string;
}

/** The instrumentation scope name of every span and instrument. */
export const INSTRUMENTATION_SCOPE = "onemodelcontext";

/** Bucket boundaries the conventions advise for MCP durations, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

class NonRecordingSpan implements OtelSpan {
  spanContext() {
    return { traceId: "00000000000000000000000000000000", spanId: "0000000000000000", traceFlags: 0 };
  }
  setAttribute(): void {}
  addEvent(): void {}
  setStatus(): void {}
  end(): void {}
  isRecording(): boolean {
    return false;
  }
}

/** The span of a request when only a meter is registered: one for all, it records nothing. */
const NON_RECORDING_SPAN: OtelSpan = new NonRecordingSpan();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Spans and histograms of one side; see the module note. */
export class McpTelemetry {
  readonly #side: "server" | "client";
  readonly #time: TimeProvider;
  readonly #enabled: boolean;
  readonly #maxEvents: number;
  #tracerProvider: OtelTracerProvider | undefined;
  #tracer: OtelTracer | undefined;
  #meterProvider: OtelMeterProvider | undefined;
  #histograms: { operation: OtelHistogram; session: OtelHistogram } | undefined;

  constructor(side: "server" | "client", time: TimeProvider, options: TelemetryOptions = {}) {
    this.#side = side;
    this.#time = time;
    this.#enabled = options.enabled !== false;
    this.#maxEvents = integerOption(
      "telemetry.maxSpanEvents",
      options.maxSpanEvents,
      DEFAULT_MAX_SPAN_EVENTS,
    );
  }

  /** The API's globals when a tracer or meter provider is registered (and telemetry is on); else `undefined`. */
  globals(): OtelGlobals | undefined {
    if (!this.#enabled) return undefined;
    const globals = otelGlobals();
    return globals !== undefined && (globals.trace !== undefined || globals.metrics !== undefined)
      ? globals
      : undefined;
  }

  /**
   * Starts the span (SERVER or CLIENT, a child of `parent`'s span) and the duration of one request.
   * The span is named `{mcp.method.name} {target}`, the target being the tool or prompt name.
   */
  start(globals: OtelGlobals, facts: RequestFacts, parent: OtelContext): RequestTrace {
    const { method, params } = facts;
    const span: OtelAttributes = { "mcp.method.name": method };
    const metric: OtelAttributes = { "mcp.method.name": method };
    let target: string | undefined;
    if (isRecord(params)) {
      const { name, uri } = params;
      if (typeof name === "string" && method === "tools/call") {
        target = span["gen_ai.tool.name"] = metric["gen_ai.tool.name"] = name;
        span["gen_ai.operation.name"] = metric["gen_ai.operation.name"] = "execute_tool";
      } else if (typeof name === "string" && method === "prompts/get") {
        target = span["gen_ai.prompt.name"] = metric["gen_ai.prompt.name"] = name;
      }
      if (typeof uri === "string" && method.startsWith("resources/")) span["mcp.resource.uri"] = uri;
    }
    if (facts.requestId !== undefined) span["jsonrpc.request.id"] = String(facts.requestId);
    if (facts.networkTransport !== undefined) {
      span["network.transport"] = metric["network.transport"] = facts.networkTransport;
    }
    if (facts.sessionId !== undefined) span["mcp.session.id"] = facts.sessionId;
    if (facts.protocolVersion !== undefined) {
      span["mcp.protocol.version"] = metric["mcp.protocol.version"] = facts.protocolVersion;
    }
    const tracer = this.#tracerOf(globals);
    const started = tracer === undefined ? NON_RECORDING_SPAN : tracer.startSpan(
      target === undefined ? method : `${method} ${target}`,
      { kind: this.#side === "server" ? SpanKinds.server : SpanKinds.client, attributes: span },
      parent,
    );
    const context = tracer === undefined ? parent : parent.setValue(OTEL_SPAN_KEY, started);
    return new RequestTrace(
      started,
      context,
      this.#histogramsOf(globals)?.operation,
      metric,
      this.#time,
      this.#maxEvents,
    );
  }

  /** Runs `fn` with `trace`'s span active (when a context manager is registered). */
  run<R>(globals: OtelGlobals, trace: RequestTrace, fn: () => R): R {
    const manager = globals.context;
    return manager === undefined ? fn() : manager.with(trace.context, fn);
  }

  /** Records `mcp.{side}.session.duration` of a session that started at `start` (time provider ms). */
  recordSession(start: number, attributes: OtelAttributes): void {
    const globals = this.globals();
    if (globals === undefined) return;
    this.#histogramsOf(globals)?.session.record((this.#time.now() - start) / 1000, attributes);
  }

  /** The time provider's clock, for session starts. */
  now(): number {
    return this.#time.now();
  }

  #tracerOf(globals: OtelGlobals): OtelTracer | undefined {
    const provider = globals.trace;
    if (provider !== this.#tracerProvider) {
      this.#tracerProvider = provider;
      this.#tracer = provider?.getTracer(INSTRUMENTATION_SCOPE);
    }
    return this.#tracer;
  }

  #histogramsOf(globals: OtelGlobals): { operation: OtelHistogram; session: OtelHistogram } | undefined {
    const provider = globals.metrics;
    if (provider !== this.#meterProvider) {
      this.#meterProvider = provider;
      const meter = provider?.getMeter(INSTRUMENTATION_SCOPE);
      const side = this.#side;
      this.#histograms = meter && {
        operation: meter.createHistogram(`mcp.${side}.operation.duration`, {
          description: side === "server"
            ? "MCP request duration as observed on the receiver"
            : "MCP request duration as observed on the sender",
          unit: "s",
          advice: { explicitBucketBoundaries: DURATION_BUCKETS },
        }),
        session: meter.createHistogram(`mcp.${side}.session.duration`, {
          description: `The duration of the MCP session as observed on the MCP ${side}`,
          unit: "s",
          advice: { explicitBucketBoundaries: DURATION_BUCKETS },
        }),
      };
    }
    return this.#histograms;
  }
}
