/**
 * One {@linkcode ContextClient} request in an OpenTelemetry CLIENT span (MCP semantic conventions).
 * @module
 */
import type { McpTelemetry, NetworkTransport } from "../telemetry/mcp_telemetry.ts";
import {
  activeContext,
  OTEL_SPAN_KEY,
  type OtelContext,
  type OtelGlobals,
} from "../telemetry/otel_globals.ts";
import { extractTraceContext, injectTraceContext } from "../telemetry/trace_context.ts";
import type { ClientRequestOptions } from "./context_client_options.ts";

/** The request to trace, and how to send it once its params carry the trace context. */
export interface TracedRequest {
  method: string;
  params: unknown;
  options: ClientRequestOptions;
  /** How the client reaches the server, when connected. */
  networkTransport: NetworkTransport | undefined;
  /** The negotiated protocol version, when connected. */
  protocolVersion: string | undefined;
  send(method: string, params: unknown, options: ClientRequestOptions): Promise<unknown>;
}

/**
 * Sends `request` in a CLIENT span (a child of the active context), whose trace context goes in
 * `params._meta`; related notifications are span events.
 */
export function traceRequest(
  telemetry: McpTelemetry,
  globals: OtelGlobals,
  request: TracedRequest,
): Promise<unknown> {
  const { method, params, options } = request;
  const trace = telemetry.start(globals, {
    method,
    params,
    networkTransport: request.networkTransport,
    protocolVersion: request.protocolVersion,
  }, parentOf(globals, params));
  const traced = injectTraceContext(globals, trace.context, params);
  const onNotification = options.onNotification;
  const sent: ClientRequestOptions = onNotification === undefined ? options : {
    ...options,
    onNotification: (m, p) => {
      trace.event(m, p);
      onNotification(m, p);
    },
  };
  return telemetry.run(globals, trace, () => request.send(method, traced, sent)).then((result) => {
    trace.succeed(result);
    return result;
  }, (error: unknown) => {
    trace.fail(error);
    throw error;
  });
}

/**
 * The parent of a request's CLIENT span: the active span, else the trace context the params already
 * carry in `_meta` (a proxy forwarding a request continues its caller's trace), else none.
 */
function parentOf(globals: OtelGlobals, params: unknown): OtelContext {
  const active = activeContext(globals);
  return active.getValue(OTEL_SPAN_KEY) === undefined ? extractTraceContext(globals, active, params) : active;
}
