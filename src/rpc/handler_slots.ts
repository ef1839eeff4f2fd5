/**
 * Requests from the peer being handled: at most `maxConcurrentRequests` at once, each with a lazily
 * made `AbortSignal` (peer cancellation, EOF grace, close), its reply sent when it finishes.
 * @module
 */
import { wakeUp } from "../stream/deferred.ts";
import { InflightRequest } from "./inflight_request.ts";
import { asError, CancelledError, ErrorCodes, isTransportError, JsonRpcError, ProtocolError } from "../wire/errors.ts";
import { type ClassifiedMessage, errorResponse, errorResponseFor, type IncomingRequest, idKey, replyFor, type RequestId } from "../wire/json_rpc_message.ts";
import { JsonText } from "../wire/json_text.ts";
import { quotePeerText } from "../wire/quote_peer_text.ts";
import type { BacklogEntry } from "./input_backlog.ts";
import type { Reply } from "./pending_calls.ts";

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
  send(message: Record<string, unknown> | JsonText, signal?: AbortSignal): Promise<void>;
  /** Sends a reply the connection itself owes; a failure there is handled by the connection. */
  sendOwnError(reply: Record<string, unknown> | JsonText): Promise<void>;
  readonly outputClosed: boolean;
  /** A send failed: the connection checks whether output broke. */
  sendFailed(): void;
  /** Removes input entries not yet dispatched that match. */
  dropFromBacklog(match: (entry: BacklogEntry) => boolean): unknown;
  /** A handler finished: the bytes of its message no longer count against `maxInFlightBytes`. */
  release(bytes: number): void;
  /** A reply to one of our calls (inside a batch). */
  settle(reply: Reply): void;
  report(error: Error): void;
}

/** Where a batch element's reply goes instead of the output: its JSON text. */
type Collect = (text: string) => void;

/**
 * The handlers of one connection: registered per method, run at most `max` at once. The bound counts
 * request handlers and notification handlers that return a promise alike: a notification waits for a
 * slot in the backlog exactly as a request does.
 */
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
  #openBatches = 0;

  constructor(max: number, host: SlotHost, fallbacks: SlotFallbacks) {
    this.max = max;
    this.#host = host;
    this.#fallbacks = fallbacks;
  }

  /** Handlers running now. */
  get active(): number {
    return this.#active;
  }

  /** Handlers running plus batches whose reply is not yet queued: the connection is quiet at 0. */
  get busy(): number {
    return this.#active + this.#openBatches;
  }

  /** True when a request must wait for a slot. */
  get full(): boolean {
    return this.#active >= this.max;
  }

  /** Starts the handler of `request` (a duplicate id in flight gets -32600); an admission barrier is awaited until its reply is queued. */
  async dispatch(request: IncomingRequest, key: string, bytes = 0): Promise<void> {
    const host = this.#host;
    if (this.#inflight.has(key)) {
      host.release(bytes);
      const duplicate = this.#duplicate(request);
      return host.sendOwnError(duplicate);
    }
    const run = this.#run(request, key, bytes);
    if (this.#isBarrier(request)) await run;
  }

  #isBarrier(request: IncomingRequest): boolean {
    try {
      return this.#fallbacks.isBarrier?.(request) === true;
    } catch (error) {
      this.#host.report(asError(error));
      return false;
    }
  }

  #duplicate(request: IncomingRequest): Record<string, unknown> {
    this.#host.report(new ProtocolError(`Request id ${quotePeerText(request.id)} is already in flight`));
    return errorResponse(request.id, ErrorCodes.InvalidRequest, `Invalid request: id ${quotePeerText(request.id)} is already in flight`);
  }

  /**
   * Serves a 2025-03-26 batch: each request runs in a slot (waiting for one as usual), notifications
   * and replies take effect, invalid elements get their error; the replies leave as one array once all
   * are in (none when there are none). `bytes` (the batch's line) counts until then.
   */
  async dispatchBatch(elements: ClassifiedMessage[], bytes: number): Promise<void> {
    const host = this.#host;
    this.#openBatches++;
    const texts: string[] = [];
    const runs: Promise<void>[] = [];
    const owe = (reply: Record<string, unknown>) => texts.push(JSON.stringify(reply));
    try {
      for (const element of elements) {
        switch (element.kind) {
          case "request": {
            const request = element.request;
            const key = idKey(request.id);
            if (this.#isBarrier(request)) owe(errorResponse(request.id, ErrorCodes.InvalidRequest, `Invalid request: ${quotePeerText(request.method)} must not be part of a batch`));
            else if (this.#inflight.has(key)) owe(this.#duplicate(request));
            else {
              while (this.full) await this.freed.wait();
              runs.push(this.#run(request, key, 0, (text) => texts.push(text)));
            }
            break;
          }
          case "notification":
            this.notification(element.method, element.params);
            break;
          case "invalid":
            host.report(new ProtocolError(`Invalid JSON-RPC message in a batch: ${element.reason}`));
            owe(errorResponse(element.id, ErrorCodes.InvalidRequest, `Invalid request: ${element.reason}`));
            break;
          default:
            host.settle(element);
        }
      }
      await Promise.all(runs);
      if (texts.length > 0 && !host.outputClosed) await host.send(new JsonText(`[${texts.join(",")}]`)).catch(() => host.sendFailed());
    } finally {
      host.release(bytes);
      this.#openBatches--;
      this.freed.fire();
    }
  }

  /**
   * Runs the handler of notification `method`; a failure is reported. A handler that returns a
   * promise holds a slot (and `bytes` of the in-flight budget) until it settles.
   * `notifications/cancelled` first drops the request from the backlog (never dispatched, never
   * answered) or aborts it.
   */
  notification(method: string, params: unknown, bytes = 0): void {
    if (method === "notifications/cancelled") {
      const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") {
        const key = idKey(requestId);
        this.#host.dropFromBacklog((entry) => entry.key === key);
        this.cancelByPeer(key, requestId);
      }
    }
    const handler = this.notificationHandlers.get(method);
    let result: unknown;
    try {
      result = handler ? handler(params) : this.#fallbacks.onNotification?.(method, params);
    } catch (error) {
      this.#host.report(asError(error));
    }
    if (!(result instanceof Promise)) {
      this.#host.release(bytes);
      return;
    }
    this.#active++;
    result
      .catch((error) => this.#host.report(asError(error)))
      .finally(() => {
        this.#active--;
        this.#host.release(bytes);
        this.freed.fire();
      });
  }

  /** The peer cancelled `requestId`: its signal aborts and no reply is sent. */
  cancelByPeer(key: string, requestId: RequestId): void {
    const entry = this.#inflight.get(key);
    if (!entry || entry.done) return;
    entry.cancelledByPeer = true;
    entry.abort(new CancelledError(`Request ${quotePeerText(requestId)} was cancelled by the peer`));
  }

  /** Aborts the signal of every running handler. */
  abortAll(reason: unknown): void {
    for (const entry of this.#inflight.values()) entry.abort(reason);
  }

  /** Runs the handler of `request` in a slot; resolves once its reply is queued (or dropped). */
  #run(request: IncomingRequest, key: string, bytes: number, collect?: Collect): Promise<void> {
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
    return this.#answer(request, entry, context, collect).finally(() => {
      this.#inflight.delete(key);
      this.#active--;
      this.#host.release(bytes);
      this.freed.fire();
    });
  }

  async #answer(request: IncomingRequest, entry: InflightRequest, context: RequestContext, collect?: Collect): Promise<void> {
    const host = this.#host;
    let reply: Record<string, unknown>;
    try {
      const handler = this.requestHandlers.get(request.method);
      let result: unknown;
      if (handler) result = await handler(request.params, context);
      else if (this.#fallbacks.onRequest) result = await this.#fallbacks.onRequest(request, context);
      else throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${quotePeerText(request.method)}`);
      reply = { jsonrpc: "2.0", id: request.id, result: result === undefined ? {} : result };
    } catch (error) {
      if (!(error instanceof JsonRpcError) && !entry.aborted) host.report(asError(error));
      reply = errorResponseFor(request.id, error);
    }
    entry.done = true;
    if (entry.cancelledByPeer) return;
    if (collect) {
      let text: string;
      try {
        text = JSON.stringify(reply);
      } catch (error) {
        host.report(asError(error));
        text = JSON.stringify(this.#unserializable(request, error));
      }
      return void collect(text);
    }
    if (host.outputClosed) return;
    try {
      await host.send(replyFor(request, reply));
    } catch (error) {
      if (host.outputClosed || isTransportError(error)) return host.sendFailed();
      // The result could not be serialized (a BigInt, a cycle): the caller still gets an answer.
      host.report(asError(error));
      await host.sendOwnError(replyFor(request, this.#unserializable(request, error)));
    }
  }

  #unserializable(request: IncomingRequest, error: unknown): Record<string, unknown> {
    return errorResponse(request.id, ErrorCodes.InternalError, `Internal error: the result could not be serialized (${asError(error).message})`);
  }
}
