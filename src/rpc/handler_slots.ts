/**
 * Requests from the peer being handled: at most `maxConcurrentRequests` at once, each with a lazily
 * made `AbortSignal` (peer cancellation, EOF grace, close), its reply sent when it finishes.
 * @module
 */
import { wakeUp } from "../stream/deferred.ts";
import { asError } from "./as_error.ts";
import { ErrorCodes, isTransportError, JsonRpcError, TransportError } from "../wire/errors.ts";
import { errorResponse, errorResponseFor, type IncomingRequest, type RequestId } from "../wire/json_rpc_message.ts";

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

/** What {@linkcode HandlerSlots} needs from the connection. */
export interface SlotHost {
  /** Runs the handler of `request` (or the fallback); throws -32601 when there is none. */
  invoke(request: IncomingRequest, context: RequestContext): unknown;
  send(message: Record<string, unknown>, signal?: AbortSignal): Promise<void>;
  /** Sends a reply the connection itself owes; a failure there is handled by the connection. */
  sendOwnError(reply: Record<string, unknown>): Promise<void>;
  readonly outputClosed: boolean;
  /** A send failed: the connection checks whether output broke. */
  sendFailed(): void;
  report(error: Error): void;
}

/** A request being handled. Its `AbortController` is made only when someone asks for the signal. */
class InflightRequest {
  cancelledByPeer = false;
  done = false;
  #controller: AbortController | undefined;
  #abortedWith: { reason: unknown } | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#abortedWith) this.#controller.abort(this.#abortedWith.reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#abortedWith !== undefined;
  }

  abort(reason: unknown): void {
    if (this.#abortedWith) return;
    this.#abortedWith = { reason };
    this.#controller?.abort(reason);
  }
}

/** The running handlers of one connection. */
export class HandlerSlots {
  readonly max: number;
  /** Fired whenever a handler finishes (and by the connection when waiters should look again). */
  readonly freed = wakeUp();
  readonly #host: SlotHost;
  readonly #inflight = new Map<string, InflightRequest>();
  #active = 0;

  constructor(max: number, host: SlotHost) {
    this.max = max;
    this.#host = host;
  }

  /** Handlers running now. */
  get active(): number {
    return this.#active;
  }

  /** True when a request must wait for a slot. */
  get full(): boolean {
    return this.#active >= this.max;
  }

  has(key: string): boolean {
    return this.#inflight.has(key);
  }

  /** The peer cancelled `requestId`: its signal aborts and no reply is sent. */
  cancelByPeer(key: string, requestId: RequestId): void {
    const entry = this.#inflight.get(key);
    if (!entry || entry.done) return;
    entry.cancelledByPeer = true;
    entry.abort(new TransportError("cancelled", `Request ${JSON.stringify(requestId)} was cancelled by the peer`));
  }

  /** Aborts the signal of every running handler. */
  abortAll(reason: unknown): void {
    for (const entry of this.#inflight.values()) entry.abort(reason);
  }

  /** Runs the handler of `request` in a slot; resolves once its reply is queued (or dropped). */
  run(request: IncomingRequest, key: string): Promise<void> {
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
      const result = await host.invoke(request, context);
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
