/**
 * What a request handler gets: the {@linkcode RequestContext} of one request from the peer, and the
 * handler types. The connection's implementation is `stream_request_context.ts`.
 * @module
 */
import type { RequestId } from "../wire/json_rpc_message.ts";

/** What a request handler gets besides the params. */
export interface RequestContext {
  readonly id: RequestId;
  readonly method: string;
  /** Aborted on `notifications/cancelled` for this id, after the EOF grace period, and on close. */
  readonly signal: AbortSignal;
  /** Sends a notification tied to this request; a no-op once the request is done or cancelled. */
  notify(method: string, params?: unknown): Promise<void>;
  /** True once the request is answered or cancelled (its `notify` sends nothing from then on). */
  readonly done?: boolean;
}

/** Answers one request; the value becomes `result`, a thrown {@linkcode JsonRpcError} the error. */
export type RequestHandler = (params: unknown, context: RequestContext) => unknown;
/** Handles one notification. */
export type NotificationHandler = (params: unknown) => unknown;
