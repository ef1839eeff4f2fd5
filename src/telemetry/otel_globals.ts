/**
 * The OpenTelemetry API's process-wide registry, read without importing `@opentelemetry/api`: the
 * API (an optional peer of this library) keeps what an SDK registers under
 * `globalThis[Symbol.for("opentelemetry.js.api.1")]` as `{ version, trace, metrics, context,
 * propagation }`. Absent (no API, or no SDK registered), every reader here answers `undefined` and
 * the library records nothing. The types are the structural slices of the API the library calls.
 * @module
 */

/** Attribute values the library sets. */
export type OtelAttributes = Record<string, string | number | boolean>;

/** An immutable OpenTelemetry context (`Context` of the API). */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

/** The identity of a span (`SpanContext` of the API). */
export interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

/** A span, as far as the library uses one. */
export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: string | number | boolean): unknown;
  addEvent(name: string, attributes?: OtelAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
  isRecording(): boolean;
}

/** Starts spans (`Tracer` of the API). */
export interface OtelTracer {
  startSpan(
    name: string,
    options: { kind: number; attributes?: OtelAttributes },
    context?: OtelContext,
  ): OtelSpan;
}

/** The registered tracer provider (the API's proxy in front of the SDK's). */
export interface OtelTracerProvider {
  getTracer(name: string, version?: string): OtelTracer;
}

/** A histogram instrument. */
export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

/** Creates instruments (`Meter` of the API). */
export interface OtelMeter {
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string; advice?: { explicitBucketBoundaries?: number[] } },
  ): OtelHistogram;
}

/** The registered meter provider. */
export interface OtelMeterProvider {
  getMeter(name: string, version?: string): OtelMeter;
}

/** The registered context manager (AsyncLocalStorage-based on Node). */
export interface OtelContextManager {
  active(): OtelContext;
  with<R>(context: OtelContext, fn: () => R): R;
}

/** Reads and writes one carrier's fields. */
export interface OtelCarrierSetter {
  set(carrier: Record<string, unknown>, key: string, value: string): void;
}
/** Reads one carrier's fields. */
export interface OtelCarrierGetter {
  keys(carrier: Record<string, unknown>): string[];
  get(carrier: Record<string, unknown>, key: string): string | string[] | undefined;
}

/** The registered propagator (W3C trace context, by default). */
export interface OtelPropagator {
  inject(context: OtelContext, carrier: Record<string, unknown>, setter: OtelCarrierSetter): void;
  extract(context: OtelContext, carrier: Record<string, unknown>, getter: OtelCarrierGetter): OtelContext;
}

/** What the API keeps in its global slot. */
export interface OtelGlobals {
  version: string;
  trace?: OtelTracerProvider;
  metrics?: OtelMeterProvider;
  context?: OtelContextManager;
  propagation?: OtelPropagator;
}

/** The key of the API's global slot, major version 1. */
export const OTEL_GLOBAL_KEY: unique symbol = Symbol.for("opentelemetry.js.api.1") as never;

/** The key under which the API keeps the active span in a context (`trace.setSpan`). */
export const OTEL_SPAN_KEY: symbol = Symbol.for("OpenTelemetry Context Key SPAN");

/** `SpanKind.SERVER` and `SpanKind.CLIENT` of the API. */
export const SpanKinds = { server: 1, client: 2 } as const;
/** `SpanStatusCode.ERROR` of the API. */
export const SPAN_STATUS_ERROR = 2;

/** The last slot {@linkcode otelGlobals} judged, and its answer: the API replaces the slot, never its version. */
let judgedSlot: unknown;
let judged: OtelGlobals | undefined;

/** The API's global slot when an API of major version 1 has registered something; `undefined` otherwise. */
export function otelGlobals(): OtelGlobals | undefined {
  const slot = (globalThis as { [OTEL_GLOBAL_KEY]?: unknown })[OTEL_GLOBAL_KEY];
  if (slot === judgedSlot) return judged;
  judgedSlot = slot;
  judged = undefined;
  if (typeof slot !== "object" || slot === null) return undefined;
  const version = (slot as { version?: unknown }).version;
  if (typeof version === "string" && version.startsWith("1.")) judged = slot as OtelGlobals;
  return judged;
}

/** The empty context, for a process without a registered context manager. */
export class RootContext implements OtelContext {
  readonly #values: ReadonlyMap<symbol, unknown>;

  constructor(values: ReadonlyMap<symbol, unknown> = new Map()) {
    this.#values = values;
  }

  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }

  setValue(key: symbol, value: unknown): OtelContext {
    return new RootContext(new Map(this.#values).set(key, value));
  }

  deleteValue(key: symbol): OtelContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new RootContext(values);
  }
}

/** The empty context, shared (contexts are immutable). */
const ROOT_CONTEXT: OtelContext = new RootContext();

/** The active context: the context manager's, else the empty one. */
export function activeContext(globals: OtelGlobals): OtelContext {
  return globals.context?.active() ?? ROOT_CONTEXT;
}
