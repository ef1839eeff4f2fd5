/**
 * What {@linkcode HandlerSlots} needs: {@linkcode SlotHost} from the connection, {@linkcode SlotFallbacks}
 * from its options.
 * @module
 */
import type { IncomingRequest } from "../wire/json_rpc_message.ts";
import type { JsonText } from "../wire/json_text.ts";
import type { BacklogEntry } from "./backlog_entry.ts";
import type { Reply } from "./pending_calls.ts";
import type { RequestContext } from "./request_context.ts";

/** The fallbacks and the barrier test, from the connection's options. */
export interface SlotFallbacks {
  onRequest?: (request: IncomingRequest, context: RequestContext) => unknown;
  onNotification?: (method: string, params: unknown) => unknown;
  isBarrier?: (request: IncomingRequest) => boolean;
}

/** What {@linkcode HandlerSlots} needs from the connection. */
export interface SlotHost {
  send(message: Record<string, unknown> | JsonText, signal?: AbortSignal): Promise<void>;
  /** Sends a reply the connection itself owes; a failure there is handled by the connection. */
  sendOwnError(reply: Record<string, unknown> | JsonText): Promise<void>;
  readonly outputClosed: boolean;
  /** A send failed: the connection checks whether output broke. */
  sendFailed(): void;
  /** Removes input entries not yet dispatched that match. */
  dropFromBacklog(match: (entry: BacklogEntry) => boolean): unknown;
  /** A handler finished: the bytes of its message no longer count against `maxInFlightBytes`. */
  release(bytes: number): void;
  /** A reply to one of our calls (inside a batch). */
  settle(reply: Reply): void;
  report(error: Error): void;
}
