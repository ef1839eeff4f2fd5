/**
 * The refresh token grant: a held refresh token spent once, under the store's lock when it has one.
 * @module
 */
import * as oauth from "oauth4webapi";
import { AuthError } from "../errors.ts";
import type { StoredTokens } from "../oauth_store.ts";
import type { DPoPKey } from "../dpop_proofs.ts";
import type { GrantContext } from "./grant_context.ts";
import { requestTokens, saveTokens, type TokenContext } from "./token_endpoint.ts";

/** The tokens {@linkcode refreshTokens} refreshes. */
export interface HeldTokens {
  tokens: StoredTokens;
  /**
   * The access token the server refused. Default: `tokens.accessToken`.
   * @default tokens.accessToken
   */
  refused?: string;
}

/**
 * Refreshes the tokens held for `serverUrl` under the store's lock, when it has one: inside, the
 * tokens are read again, and tokens another holder saved meanwhile (other than the refused access
 * token) are used instead of spending the refresh token a second time. Undefined when no tokens are
 * left: authorize again.
 */
export function refreshTokens(
  context: GrantContext,
  serverUrl: string,
  held: HeldTokens,
): Promise<StoredTokens | undefined> {
  const { tokens, refused = tokens.accessToken } = held;
  const lock = context.store.lock;
  if (lock === undefined) return refreshNow(context, serverUrl, tokens);
  return lock.withLock(`refresh ${serverUrl}`, async () => {
    const current = await context.store.getTokens(serverUrl);
    if (current === undefined) return undefined; // dropped by another holder: authorize again
    if (current.accessToken !== refused && !context.expired(current)) return current;
    return refreshNow(context, serverUrl, current);
  });
}

async function refreshNow(
  context: GrantContext,
  serverUrl: string,
  tokens: StoredTokens,
): Promise<StoredTokens | undefined> {
  const refreshToken = tokens.refreshToken;
  if (refreshToken === undefined) return undefined;
  try {
    const as = await context.serverMetadata(tokens.issuer);
    const stored = await context.clientFor(as);
    if (stored.clientId !== tokens.clientId) {
      throw new AuthError(
        "token",
        `The refresh token belongs to client ${tokens.clientId}, not ${stored.clientId}`,
      );
    }
    const client: oauth.Client = { client_id: stored.clientId };
    const additionalParameters: Record<string, string> = {};
    if (tokens.resource !== undefined) additionalParameters.resource = tokens.resource;
    let dpop: DPoPKey | undefined;
    if (tokens.tokenType === "DPoP") {
      dpop = tokens.dpopJkt === undefined ? undefined : await context.dpop?.byThumbprint(tokens.dpopJkt);
      // Bound to a key this client does not hold (another process's, or one lost in a restart): leave
      // the stored tokens to their holder and authorize anew.
      if (dpop === undefined) return undefined;
    }
    const response = await requestTokens(context, as, {
      grant: "refresh_token",
      dpop,
      run: async (http) => {
        const response = await oauth.refreshTokenGrantRequest(
          as,
          client,
          context.clientAuth(stored, as),
          refreshToken,
          { ...http, additionalParameters },
        );
        return oauth.processRefreshTokenResponse(as, client, response);
      },
    });
    const issued: TokenContext = { issuer: tokens.issuer, clientId: tokens.clientId, refreshToken };
    if (tokens.resource !== undefined) issued.resource = tokens.resource;
    if (tokens.scope !== undefined) issued.scope = tokens.scope;
    return await saveTokens(context, serverUrl, { ...issued, response, dpop });
  } catch (error) {
    if (!(error instanceof AuthError) || error.code !== "token") throw error;
    await context.store.deleteTokens(serverUrl); // a refused refresh token is dropped; a new authorization follows
    return undefined;
  }
}
