/**
 * What the HTTP handler needs from a server: the message-level seam (one JSON-RPC message and what
 * the transport knows about it in, the reply out) and the versions it speaks. `ContextServer`
 * provides both; tests pass small fakes.
 * @module
 */
import type { ServerVersions } from "../wire/server_versions.ts";
import type { ParamHeader } from "./mcp_header_annotations.ts";
import type { Capabilities, Implementation } from "../wire/protocol_versions.ts";
import type { LoggingLevel } from "../wire/meta_envelope.ts";

/** A JSON-RPC reply: `{ jsonrpc, id, result }` or `{ jsonrpc, id?, error }`. */
export type JsonRpcReply = Record<string, unknown>;

/** What `initialize` taught one legacy session. */
export interface LegacySession {
  protocolVersion: string;
  clientInfo: Implementation | undefined;
  clientCapabilities: Capabilities;
  logLevel?: LoggingLevel;
}

/** The state one legacy session keeps between messages; dispatch fills `legacy` on `initialize`. */
export interface ServerSession {
  legacy: LegacySession | undefined;
}

/** What the transport knows about one incoming message. */
export interface DispatchContext {
  /** The legacy session; absent for a modern request and for a stateless `initialize`. */
  readonly session?: ServerSession;
  /** Aborted when the request is cancelled or its transport goes away. */
  readonly signal: AbortSignal;
  /** Sends a notification related to this request; waits while the output is full. */
  notify(method: string, params?: unknown): Promise<void>;
  /** Sends a request to the client; absent where there is no way back (stateless HTTP). */
  request?(method: string, params: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
}

/** The server side of {@linkcode createHttpHandler}: `ContextServer` fits it. */
export interface HttpDispatcher {
  /**
   * Dispatches one parsed JSON-RPC message: resolves with the reply of a request (an error reply
   * for a failed one), `undefined` for a notification.
   */
  dispatch(message: unknown, context: DispatchContext): Promise<JsonRpcReply | undefined>;
  /** The protocol versions the server speaks, by era. */
  readonly versions: Pick<ServerVersions, "legacy" | "modern" | "advertised" | "supportsModern">;
  /**
   * The mirrored parameters (`x-mcp-header` annotations) of tool `name`, for `Mcp-Param-*`
   * validation; `undefined` for none. Optional: the handler's `paramHeaders` option wins over it.
   */
  paramHeaders?(toolName: string): readonly ParamHeader[] | undefined;
}
