/**
 * `ChannelDispatchContext`: the {@linkcode DispatchContext} of one HTTP request whose reply goes back
 * on its own response (modern requests, stateless legacy ones): the cancel signal made only when
 * read, related notifications to the response channel, results accepted as JSON text.
 * @module
 */
import { type DispatchContext, type ServerSession, TEXT_RESULTS } from "../../server/dispatch_context.ts";
import { WHEN_CANCELLED } from "../../server/when_cancelled.ts";
import type { RequestCancel } from "./request_cancel.ts";
import type { ResponseChannel } from "./response_channel.ts";

/**
 * One request's context for the server's dispatch. Its `signal` is `cancel`'s (made on first read);
 * `notify` sends on `channel` (opening its SSE stream).
 *
 * @example
 * ```ts
 * declare const request: Request, channel: ResponseChannel, server: HttpDispatcher, message: unknown;
 * const context = new ChannelDispatchContext(new RequestCancel(request, "Gone"), channel, undefined);
 * void server.dispatch(message, context);
 * ```
 */
export class ChannelDispatchContext implements DispatchContext {
  /** A modern result may come back as its JSON text: the channel splices it into the reply. */
  readonly [TEXT_RESULTS] = true;
  readonly networkTransport = "tcp";
  readonly session: ServerSession | undefined;
  readonly principal: string | undefined;
  readonly #cancel: RequestCancel;
  readonly #channel: ResponseChannel;

  constructor(
    cancel: RequestCancel,
    channel: ResponseChannel,
    session: ServerSession | undefined,
    principal?: string,
  ) {
    this.#cancel = cancel;
    this.#channel = channel;
    this.session = session;
    this.principal = principal;
  }

  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  /** The cancel's callback, with no signal made (an idle listen stream waits this way). */
  [WHEN_CANCELLED](callback: () => void): void {
    this.#cancel.whenAborted(callback);
  }

  notify(method: string, params?: unknown): Promise<void> {
    return this.#channel.notify(notificationOf(method, params));
  }

  get answered(): boolean {
    return this.#channel.replied;
  }
}

/** A JSON-RPC notification message (no `params` member when there are none). */
export function notificationOf(method: string, params: unknown): Record<string, unknown> {
  const message: Record<string, unknown> = { jsonrpc: "2.0", method };
  if (params !== undefined) message.params = params;
  return message;
}
