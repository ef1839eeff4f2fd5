/**
 * The per-message context a transport hands to the server's dispatch: everything the transport
 * knows and dispatch does not (the legacy session, the signal, where related notifications go,
 * and whether requests can travel back to the client).
 * @module
 */
import type { LoggingLevel } from "../wire/meta_envelope.ts";
import type { Capabilities, Implementation } from "../wire/protocol_versions.ts";

/**
 * Set (to `true`) on a {@linkcode DispatchContext} whose driver sends a `JsonText` result as it is
 * (the stream connection): modern results may then come back as pre-serialised JSON text. Internal.
 */
export const TEXT_RESULTS: unique symbol = Symbol("onemodelcontext.textResults");

/** What `initialize` taught one legacy session. */
export interface LegacySession {
  protocolVersion: string;
  clientInfo: Implementation | undefined;
  clientCapabilities: Capabilities;
  /** Set by `logging/setLevel` on this session; `undefined` until then. */
  logLevel?: LoggingLevel;
  /** True once the client sent `notifications/initialized` (set by dispatch). */
  initialized?: boolean;
  /** The URIs subscribed to with `resources/subscribe` (kept by the server's change notifier). */
  subscriptions?: string[];
  /**
   * The authenticated principal that opened the session over HTTP, kept with it in a session store so
   * that every replica binds the session to the same principal.
   */
  principal?: string;
}

/**
 * The state one legacy session keeps between messages. Explicit so that its owner decides its life:
 * a stream holds one per connection; an HTTP session table one per `Mcp-Session-Id`; a stateless
 * HTTP request passes none. Dispatch fills `legacy` when it answers `initialize`.
 */
export interface ServerSession {
  legacy: LegacySession | undefined;
  /**
   * Sends a notification to this session outside any request (list changes, resource updates). Set
   * by a transport that can reach the client at any time (a stream); absent otherwise.
   */
  notify?(method: string, params?: unknown): Promise<void>;
}

/** Options of `ServerRequestContext.request` (and of a transport's {@linkcode DispatchContext.request}). */
export interface ServerToClientRequestOptions {
  /** Aborting cancels the request (legacy: `notifications/cancelled`) and rejects with the reason. */
  signal?: AbortSignal;
}

/** What a transport knows about one incoming message, given to {@linkcode ServerDispatch.dispatch}. */
export interface DispatchContext {
  /**
   * The legacy session this message belongs to. Absent: `initialize` is answered but remembered
   * nowhere, and a request without the modern envelope follows `unenvelopedRequests`. A stateless
   * legacy HTTP request that names its version (the `MCP-Protocol-Version` header) passes a fresh
   * session built from it instead: `{ legacy: { protocolVersion, clientInfo: undefined, clientCapabilities: {} } }`.
   */
  readonly session?: ServerSession;
  /** Aborted when the request is cancelled or its transport goes away (closed stream, dropped HTTP response). */
  readonly signal: AbortSignal;
  /**
   * Sends a notification related to this request (progress, log messages). Resolves once it is
   * queued; waits while the transport's output is full, so backpressure reaches the handler.
   */
  notify(method: string, params?: unknown): Promise<void>;
  /**
   * True once this request is answered (or cancelled): `notify` sends nothing from then on. Absent
   * where the transport cannot tell.
   */
  readonly answered?: boolean;
  /**
   * Sends a request to the client and resolves with its reply. Present where the transport has a
   * way back (a stream; a sessionful HTTP GET stream); absent on stateless HTTP, where a handler's
   * server-to-client request then fails at once.
   */
  request?(method: string, params: unknown, options?: ServerToClientRequestOptions): Promise<unknown>;
  /**
   * Ends this request's SSE connection before its reply without ending its stream, so the client
   * resumes it with `GET` + `Last-Event-ID` (legacy HTTP with resumability). Absent elsewhere.
   */
  closeStream?(): boolean;
  /**
   * Who sent this message, when the transport authenticated it (e.g. the OAuth `sub` of an HTTP
   * request). A modern `requestState` is bound to it: state issued to one principal is refused for another.
   */
  readonly principal?: string;
  /** `network.transport` of the request's span and metrics: `"pipe"` (a stream: stdio, `MessagePort`) or `"tcp"` (HTTP). */
  readonly networkTransport?: string;
}
