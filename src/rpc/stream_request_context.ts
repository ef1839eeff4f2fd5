/**
 * `requestContext`: the {@linkcode RequestContext} the connection gives each request's handler, its
 * notifications sent through the connection's {@linkcode SlotHost}.
 * @module
 */
import type { IncomingRequest, RequestId } from "../wire/json_rpc_message.ts";
import type { InflightRequest } from "./inflight_request.ts";
import type { RequestContext } from "./request_context.ts";
import type { SlotHost } from "./slot_host.ts";

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

  get done(): boolean {
    return this.#entry.done || this.#entry.aborted;
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
