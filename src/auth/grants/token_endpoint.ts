/**
 * One token request of any grant, and the tokens it issued kept in the store.
 * @module
 */
import * as oauth from "oauth4webapi";
import { AuthError } from "../errors.ts";
import type { StoredTokens } from "../oauth_store.ts";
import type { DPoPKey } from "../dpop_proofs.ts";
import type { OAuthHttpOptions } from "../client_identity.ts";
import type { GrantContext } from "./grant_context.ts";

/** What the stored tokens record beside the token response. */
export interface TokenContext {
  issuer: string;
  clientId: string;
  resource?: string;
  scope?: string;
  /** The refresh token to keep when the response brings no new one. */
  refreshToken?: string;
}

/** One token request of {@linkcode requestTokens}. */
export interface TokenRequest {
  /** The grant's name in error messages (`authorization_code`, `refresh_token`, …). */
  grant: string;
  /** The DPoP key the token is to be bound to; undefined for a Bearer token. */
  dpop: DPoPKey | undefined;
  /** Sends the request with these `oauth4webapi` options and processes the response. */
  run(http: OAuthHttpOptions & { DPoP?: oauth.DPoPHandle }): Promise<oauth.TokenEndpointResponse>;
}

/** A token response, and what the stored tokens record beside it. */
export interface IssuedTokens extends TokenContext {
  response: oauth.TokenEndpointResponse;
  /** The key a DPoP-bound token is bound to. */
  dpop?: DPoPKey | undefined;
}

/**
 * Runs one token request at `as`, once more with the nonce of a `400 use_dpop_nonce` when DPoP is
 * used. Rejects with code `token` when the server refuses or issues a token type other than Bearer
 * (or DPoP, with DPoP in use).
 */
export async function requestTokens(
  context: GrantContext,
  as: oauth.AuthorizationServer,
  request: TokenRequest,
): Promise<oauth.TokenEndpointResponse> {
  const { dpop, run } = request;
  let response: oauth.TokenEndpointResponse;
  const http = dpop === undefined ? context.http(as) : { ...context.http(as), DPoP: dpop.handle };
  try {
    try {
      response = await run(http);
    } catch (error) {
      // RFC 9449 §8: the handle cached the nonce of the 400 use_dpop_nonce; one more try carries it.
      if (dpop === undefined || !oauth.isDPoPNonceError(error)) throw error;
      response = await run(http);
    }
  } catch (cause) {
    if (cause instanceof AuthError) throw cause;
    const detail = cause instanceof oauth.ResponseBodyError
      ? `${cause.error}${cause.error_description ? ` (${cause.error_description})` : ""}`
      : (cause as Error).message;
    throw new AuthError(
      "token",
      `The ${request.grant} token request to ${as.token_endpoint} failed: ${detail}`,
      {
        cause,
      },
    );
  }
  if (response.token_type !== "bearer" && (response.token_type !== "dpop" || dpop === undefined)) {
    throw new AuthError(
      "token",
      `The token endpoint ${as.token_endpoint} issued a ${JSON.stringify(response.token_type)} token; ${
        dpop === undefined ? "only Bearer is expected" : "only Bearer and DPoP are expected"
      }`,
    );
  }
  return response;
}

/** Keeps the issued tokens for `serverUrl` (a DPoP-bound token with its key's thumbprint). */
export async function saveTokens(
  context: GrantContext,
  serverUrl: string,
  issued: IssuedTokens,
): Promise<StoredTokens> {
  const { response, dpop } = issued;
  const tokens: StoredTokens = {
    accessToken: response.access_token,
    tokenType: response.token_type === "dpop" ? "DPoP" : "Bearer",
    issuer: issued.issuer,
    clientId: issued.clientId,
  };
  if (tokens.tokenType === "DPoP" && dpop !== undefined) tokens.dpopJkt = dpop.thumbprint;
  const refreshToken = response.refresh_token ?? issued.refreshToken;
  if (refreshToken !== undefined) tokens.refreshToken = refreshToken;
  if (typeof response.expires_in === "number") {
    tokens.expiresAt = context.time.now() + response.expires_in * 1000;
  }
  const scope = issued.scope ?? response.scope;
  if (scope !== undefined) tokens.scope = scope;
  if (issued.resource !== undefined) tokens.resource = issued.resource;
  await context.store.saveTokens(serverUrl, tokens);
  return tokens;
}
