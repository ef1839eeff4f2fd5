/**
 * `StreamClientExchange`: the {@linkcode ClientExchange} over one {@linkcode JsonRpcConnection}, the
 * client's stream transport.
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import type { NewlineChannel } from "../stream/newline_channel.ts";
import { idKey, type IncomingRequest } from "../wire/json_rpc_message.ts";
import { progressTokenOf } from "../wire/meta_envelope.ts";
import {
  JsonRpcConnection,
  type JsonRpcConnectionOptions,
  type RequestContext,
} from "../rpc/json_rpc_connection.ts";
import type {
  ClientExchange,
  ExchangeRequestOptions,
  RelatedNotificationHandler,
} from "./client_exchange.ts";

/** What the exchange hands up: requests from the server, and notifications tied to no pending request. */
export interface StreamClientExchangeOptions {
  /** The connection's bounds and hooks, except the two below. */
  connection: Omit<JsonRpcConnectionOptions, "onRequest" | "onNotification">;
  /** Answers a server-to-client request. */
  onRequest(request: IncomingRequest, context: RequestContext): unknown;
  /** Receives a notification that no pending request claimed. */
  onNotification(method: string, params: unknown): unknown;
}

/**
 * Sends requests over a started {@linkcode JsonRpcConnection} and routes `notifications/progress` to
 * the pending request whose progress token it carries (when that request asked for its related
 * notifications); everything else goes to `onNotification`.
 */
export class StreamClientExchange implements ClientExchange {
  /** The JSON-RPC peer underneath (era negotiation and diagnostics use it directly). */
  readonly connection: JsonRpcConnection;
  readonly #related = new Map<string, RelatedNotificationHandler>();
  readonly #unrelated: (method: string, params: unknown) => unknown;

  constructor(transport: Duplex | NewlineChannel, options: StreamClientExchangeOptions) {
    this.#unrelated = options.onNotification;
    this.connection = new JsonRpcConnection(transport, {
      ...options.connection,
      onRequest: options.onRequest,
      onNotification: (method, params) => this.#route(method, params),
    });
  }

  request(method: string, params: unknown, options: ExchangeRequestOptions = {}): Promise<unknown> {
    const { onNotification, signal, id } = options;
    const token = onNotification === undefined ? undefined : progressTokenOf(params);
    if (token === undefined) return this.connection.request(method, params, { signal, id });
    const key = idKey(token);
    this.#related.set(key, onNotification!);
    return this.connection.request(method, params, { signal, id }).finally(() => {
      if (this.#related.get(key) === onNotification) this.#related.delete(key);
    });
  }

  notify(method: string, params?: unknown): Promise<void> {
    return this.connection.notify(method, params);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  #route(method: string, params: unknown): unknown {
    if (method === "notifications/progress" && this.#related.size > 0) {
      const token = (params as { progressToken?: unknown } | undefined)?.progressToken;
      const handler = typeof token === "string" || typeof token === "number"
        ? this.#related.get(idKey(token))
        : undefined;
      if (handler) return handler(method, params);
    }
    return this.#unrelated(method, params);
  }
}
