/**
 * `sendElicitationComplete`: the server's `notifications/elicitation/complete` for a URL-mode
 * elicitation (2025-11-25), and nothing in the modern era, which removed it (2026-07-28: the client
 * retries the request and the server decides from its state whether the interaction is done).
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import type { Era } from "../../wire/protocol_versions.ts";

/** Sends one notification. */
type Send = (method: string, params?: unknown) => Promise<void>;

/** What {@linkcode sendElicitationComplete} needs of a request context. */
export interface ElicitationCompleteTarget {
  readonly era: Era;
  /** Sends on the request's stream while it is open. */
  notify: Send;
  /** True once the request is answered (its stream carries nothing more); absent where unknown. */
  readonly answered?: boolean;
  /** Reaches the session outside any request (a stream connection, an HTTP session's GET stream), if it can be. */
  readonly sessionNotify?: Send | undefined;
}

/**
 * Legacy: sends `notifications/elicitation/complete` `{elicitationId}` on the request's stream while
 * the request is open, on its session once it is answered, and resolves true; resolves false when
 * nothing can carry it (answered, no reachable session). Modern: sends nothing and resolves false.
 * Rejects with `InvalidOptionError` when `elicitationId` is not a non-empty string.
 */
export function sendElicitationComplete(
  target: ElicitationCompleteTarget,
  elicitationId: string,
): Promise<boolean> {
  if (typeof elicitationId !== "string" || elicitationId.length === 0) {
    return Promise.reject(
      new InvalidOptionError(
        `The elicitationId of notifications/elicitation/complete must be a non-empty string, got ${
          JSON.stringify(elicitationId) ?? String(elicitationId)
        }`,
      ),
    );
  }
  if (target.era === "modern") return Promise.resolve(false);
  const send = target.answered === true ? target.sessionNotify : target.notify;
  if (send === undefined) return Promise.resolve(false);
  return send("notifications/elicitation/complete", { elicitationId }).then(() => true);
}
