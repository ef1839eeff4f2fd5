/**
 * A {@linkcode TokenVerifier} for JWT access tokens (RFC 9068), on `jose`. Import it from its own
 * module: `jose` is loaded only by applications that use it.
 * @module
 */
import {
  createRemoteJWKSet,
  type CryptoKey,
  errors,
  type JWK,
  jwtVerify,
  type JWTVerifyGetKey,
  type KeyObject,
} from "jose";
import { AuthError } from "./errors.ts";
import type { AccessTokenInfo, TokenVerifier } from "./require_bearer.ts";

/** Options of {@linkcode jwtVerifier}. */
export interface JwtVerifierOptions {
  /** The authorization server's JWKS URL (fetched and cached by `jose`). One of `jwksUrl` and `key`. */
  jwksUrl?: string | URL;
  /** A verification key (or a `jose` key resolver). */
  key?: CryptoKey | KeyObject | JWK | Uint8Array | JWTVerifyGetKey;
  /** The expected `iss`. */
  issuer: string;
  /** The expected `aud`: this server's canonical URL (RFC 8707). Tokens for another audience are refused. */
  audience: string | string[];
  /**
   * Allowed algorithms. Default: `jose`'s (those of the key).
   * @default `jose`'s (those of the key)
   */
  algorithms?: string[];
  /**
   * Seconds of clock tolerance for `exp`/`nbf`, at most 300. Default 0.
   * @default 0
   */
  clockTolerance?: number;
  /**
   * Accept tokens whose header `typ` is absent or `JWT` besides `at+jwt`, for issuers that predate
   * RFC 9068. Any other `typ` is refused all the same. Default `false`: only `at+jwt` (or
   * `application/at+jwt`), so an ID token is never taken for an access token.
   * @default false
   */
  allowUntypedTokens?: boolean;
}

/** The largest {@linkcode JwtVerifierOptions.clockTolerance}, in seconds. */
export const MAX_CLOCK_TOLERANCE_SECONDS = 300;

/**
 * A verifier that accepts a JWT access token (RFC 9068: header `typ` `at+jwt`, an `exp` claim) signed
 * by the issuer's key, with the expected `iss` and `aud`, not expired; its scopes come from `scope` (space-separated) or `scp` (array).
 *
 * @example
 * ```ts
 * const verify = jwtVerifier({ jwksUrl: "https://auth.example.com/jwks", issuer: "https://auth.example.com", audience: "https://mcp.example.com/mcp" });
 * ```
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  if ((options.jwksUrl === undefined) === (options.key === undefined)) {
    const given = options.jwksUrl === undefined ? "neither" : "both";
    throw new AuthError("invalid_option", `Give jwtVerifier exactly one of jwksUrl and key, not ${given}`);
  }
  const tolerance = options.clockTolerance ?? 0;
  if (typeof tolerance !== "number" || !(tolerance >= 0 && tolerance <= MAX_CLOCK_TOLERANCE_SECONDS)) {
    throw new AuthError(
      "invalid_option",
      `Option clockTolerance must be from 0 to ${MAX_CLOCK_TOLERANCE_SECONDS} seconds, got ${
        String(tolerance)
      }`,
    );
  }
  const untyped = options.allowUntypedTokens === true;
  const key = options.jwksUrl !== undefined ? createRemoteJWKSet(new URL(options.jwksUrl)) : options.key;
  const verifyOptions = {
    issuer: options.issuer,
    audience: options.audience,
    // RFC 9068 §2.2: exp is required; a token without it would never expire.
    requiredClaims: ["exp"],
    clockTolerance: tolerance,
    ...(untyped ? {} : { typ: "at+jwt" }),
    ...(options.algorithms === undefined ? {} : { algorithms: options.algorithms }),
  };
  return async (token) => {
    let payload: Record<string, unknown>;
    try {
      // `key` is either a resolver or a key; jose accepts both through the same overloaded call.
      const verified = await jwtVerify(token, key as JWTVerifyGetKey, verifyOptions);
      if (untyped && !acceptableLegacyTyp(verified.protectedHeader.typ)) return undefined;
      payload = verified.payload;
    } catch (error) {
      // A token that fails verification is invalid (401); a JWKS that cannot be fetched is a server fault.
      if (
        error instanceof errors.JOSEError && error.code !== "ERR_JWKS_TIMEOUT" &&
        error.code !== "ERR_JWKS_INVALID"
      ) return undefined;
      throw error;
    }
    const info: AccessTokenInfo = { scopes: scopesOf(payload), claims: payload };
    if (typeof payload.sub === "string") info.subject = payload.sub;
    const clientId = payload.client_id ?? payload.azp;
    if (typeof clientId === "string") info.clientId = clientId;
    if (typeof payload.exp === "number") info.expiresAt = payload.exp;
    return info;
  };
}

/** With `allowUntypedTokens`: no `typ`, `JWT`, or `at+jwt` (RFC 9068 §2.1, media type prefix optional). */
function acceptableLegacyTyp(typ: unknown): boolean {
  if (typ === undefined) return true;
  if (typeof typ !== "string") return false;
  const type = typ.toLowerCase().replace(/^application\//, "");
  return type === "jwt" || type === "at+jwt";
}

function scopesOf(payload: Record<string, unknown>): string[] {
  if (typeof payload.scope === "string") return payload.scope.split(" ").filter((s) => s !== "");
  if (Array.isArray(payload.scp)) return payload.scp.filter((s): s is string => typeof s === "string");
  if (typeof payload.scp === "string") return payload.scp.split(" ").filter((s) => s !== "");
  return [];
}
