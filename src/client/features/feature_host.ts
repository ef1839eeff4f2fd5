/**
 * `FeatureHost`: the little the client feature API needs from a connected client. `ContextClient`
 * provides it; tests may provide a fake.
 * @module
 */
import type { RequestId } from "../../wire/protocol/mod.ts";
import type { TimeProvider } from "../../stream/time_provider.ts";
import type { Capabilities, Era } from "../../wire/protocol_versions.ts";

/** Options of {@linkcode FeatureHost.request}. */
export interface HostRequestOptions {
  /** Aborting cancels the request on the wire (`notifications/cancelled`) and rejects with the reason. */
  signal?: AbortSignal;
  /**
   * The JSON-RPC id to use (a listen stream's id is its subscription id). Default: the next counter value.
   * @default the next counter value
   */
  id?: RequestId;
  /**
   * Receives the notifications the transport ties to this request (on a stream: its progress; over
   * HTTP: everything on its response stream) instead of the client's notification handlers.
   */
  onNotification?: (method: string, params: unknown) => unknown;
}

/** What the feature API uses of a connected client. */
export interface FeatureHost {
  /** The negotiated era. */
  era(): Era;
  /** What the server said it can do. */
  serverCapabilities(): Capabilities;
  /** The clock of every timeout and cache expiry. */
  readonly time: TimeProvider;
  /** Sends a request (the modern envelope is added by the host) and resolves with its result. */
  request(method: string, params: Record<string, unknown>, options: HostRequestOptions): Promise<unknown>;
  /** Resolves when the connection has ended. */
  closed(): Promise<unknown>;
  /** Where trouble that is nobody's exception goes (a hostile notification, a failing listener). */
  report(error: Error): void;
  /**
   * True when each request travels on its own connection (HTTP), so one request's stream can break
   * while the client stays connected: a broken modern listen stream then reopens. Absent: false.
   */
  separateRequests?(): boolean;
  /**
   * Where a notification tied to one of the feature API's requests goes (its progress, a listen
   * stream's events, anything on its HTTP response stream). `ContextClient` passes its router, the
   * one path of every server notification, so the transport makes no difference to who hears it.
   * It must hand the notification back to `ClientFeatures.dispatchNotification`; what it returns
   * goes back to the transport (a rejected promise is reported). Absent: the feature API alone hears it.
   */
  relatedNotification?(method: string, params: unknown): unknown;
  /**
   * Answers one server request embedded in a modern `input_required` result (`elicitation/create`,
   * `sampling/createMessage`, `roots/list`; `key` is its `inputRequests` key) with the client's own
   * handler; `undefined` when the client has no handler for `method`. Absent: every
   * `input_required` result is handed to the caller as an `InputRequiredError`.
   */
  answerInputRequest?(
    method: string,
    params: unknown,
    context: { key: string; signal: AbortSignal },
  ): Promise<unknown> | undefined;
  /**
   * The pause before retrying an `input_required` result that asks for nothing (only `requestState`),
   * in milliseconds, on `time`. Default 0.
   * @default 0
   */
  readonly stateOnlyRetryDelay?: number;
}
