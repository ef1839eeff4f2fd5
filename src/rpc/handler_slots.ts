/**
 * Requests from the peer being handled: at most `maxConcurrentRequests` at once, each with a lazily
 * made `AbortSignal` (peer cancellation, EOF grace, close), its reply sent when it finishes.
 * @module
 */
import { wakeUp } from "../stream/deferred.ts";
import { InflightRequest } from "./inflight_request.ts";
import { asError, CancelledError, ErrorCodes, isTransportError, JsonRpcError, ProtocolError } from "../wire/errors.ts";
import { errorResponse, errorResponseFor, type IncomingRequest, idKey, type RequestId } from "../wire/json_rpc_message.ts";
import type { BacklogEntry } from "./input_backlog.ts";

/** What a request handler gets besides the params. */
export interface RequestContext {
  readonly id: RequestId;
  readonly method: string;
  /** Aborted on `notifications/cancelled` for this id, after the EOF grace period, and on close. */
  readonly signal: AbortSignal;
  /** Sends a notification tied to this request; a no-op once the request is done or cancelled. */
  notify(method: string, params?: unknown): Promise<void>;
}

/** Answers one request; the value becomes `result`, a thrown {@linkcode JsonRpcError} the error. */
export type RequestHandler = (params: unknown, context: RequestContext) => unknown;
/** Handles one notification. */
export type NotificationHandler = (params: unknown) => unknown;

/** The fallbacks and the barrier test, from the connection's options. */
export interface SlotFallbacks {
  onRequest?: (request: IncomingRequest, context: RequestContext) => unknown;
  onNotification?: (method: string, params: unknown) => unknown;
  isBarrier?: (request: IncomingRequest) => boolean;
}

/** What {@linkcode HandlerSlots} needs from the connection. */
export interface SlotHost {
  send(message: Record<string, unknown>, signal?: AbortSignal): Promise<void>;
  /** Sends a reply the connection itself owes; a failure there is handled by the connection. */
  sendOwnError(reply: Record<string, unknown>): Promise<void>;
  readonly outputClosed: boolean;
  /** A send failed: the connection checks whether output broke. */
  sendFailed(): void;
  /** Removes input entries not yet dispatched that match. */
  dropFromBacklog(match: (entry: BacklogEntry) => boolean): unknown;
  report(error: Error): void;
}

/** The handlers of one connection: registered per method, run at most `max` at once. */
export class HandlerSlots {
  readonly max: number;
  readonly requestHandlers = new Map<string, RequestHandler>();
  readonly notificationHandlers = new Map<string, NotificationHandler>();
  readonly #fallbacks: SlotFallbacks;
  /** Fired whenever a handler finishes (and by the connection when waiters should look again). */
  readonly freed = wakeUp();
  readonly #host: SlotHost;
  readonly #inflight = new Map<string, InflightRequest>();
  #active = 0;

  constructor(max: number, host: SlotHost, fallbacks: SlotFallbacks) {
    this.max = max;
    this.#host = host;
    this.#fallbacks = fallbacks;
  }

  /** Handlers running now. */
  get active(): number {
    return this.#active;
  }

  /** True when a request must wait for a slot. */
  get full(): boolean {
    return this.#active >= this.max;
  }

  /** Starts the handler of `request` (a duplicate id in flight gets -32600); an admission barrier is awaited until its reply is queued. */
  async dispatch(request: IncomingRequest, key: string): Promise<void> {
    const host = this.#host;
    if (this.#inflight.has(key)) {
      host.report(new ProtocolError(`Request id ${JSON.stringify(request.id)} is already in flight`));
      return host.sendOwnError(errorResponse(request.id, ErrorCodes.InvalidRequest, `Invalid request: id ${JSON.stringify(request.id)} is already in flight`));
    }
    const run = this.#run(request, key);
    let barrier = false;
    try {
      barrier = this.#fallbacks.isBarrier?.(request) === true;
    } catch (error) {
      host.report(asError(error));
    }
    if (barrier) await run;
  }

  /**
   * Runs the handler of notification `method`; a failure is reported. `notifications/cancelled`
   * first drops the request from the backlog (never dispatched, never answered) or aborts it.
   */
  notification(method: string, params: unknown): void {
    if (method === "notifications/cancelled") {
      const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") {
        const key = idKey(requestId);
        this.#host.dropFromBacklog((entry) => entry.key === key);
        this.cancelByPeer(key, requestId);
      }
    }
    const handler = this.notificationHandlers.get(method);
    try {
      const result = handler ? handler(params) : this.#fallbacks.onNotification?.(method, params);
      if (result instanceof Promise) result.catch((error) => this.#host.report(asError(error)));
    } catch (error) {
      this.#host.report(asError(error));
    }
  }

  /** The peer cancelled `requestId`: its signal aborts and no reply is sent. */
  cancelByPeer(key: string, requestId: RequestId): void {
    const entry = this.#inflight.get(key);
    if (!entry || entry.done) return;
    entry.cancelledByPeer = true;
    entry.abort(new CancelledError(`Request ${JSON.stringify(requestId)} was cancelled by the peer`));
  }

  /** Aborts the signal of every running handler. */
  abortAll(reason: unknown): void {
    for (const entry of this.#inflight.values()) entry.abort(reason);
  }

  /** Runs the handler of `request` in a slot; resolves once its reply is queued (or dropped). */
  #run(request: IncomingRequest, key: string): Promise<void> {
    const host = this.#host;
    const entry = new InflightRequest();
    this.#inflight.set(key, entry);
    this.#active++;
    const context: RequestContext = {
      id: request.id,
      method: request.method,
      get signal() {
        return entry.signal;
      },
      notify: async (method, params) => {
        if (entry.done || entry.aborted || host.outputClosed) return;
        const message: Record<string, unknown> = { jsonrpc: "2.0", method };
        if (params !== undefined) message.params = params;
        // A notification lost to a closed output needs no answer; a broken output is a fault.
        await host.send(message, entry.signal).catch(() => host.sendFailed());
      },
    };
    return this.#answer(request, entry, context).finally(() => {
      this.#inflight.delete(key);
      this.#active--;
      this.freed.fire();
    });
  }

  async #answer(request: IncomingRequest, entry: InflightRequest, context: RequestContext): Promise<void> {
    const host = this.#host;
    let reply: Record<string, unknown>;
    try {
      const handler = this.requestHandlers.get(request.method);
      let result: unknown;
      if (handler) result = await handler(request.params, context);
      else if (this.#fallbacks.onRequest) result = await this.#fallbacks.onRequest(request, context);
      else throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${request.method}`);
      reply = { jsonrpc: "2.0", id: request.id, result: result === undefined ? {} : result };
    } catch (error) {
      if (!(error instanceof JsonRpcError) && !entry.aborted) host.report(asError(error));
      reply = errorResponseFor(request.id, error);
    }
    entry.done = true;
    if (entry.cancelledByPeer || host.outputClosed) return;
    try {
      await host.send(reply);
    } catch (error) {
      if (host.outputClosed || isTransportError(error)) return host.sendFailed();
      // The result could not be serialized (a BigInt, a cycle): the caller still gets an answer.
      host.report(asError(error));
      await host.sendOwnError(errorResponse(request.id, ErrorCodes.InternalError, `Internal error: the result could not be serialized (${asError(error).message})`));
    }
  }
}
