/**
 * `RequestTrace`: the span and the duration measurement of one MCP request, on either side, ended
 * once with its outcome. Notifications tied to the request become span events, bounded.
 * @module
 */
import { JsonRpcError } from "../wire/errors.ts";
import { JsonText } from "../wire/json_text.ts";
import type { TimeProvider } from "../stream/time_provider.ts";
import {
  type OtelAttributes,
  type OtelContext,
  type OtelHistogram,
  type OtelSpan,
  SPAN_STATUS_ERROR,
} from "./otel_globals.ts";

/** `error.type` of a tool result with `isError: true` (the request itself succeeded). */
export const TOOL_ERROR_TYPE = "tool_error";

/** The `error.type` of a failure: the JSON-RPC code, a transport error's code, or the error's name. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof JsonRpcError) return String(error.code);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && code !== "" ? code : error.name || "Error";
  }
  return "_OTHER";
}

function isToolError(result: unknown): boolean {
  if (result instanceof JsonText) return result.text.includes(`"isError":true`);
  return typeof result === "object" && result !== null && (result as { isError?: unknown }).isError === true;
}

/** One request's span and duration; see the module note. */
export class RequestTrace {
  /** The context whose active span is this request's: run the handler (or the send) in it. */
  readonly context: OtelContext;
  readonly #span: OtelSpan;
  readonly #histogram: OtelHistogram | undefined;
  /** The attributes of the duration measurement (low-cardinality ones only). */
  readonly #metric: OtelAttributes;
  readonly #time: TimeProvider;
  readonly #start: number;
  #eventsLeft: number;
  #dropped = 0;
  #ended = false;

  constructor(
    span: OtelSpan,
    context: OtelContext,
    histogram: OtelHistogram | undefined,
    metric: OtelAttributes,
    time: TimeProvider,
    maxEvents: number,
  ) {
    this.#span = span;
    this.context = context;
    this.#histogram = histogram;
    this.#metric = metric;
    this.#time = time;
    this.#start = time.now();
    this.#eventsLeft = maxEvents;
  }

  /** Sets an attribute on the span and, with `onMetric`, on the duration measurement too. */
  set(key: string, value: string | number | boolean, onMetric = false): void {
    this.#span.setAttribute(key, value);
    if (onMetric) this.#metric[key] = value;
  }

  /** Records a notification tied to this request as a span event, up to the bound; later ones are counted. */
  event(method: string, params: unknown): void {
    if (this.#ended) return;
    if (this.#eventsLeft === 0) {
      this.#dropped++;
      return;
    }
    this.#eventsLeft--;
    const attributes: OtelAttributes = { "mcp.method.name": method };
    if (typeof params === "object" && params !== null) {
      const { progress, total, level } = params as Record<string, unknown>;
      if (typeof progress === "number") attributes["mcp.progress"] = progress;
      if (typeof total === "number") attributes["mcp.progress.total"] = total;
      if (typeof level === "string") attributes["mcp.log.level"] = level;
    }
    this.#span.addEvent(method, attributes);
  }

  /** Ends with a result: a tool result with `isError: true` is recorded as an error (`tool_error`). */
  succeed(result: unknown): void {
    if (isToolError(result)) this.#end(TOOL_ERROR_TYPE, "The tool returned isError: true");
    else this.#end(undefined, undefined);
  }

  /** Ends with a failure. */
  fail(error: unknown): void {
    if (error instanceof JsonRpcError) this.set("rpc.response.status_code", String(error.code), true);
    this.#end(errorTypeOf(error), error instanceof Error ? error.message : String(error));
  }

  #end(errorType: string | undefined, message: string | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    if (errorType !== undefined) {
      this.set("error.type", errorType, true);
      this.#span.setStatus({ code: SPAN_STATUS_ERROR, message });
    }
    if (this.#dropped > 0) this.#span.setAttribute("mcp.events.dropped", this.#dropped);
    this.#span.end();
    this.#histogram?.record((this.#time.now() - this.#start) / 1000, this.#metric);
  }
}
