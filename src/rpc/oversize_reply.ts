/**
 * A reply from the peer too large to read, and what it does to our calls.
 * @module
 */
import { MessageTooLargeError } from "../wire/errors.ts";
import type { RequestId } from "../wire/json_rpc_message.ts";
import type { PendingCalls } from "./pending_calls.ts";

/** An oversize line whose head says it was a reply (`id` when the head held it). */
export interface OversizeReply {
  kind: "oversize_reply";
  id: RequestId | undefined;
  error: MessageTooLargeError;
}

/**
 * A reply too large to read: the call it answers fails with the size and the limit. Without a
 * readable id nobody can tell which call it answered, so every pending call fails and the
 * connection closes with that error (`fault`), rather than leave one waiting forever.
 */
export function failOversizeReply(
  reply: OversizeReply,
  options: { calls: PendingCalls; fault: (error: Error) => void },
): void {
  const { calls, fault } = options;
  const { limitBytes, sizeBytes } = reply.error;
  if (reply.id !== undefined) {
    calls.fail(reply.id, new MessageTooLargeError(limitBytes, { sizeBytes, requestId: reply.id }));
    return;
  }
  if (calls.size === 0) return; // reported already; nothing waits for it
  fault(new MessageTooLargeError(limitBytes, { sizeBytes, cause: reply.error }));
}
