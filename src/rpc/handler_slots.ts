/**
 * Requests from the peer being handled: at most `maxConcurrentRequests` at once, each with a lazily
 * made `AbortSignal` (peer cancellation, EOF grace, close), its reply sent when it finishes.
 * @module
 */
import { wakeUp } from "../stream/deferred.ts";
import { InflightRequest, type OwedReplies } from "./inflight_request.ts";
import { asError, CancelledError, ErrorCodes, ProtocolError } from "../wire/errors.ts";
import {
  cancelledKey,
  type ClassifiedMessage,
  errorResponse,
  type IncomingRequest,
  replyFor,
  type RequestId,
  requestKey,
} from "../wire/json_rpc_message.ts";
import { JsonText } from "../wire/json_text.ts";
import { PEER_TEXT_QUOTE_CHARS, quotePeerText } from "../wire/quote_peer_text.ts";
import { answerRequest, type Collect } from "./answer_request.ts";
import type { NotificationHandler, RequestHandler } from "./request_context.ts";
import { requestContext } from "./stream_request_context.ts";
import type { SlotFallbacks, SlotHost } from "./slot_host.ts";

export type { NotificationHandler, RequestContext, RequestHandler } from "./request_context.ts";
export type { SlotFallbacks, SlotHost } from "./slot_host.ts";

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
  readonly #owed: OwedReplies = { count: 0 };

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

  /** Request handlers started whose result is not yet produced: each owes a reply the output must take. */
  get owedReplies(): number {
    return this.#owed.count;
  }

  /** True when a request must wait for a slot. */
  get full(): boolean {
    return this.#active >= this.max;
  }

  /**
   * Starts the handler of `request` (a duplicate id in flight gets -32600). Returns what the caller
   * must await before dispatching more: an admission barrier's run (until its reply is queued), the
   * duplicate's error reply; nothing for an ordinary request, which runs on its own.
   */
  dispatch(request: IncomingRequest, key: string, bytes = 0): Promise<void> | undefined {
    const host = this.#host;
    if (this.#inflight.has(key)) {
      host.release(bytes);
      const duplicate = this.#duplicate(request);
      return host.sendOwnError(duplicate);
    }
    const run = this.#run(request, key, bytes);
    return this.#isBarrier(request) ? run : undefined;
  }

  #isBarrier(request: IncomingRequest): boolean {
    try {
      return this.#fallbacks.isBarrier?.(request) === true;
    } catch (error) {
      this.#host.report(asError(error));
      return false;
    }
  }

  #duplicate(request: IncomingRequest): Record<string, unknown> | JsonText {
    // An id JSON.parse could not hold is named and echoed as the peer wrote it, never rounded.
    const named = request.idLiteral === undefined
      ? quotePeerText(request.id)
      : request.idLiteral.length <= PEER_TEXT_QUOTE_CHARS
      ? request.idLiteral
      : `${request.idLiteral.slice(0, PEER_TEXT_QUOTE_CHARS)}… (${request.idLiteral.length} characters)`;
    this.#host.report(new ProtocolError(`Request id ${named} is already in flight`));
    return replyFor(
      request,
      errorResponse(
        request.id,
        ErrorCodes.InvalidRequest,
        `Invalid request: id ${named} is already in flight`,
      ),
    );
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
    const owe = (reply: Record<string, unknown> | JsonText) =>
      texts.push(reply instanceof JsonText ? reply.text : JSON.stringify(reply));
    try {
      for (const element of elements) {
        switch (element.kind) {
          case "request": {
            const request = element.request;
            const key = requestKey(request);
            if (this.#isBarrier(request)) {
              owe(
                errorResponse(
                  request.id,
                  ErrorCodes.InvalidRequest,
                  `Invalid request: ${quotePeerText(request.method)} must not be part of a batch`,
                ),
              );
            } else if (this.#inflight.has(key)) owe(this.#duplicate(request));
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
      if (texts.length > 0 && !host.outputClosed) {
        await host.send(new JsonText(`[${texts.join(",")}]`)).catch(() => host.sendFailed());
      }
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
  notification(method: string, params: unknown, bytes = 0, requestIdLiteral?: string): void {
    if (method === "notifications/cancelled") {
      const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") {
        const key = cancelledKey(requestId, requestIdLiteral);
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
    const entry = new InflightRequest(this.#owed);
    this.#inflight.set(key, entry);
    this.#active++;
    const context = requestContext(request, { entry, host });
    return answerRequest(request, {
      entry,
      context,
      host,
      handler: this.requestHandlers.get(request.method),
      fallback: this.#fallbacks.onRequest,
      collect,
    }).finally(() => {
      this.#inflight.delete(key);
      this.#active--;
      this.#host.release(bytes);
      this.freed.fire();
    });
  }
}
