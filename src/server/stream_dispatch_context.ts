/**
 * The stream driver of the server's dispatch: one {@linkcode JsonRpcConnection} per served stream,
 * one legacy session per connection, and a {@linkcode DispatchContext} per request built from the
 * connection's own request context.
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import type { NewlineChannel } from "../stream/newline_channel.ts";
import {
  JsonRpcConnection,
  type JsonRpcConnectionOptions,
  type RequestContext,
} from "../rpc/json_rpc_connection.ts";
import {
  type DispatchContext,
  type ServerSession,
  type ServerToClientRequestOptions,
  TEXT_RESULTS,
} from "./dispatch_context.ts";
import type { ServerDispatch } from "./dispatch.ts";

/** One request's {@linkcode DispatchContext} on a stream; its signal is made only if read. */
export class StreamDispatchContext implements DispatchContext {
  /** The connection sends a `JsonText` result as it is. */
  readonly [TEXT_RESULTS] = true;
  /** A stream: stdio, a `MessagePort`, any duplex. */
  readonly networkTransport = "pipe";
  readonly session: ServerSession;
  readonly #rpc: RequestContext;
  readonly #connection: JsonRpcConnection;

  constructor(session: ServerSession, rpc: RequestContext, connection: JsonRpcConnection) {
    this.session = session;
    this.#rpc = rpc;
    this.#connection = connection;
  }

  /**
   * A connection over `transport` that drives `dispatch`: `initialize` is its admission barrier,
   * requests go to `dispatch.answer` and notifications to `dispatch.notification`. Not started.
   * Returns the connection and its session (whose `notify` reaches the client at any time).
   */
  static drive(
    dispatch: ServerDispatch,
    transport: Duplex | NewlineChannel,
    options: JsonRpcConnectionOptions,
  ): { connection: JsonRpcConnection; session: ServerSession } {
    const session: ServerSession = { legacy: undefined };
    const connection: JsonRpcConnection = new JsonRpcConnection(transport, {
      ...options,
      isBarrier: (request) => request.method === "initialize",
      // 2025-03-26 is the one version with JSON-RPC batches: served on sessions that negotiated it.
      acceptsBatch: () => session.legacy?.protocolVersion === "2025-03-26",
      onRequest: (request, rpc) =>
        dispatch.answer(request, new StreamDispatchContext(session, rpc, connection)),
      onNotification: (method, params) => dispatch.notification(method, params, session),
    });
    session.notify = (method, params) => connection.notify(method, params);
    return { connection, session };
  }

  get signal(): AbortSignal {
    return this.#rpc.signal;
  }

  notify(method: string, params?: unknown): Promise<void> {
    return this.#rpc.notify(method, params);
  }

  get answered(): boolean {
    return this.#rpc.done ?? false;
  }

  request(method: string, params: unknown, options: ServerToClientRequestOptions = {}): Promise<unknown> {
    return this.#connection.request(method, params, { signal: options.signal });
  }
}
