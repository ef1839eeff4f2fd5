/**
 * `LegacyMessageRouter`: where every message a legacy Streamable HTTP session reads goes, from a
 * request's response stream or the GET stream: a reply settles its pending request, a notification
 * goes to the handler of the request it relates to (or the client's), a server-to-client request is
 * answered and its reply POSTed back.
 * @module
 */
import { asError, ProtocolError } from "../../wire/errors.ts";
import {
  classifyMessage,
  errorResponseFor,
  idKey,
  type IncomingRequest,
  type RequestId,
} from "../../wire/json_rpc_message.ts";
import type { RequestContext } from "../../rpc/request_context.ts";
import type { RelatedNotificationHandler } from "../../client/client_exchange.ts";

/** A request of the session waiting for its reply. */
export interface Pending {
  method: string;
  onNotification: RelatedNotificationHandler | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  settled: boolean;
}

/** Settles `entry` (once) with `value`, or with `error` when one is given. */
export function settle(entry: Pending, value: unknown, error?: unknown): void {
  if (entry.settled) return;
  entry.settled = true;
  if (error !== undefined) entry.reject(error);
  else entry.resolve(value);
}

/** What a {@linkcode LegacyMessageRouter} hands messages to. */
export interface LegacyMessageRouterOptions {
  report(error: Error): void;
  onNotification(method: string, params: unknown): unknown;
  onRequest(request: IncomingRequest, context: RequestContext): unknown;
  /** The signal of every server-to-client request's handler (aborted when the session closes). */
  signal: AbortSignal;
  /** Sends a notification on the session (a handler's `notify`). */
  notify(method: string, params?: unknown): Promise<void>;
  /** POSTs `message` (a reply), expecting 202. */
  post(message: Record<string, unknown>, what: string): Promise<void>;
  /** True once the session closed: a reply is not POSTed then. */
  isClosed(): boolean;
}

/**
 * The pending requests of one session, by id key, and the routing of what the server sends.
 *
 * @example
 * ```ts
 * declare const options: LegacyMessageRouterOptions;
 * const router = new LegacyMessageRouter(options);
 * router.dispatch({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }, undefined, undefined);
 * ```
 */
export class LegacyMessageRouter {
  /** The requests waiting for their reply, by `idKey` of their id. */
  readonly pending = new Map<string, Pending>();
  readonly #o: LegacyMessageRouterOptions;

  constructor(options: LegacyMessageRouterOptions) {
    this.#o = options;
  }

  /** Routes one message from any stream: replies to their pending request, notifications, server requests. */
  dispatch(
    value: unknown,
    owner: Pending | undefined,
    ownerId: RequestId | undefined,
    progress?: () => void,
  ): void {
    const m = classifyMessage(value);
    if (m.kind === "result" || m.kind === "error") {
      const entry = m.id === undefined ? undefined : this.pending.get(idKey(m.id));
      if (entry === undefined) {
        this.#o.report(
          new ProtocolError(`A reply for an unknown request id ${JSON.stringify(m.id)} arrived (ignored)`),
        );
        return;
      }
      this.pending.delete(idKey(m.id!));
      if (m.kind === "result") settle(entry, m.result);
      else settle(entry, undefined, m.error);
      return;
    }
    if (m.kind === "notification") {
      if (m.method === "notifications/progress") progress?.();
      const handler = owner?.onNotification ?? this.#o.onNotification;
      try {
        const returned: unknown = handler(m.method, m.params);
        if (returned instanceof Promise) returned.catch((error) => this.#o.report(asError(error)));
      } catch (error) {
        this.#o.report(asError(error));
      }
      return;
    }
    if (m.kind === "request") {
      void this.#answer(m.request);
      return;
    }
    const where = ownerId === undefined
      ? "the GET stream"
      : `the response stream of request ${JSON.stringify(ownerId)}`;
    this.#o.report(new ProtocolError(`Invalid message on ${where}: ${m.reason}`));
  }

  /** Answers a server-to-client request and POSTs the reply. */
  async #answer(request: IncomingRequest): Promise<void> {
    const context: RequestContext = {
      id: request.id,
      method: request.method,
      signal: this.#o.signal,
      notify: (method, params) => this.#o.notify(method, params),
    };
    let reply: Record<string, unknown>;
    try {
      reply = { jsonrpc: "2.0", id: request.id, result: await this.#o.onRequest(request, context) };
    } catch (error) {
      reply = errorResponseFor(request.id, error);
    }
    if (this.#o.isClosed()) return;
    try {
      await this.#o.post(reply, `the reply to ${request.method}`);
    } catch (error) {
      this.#o.report(
        new ProtocolError(
          `Posting the reply to server request ${request.method} failed: ${asError(error).message}`,
          { cause: error },
        ),
      );
    }
  }
}
