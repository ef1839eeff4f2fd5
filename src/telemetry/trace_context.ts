/**
 * W3C trace context (`traceparent`, `tracestate`) in `params._meta`, the carrier the OpenTelemetry
 * semantic conventions for MCP name: the client injects it into each request it sends, the server
 * extracts it so that its span is a child of the client's. Both go through the registered
 * propagator; a malformed value is the propagator's to ignore, never an error.
 * @module
 */
import type { OtelCarrierGetter, OtelCarrierSetter, OtelContext, OtelGlobals } from "./otel_globals.ts";

const META_SETTER: OtelCarrierSetter = {
  set(carrier, key, value) {
    carrier[key] = value;
  },
};

const META_GETTER: OtelCarrierGetter = {
  keys(carrier) {
    return Object.keys(carrier);
  },
  get(carrier, key) {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `params` with the trace context of `context` in its `_meta` (a copy; `params` is not changed).
 * Returns `params` itself when no propagator is registered or it wrote nothing, and for params that
 * are not an object (left to the server to refuse).
 */
export function injectTraceContext(globals: OtelGlobals, context: OtelContext, params: unknown): unknown {
  const propagator = globals.propagation;
  if (propagator === undefined || (params !== undefined && !isRecord(params))) return params;
  const fields: Record<string, unknown> = {};
  propagator.inject(context, fields, META_SETTER);
  if (Object.keys(fields).length === 0) return params;
  const meta = isRecord(params?._meta) ? params._meta : undefined;
  return { ...params, _meta: { ...meta, ...fields } };
}

/**
 * The context whose remote parent is the trace context in `params._meta`, derived from `context`;
 * `context` itself when there is none, when it is malformed, or when no propagator is registered.
 */
export function extractTraceContext(
  globals: OtelGlobals,
  context: OtelContext,
  params: unknown,
): OtelContext {
  const propagator = globals.propagation;
  if (propagator === undefined || !isRecord(params)) return context;
  const meta = params._meta;
  if (!isRecord(meta) || typeof meta.traceparent !== "string") return context;
  return propagator.extract(context, meta, META_GETTER);
}
