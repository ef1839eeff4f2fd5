/**
 * `sendElicitationComplete`: the server's `notifications/elicitation/complete` for a URL-mode
 * elicitation (2025-11-25), and nothing in the modern era, which removed it (2026-07-28: the client
 * retries the request and the server decides from its state whether the interaction is done).
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import type { Era } from "../../wire/protocol_versions.ts";

/** What {@linkcode sendElicitationComplete} needs of a request context. */
export interface ElicitationCompleteTarget {
  readonly era: Era;
  notify(method: string, params?: unknown): Promise<void>;
}

/**
 * Legacy: sends `notifications/elicitation/complete` `{elicitationId}` on `target` and resolves true.
 * Modern: sends nothing and resolves false. Rejects with `InvalidOptionError` when `elicitationId` is
 * not a non-empty string.
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
  return target.notify("notifications/elicitation/complete", { elicitationId }).then(() => true);
}
