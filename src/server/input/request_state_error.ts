/**
 * `RequestStateError`: a `requestState` (or `inputResponses`) that the server refuses; the client gets
 * JSON-RPC -32602 with a message that says why and `data.reason`.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../../wire/errors.ts";

/** Why a `requestState` was refused. */
export type RequestStateErrorReason =
  /** Not a string, not our `body.tag` base64url shape, or a payload that is not the JSON we write. */
  | "malformed"
  /** Longer than `maxStateBytes`: refused before any decoding. */
  | "oversize"
  /** The MAC does not verify: modified, or sealed with another key (another deployment, or a restarted process without a shared key). */
  | "tampered"
  /** Verified, but its lifetime ran out. */
  | "expired"
  /** Verified, but sealed for another method, other params or another principal. */
  | "foreign"
  /** `inputResponses` is not an object, or an answer does not have the shape its method returns. */
  | "invalid_input";

/**
 * A refused `requestState` or `inputResponses`. It is a {@linkcode JsonRpcError} (-32602), so thrown
 * from a handler it becomes the error reply as is.
 *
 * @example
 * ```ts
 * declare const codec: RequestStateCodec, state: string, binding: RequestStateBinding;
 * try { await codec.open(state, binding); } catch (error) {
 *   if (error instanceof RequestStateError && error.reason === "expired") console.log(error.message);
 * }
 * ```
 */
export class RequestStateError extends JsonRpcError {
  /** Stable and safe to branch on. */
  readonly reason: RequestStateErrorReason;
  declare readonly data: { reason: RequestStateErrorReason };
  constructor(reason: RequestStateErrorReason, message: string) {
    super(ErrorCodes.InvalidParams, message, { reason });
    this.reason = reason;
  }
}
