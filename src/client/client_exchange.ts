/**
 * `ClientExchange`: the client's message-level seam, the mirror of the server's dispatch. The
 * client's feature code sends one request through it and gets that request's related notifications
 * and its reply, or cancels it; it never sees the transport. A stream (`StreamClientExchange`, over
 * `JsonRpcConnection`) is one implementation; an HTTP client transport (one POST per request) is the next.
 * @module
 */

/** Receives one notification tied to a request. */
export type RelatedNotificationHandler = (method: string, params: unknown) => void;

/** Options of one {@linkcode ClientExchange.request}. */
export interface ExchangeRequestOptions {
  /** Aborting cancels the request (a stream sends `notifications/cancelled`) and rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Notifications the transport ties to this request while it is pending: on a stream, those that
   * carry its `params._meta.progressToken`; over HTTP, everything on its response stream. They go
   * here instead of the client's notification handlers.
   */
  onNotification?: RelatedNotificationHandler;
  /**
   * The JSON-RPC id to send (a listen stream's subscription id is its request id). Default: the transport's own.
   * @default the transport's own
   */
  id?: string | number;
  /** Safe to repeat: an HTTP transport re-issues it once (new id) when its response stream breaks before the reply. */
  idempotent?: boolean;
}

/** What a client's feature code needs from a transport, one request at a time. */
export interface ClientExchange {
  /**
   * Sends one request (in the modern era its params already carry the `_meta` envelope) and resolves
   * with its result. Rejects with the server's `JsonRpcError`, with the signal's reason on cancel,
   * or with a `TransportError` when the transport ends first; never left hanging.
   */
  request(method: string, params: unknown, options?: ExchangeRequestOptions): Promise<unknown>;
  /** Sends one notification; resolves once it is queued (or posted). */
  notify(method: string, params?: unknown): Promise<void>;
  /** Ends the exchange: pending requests reject, nothing more is sent. */
  close(): Promise<void>;
}
