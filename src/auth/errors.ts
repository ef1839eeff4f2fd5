/**
 * The errors of the authorization layer: one class, {@linkcode AuthError}, with a stable literal `code`.
 * @module
 */

/** The stable codes of {@linkcode AuthError}. */
export type AuthErrorCode =
  /** No Protected Resource Metadata could be found or it was invalid. */
  | "resource_metadata"
  /** The Protected Resource Metadata names another resource than the server the client called. */
  | "resource_mismatch"
  /** No authorization server metadata could be found, or its `issuer` differs from the identifier. */
  | "server_metadata"
  /** The authorization server does not advertise PKCE with S256: the flow is refused. */
  | "pkce_unsupported"
  /** No way to obtain a client identity (no pre-registration, CIMD or registration endpoint), or it failed. */
  | "registration"
  /** The authorization response was refused (`iss` or `state` mismatch, missing `iss`, or an `error`). */
  | "authorization_response"
  /** The user must finish the authorization in a browser; call `finishAuthorization(callbackUrl)`. */
  | "authorization_pending"
  /** The token endpoint refused a grant. */
  | "token"
  /** The server kept answering 401 or 403 after as many authorizations as allowed. */
  | "unauthorized"
  /** An `OAuthLock` (file, Redis) was still held by another holder after its `acquireTimeout`. */
  | "lock_timeout"
  /** An option was missing or invalid. */
  | "invalid_option"
  /** A URL discovery was sent to is not allowed (plain HTTP, a private address, too many redirects), or its body was too long. */
  | "outbound_refused";

/** What the constructor accepts besides the code and message. */
export interface AuthErrorOptions {
  cause?: unknown;
}

const BRAND: unique symbol = Symbol.for("onemodelcontext.authError") as never;

/**
 * An authorization failure; `code` is stable and safe to branch on, `cause` carries the underlying
 * error. `instanceof` answers through a `Symbol.for` brand, so it holds across two copies of the package.
 */
export class AuthError extends Error {
  readonly code: AuthErrorCode;
  constructor(code: AuthErrorCode, message: string, options?: AuthErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = "AuthError";
    Object.defineProperty(this, BRAND, { value: true, enumerable: false });
  }

  static override [Symbol.hasInstance](value: unknown): value is AuthError {
    if (this !== AuthError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }
}
