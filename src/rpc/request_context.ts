/**
 * What a request handler gets: the {@linkcode RequestContext} of one request from the peer, and the
 * handler types.
 * @module
 */
import type { IncomingRequest, RequestId } from "../wire/json_rpc_message.ts";
import type { InflightRequest } from "./inflight_request.ts";
import type { SlotHost } from "./slot_host.ts";

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

/** The context of `request`: its signal is `entry`'s, its notifications go out through `host`. */
export function requestContext(
  request: IncomingRequest,
  options: { entry: InflightRequest; host: SlotHost },
): RequestContext {
  return new StreamRequestContext(request, options.entry, options.host);
}

/** One per request: methods on the prototype, nothing made per request but the object itself. */
class StreamRequestContext implements RequestContext {
  readonly id: RequestId;
  readonly method: string;
  readonly #entry: InflightRequest;
  readonly #host: SlotHost;
  #notify: ((method: string, params?: unknown) => Promise<void>) | undefined;

  constructor(request: IncomingRequest, entry: InflightRequest, host: SlotHost) {
    this.id = request.id;
    this.method = request.method;
    this.#entry = entry;
    this.#host = host;
  }

  get signal(): AbortSignal {
    return this.#entry.signal;
  }

  /** A function of its own (made on first use), so that `const { notify } = context` keeps working. */
  get notify(): (method: string, params?: unknown) => Promise<void> {
    return (this.#notify ??= (method, params) => this.#send(method, params));
  }

  async #send(method: string, params?: unknown): Promise<void> {
    const entry = this.#entry;
    const host = this.#host;
    if (entry.done || entry.aborted || host.outputClosed) return;
    const message: Record<string, unknown> = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    // A notification lost to a closed output needs no answer; a broken output is a fault.
    await host.send(message, entry.signal).catch(() => host.sendFailed());
  }
}
