/**
 * `internalError`: what the client sees of a handler's exception that is not a `JsonRpcError`.
 * @module
 */
import { ErrorCodes, isTransportError, JsonRpcError } from "../wire/errors.ts";

/** The message of a -32603 reply to an unexpected handler exception, unless `exposeInternalErrors`. */
export const INTERNAL_ERROR_MESSAGE = "Internal error";

/**
 * Codes of the library's own errors that a handler may let through unchanged (a client that did not
 * answer `ctx.elicit` in time, a transport that cannot ask the client, a cancelled or closed request):
 * their messages are the library's, about the protocol, and tell the client what went wrong, so they
 * keep their message even without `exposeInternalErrors`. Every other exception is "Internal error".
 */
const LIBRARY_OUTCOMES: ReadonlySet<string> = new Set(["timeout", "protocol", "cancelled", "closed"]);

/**
 * The -32603 that replaces `error` (`full` is `error` as an `Error`): "Internal error", or the
 * exception's own message with `exposeInternalErrors` or when it is one of the library's outcomes.
 */
export function internalError(full: Error, error: unknown, exposeInternalErrors: boolean): JsonRpcError {
  const expose = exposeInternalErrors || (isTransportError(error) && LIBRARY_OUTCOMES.has(error.code));
  return new JsonRpcError(
    ErrorCodes.InternalError,
    expose ? full.message || INTERNAL_ERROR_MESSAGE : INTERNAL_ERROR_MESSAGE,
  );
}
