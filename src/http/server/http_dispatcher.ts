/**
 * What the HTTP handler needs from a server: the message-level seam (one JSON-RPC message and what
 * the transport knows about it in, the reply out) and the versions it speaks. `ContextServer`
 * provides both; tests pass small fakes.
 * @module
 */
import type { JsonRpcReply } from "../../server/dispatch.ts";
import type { DispatchContext, LegacySession, ServerSession } from "../../server/dispatch_context.ts";
import type { ServerVersions } from "../../wire/server_versions.ts";

export type { DispatchContext, JsonRpcReply, LegacySession, ServerSession };

/** The server side of `createHttpHandler`: `ContextServer` fits it. */
export interface HttpDispatcher {
  /**
   * Dispatches one parsed JSON-RPC message: resolves with the reply of a request (an error reply
   * for a failed one), `undefined` for a notification.
   */
  dispatch(message: unknown, context: DispatchContext): Promise<JsonRpcReply | undefined>;
  /** The protocol versions the server speaks, by era. */
  readonly versions: Pick<ServerVersions, "legacy" | "modern" | "advertised" | "supportsModern">;
  /**
   * The `inputSchema` of registered tool `name` (`undefined` when there is none), from which the
   * handler reads the `x-mcp-header` annotations to validate `Mcp-Param-*` headers. Optional: the
   * handler's `paramHeaders` option wins over it.
   */
  toolInputSchema?(toolName: string): unknown;
  /**
   * Called when a legacy HTTP session starts, so the server can reach it outside requests (list
   * changes, resource updates go out on its GET stream through `session.notify`); the returned
   * function is called when the session ends. Optional.
   */
  trackSession?(session: ServerSession): () => void;
}
