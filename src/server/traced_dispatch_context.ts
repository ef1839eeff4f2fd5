/**
 * `TracedDispatchContext`: a {@linkcode DispatchContext} that records each notification a handler
 * sends for its request (progress, log messages) as an event on the request's span, then sends it.
 * @module
 */
import type { RequestTrace } from "../telemetry/request_trace.ts";
import {
  type DispatchContext,
  type ServerSession,
  type ServerToClientRequestOptions,
  TEXT_RESULTS,
} from "./dispatch_context.ts";
import { WHEN_CANCELLED, whenCancelled } from "./when_cancelled.ts";

/** The context of one traced request; everything but `notify` is the wrapped context's. */
export class TracedDispatchContext implements DispatchContext {
  readonly [TEXT_RESULTS]: boolean | undefined;
  readonly #inner: DispatchContext;
  readonly #trace: RequestTrace;
  readonly request?: DispatchContext["request"];

  constructor(inner: DispatchContext, trace: RequestTrace) {
    this.#inner = inner;
    this.#trace = trace;
    this[TEXT_RESULTS] = (inner as { [TEXT_RESULTS]?: boolean })[TEXT_RESULTS];
    if (inner.request !== undefined) {
      this.request = (method: string, params: unknown, options?: ServerToClientRequestOptions) =>
        inner.request!(method, params, options);
    }
  }

  get session(): ServerSession | undefined {
    return this.#inner.session;
  }

  get signal(): AbortSignal {
    return this.#inner.signal;
  }

  get principal(): string | undefined {
    return this.#inner.principal;
  }

  [WHEN_CANCELLED](callback: () => void): void {
    whenCancelled(this.#inner, callback);
  }

  get networkTransport(): string | undefined {
    return this.#inner.networkTransport;
  }

  get answered(): boolean | undefined {
    return this.#inner.answered;
  }

  notify(method: string, params?: unknown): Promise<void> {
    this.#trace.event(method, params);
    return this.#inner.notify(method, params);
  }
}
