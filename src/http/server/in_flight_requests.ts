/**
 * `InFlightRequests`: the client requests an endpoint is running: each dispatched to the server,
 * its reply sent on its response channel (an internal error when the server gave none or failed),
 * and, at shutdown, what is pending and the cancel of what is left.
 * @module
 */
import { asError, ErrorCodes } from "../../wire/errors.ts";
import { errorResponse, type RequestId } from "../../wire/json_rpc_message.ts";
import { unavailable } from "./endpoint_responses.ts";
import type { DispatchContext, HttpDispatcher, JsonRpcReply, ServerSession } from "./http_dispatcher.ts";
import type { ResponseChannel } from "./response_channel.ts";

/** What cancels a request's work: an AbortController, or a RequestCancel. */
export type Aborter = Pick<AbortController, "abort">;

/** One request in flight. */
export interface InFlight {
  readonly controller: Aborter;
  readonly channel: ResponseChannel;
  readonly listen: boolean;
  /** Settles once the reply is out and its stream ended. */
  done: Promise<void>;
}

/**
 * The requests in flight on one endpoint, and its background notifications.
 *
 * @example
 * ```ts
 * declare const server: HttpDispatcher, context: DispatchContext, channel: ResponseChannel;
 * declare const id: RequestId, message: unknown, controller: AbortController;
 * const requests = new InFlightRequests(server, (error) => console.error(error));
 * requests.run(id, message, context, channel, controller, false);
 * ```
 */
export class InFlightRequests {
  readonly #server: HttpDispatcher;
  readonly #report: (error: Error) => void;
  readonly #entries = new Set<InFlight>();

  constructor(server: HttpDispatcher, report: (error: Error) => void) {
    this.#server = server;
    this.#report = report;
  }

  /** Dispatches request `id` (`message`) and sends its reply on `channel`; `onReply` sees the reply first. */
  run(
    id: RequestId,
    message: unknown,
    context: DispatchContext,
    channel: ResponseChannel,
    controller: Aborter,
    listen: boolean,
    onReply?: (reply: JsonRpcReply | undefined) => void,
  ): InFlight {
    const entry: InFlight = { controller, channel, listen, done: Promise.resolve() };
    this.#entries.add(entry);
    entry.done = this.#server.dispatch(message, context).then(
      (reply) => this.#send(entry, id, reply, onReply),
      (error: unknown) => this.#sendFailure(entry, id, error),
    );
    return entry;
  }

  /** Sends the reply; the entry leaves the in-flight set once it is out and its stream (if any) ended. */
  #send(
    entry: InFlight,
    id: RequestId,
    reply: JsonRpcReply | undefined,
    onReply: ((reply: JsonRpcReply | undefined) => void) | undefined,
  ): Promise<void> {
    const { channel } = entry;
    let sent: Promise<void>;
    try {
      onReply?.(reply);
      sent = channel.reply(
        reply ?? errorResponse(id, ErrorCodes.InternalError, "Internal error: the server gave no reply"),
      );
    } catch (error) {
      return this.#sendFailure(entry, id, error);
    }
    if (!channel.streaming) {
      // A JSON reply is settled as it is given: nothing more to wait for.
      this.#entries.delete(entry);
      return sent;
    }
    return sent.then(() => channel.closed, (error: unknown) => this.#sendFailure(entry, id, error)).finally(
      () => this.#entries.delete(entry),
    );
  }

  #sendFailure(entry: InFlight, id: RequestId, error: unknown): Promise<void> {
    const { channel } = entry;
    this.#report(asError(error));
    return channel
      .reply(errorResponse(id, ErrorCodes.InternalError, `Internal error: ${asError(error).message}`))
      .catch(() => {})
      .then(() => channel.closed)
      .finally(() => this.#entries.delete(entry));
  }

  /** Dispatches a notification without waiting for it; `after` runs once it was handled. */
  notifyInBackground(
    message: unknown,
    session: ServerSession | undefined,
    signal: AbortSignal,
    after?: () => void,
  ): void {
    const context: DispatchContext = { session, signal, notify: () => Promise.resolve() };
    this.#server.dispatch(message, context).then(after, (error: unknown) => this.#report(asError(error)));
  }

  /** Ends every `subscriptions/listen` in flight with `reason` (their graceful result). */
  abortListens(reason: Error): void {
    for (const entry of this.#entries) if (entry.listen) entry.controller.abort(reason);
  }

  /** Settles once each request now in flight finished (none when nothing is in flight). */
  pending(): Promise<void>[] {
    return [...this.#entries].map((entry) => entry.done);
  }

  /** Cancels every request still in flight with `reason`; one not answered yet gets 503. */
  cancelAll(reason: Error): void {
    for (const entry of this.#entries) {
      entry.controller.abort(reason);
      entry.channel.abort(reason, unavailable());
    }
  }
}
