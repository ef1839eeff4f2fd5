/**
 * The authorization code grant with PKCE S256: the user agent sent to the authorization endpoint,
 * then the authorization response validated (`state`, `iss` per RFC 9207) and its code exchanged.
 * @module
 */
import * as oauth from "oauth4webapi";
import { AuthError } from "../errors.ts";
import type { PendingAuthorization } from "../oauth_store.ts";
import type { GrantContext } from "./grant_context.ts";
import type { GrantTarget } from "./machine_grants.ts";
import { requestTokens, saveTokens } from "./token_endpoint.ts";

/**
 * Sends the user agent to the authorization endpoint (through `redirectTo`) with a PKCE challenge,
 * `state`, `resource` and `scope`, keeping the pending authorization in the store. Resolves with the
 * callback URL `redirectTo` returned; rejects with code `authorization_pending` when it returned
 * nothing (the page navigates away), and with `pkce_unsupported`, `server_metadata` or
 * `invalid_option` before anything is sent.
 */
export async function redirectForAuthorization(
  context: GrantContext,
  target: GrantTarget,
): Promise<URL | string> {
  const { serverUrl, as, resource, scope } = target;
  const methods = as.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes("S256")) {
    throw new AuthError(
      "pkce_unsupported",
      `The authorization server ${as.issuer} does not advertise PKCE S256 (code_challenge_methods_supported ${
        JSON.stringify(methods)
      }): refusing to authorize`,
    );
  }
  if (as.authorization_endpoint === undefined) {
    throw new AuthError(
      "server_metadata",
      `The authorization server ${as.issuer} has no authorization_endpoint`,
    );
  }
  if (
    !context.http(as)[oauth.allowInsecureRequests] && new URL(as.authorization_endpoint).protocol !== "https:"
  ) {
    throw new AuthError(
      "server_metadata",
      `The authorization endpoint ${as.authorization_endpoint} is not https`,
    );
  }
  const { redirectUri, redirectTo } = context.options;
  if (redirectUri === undefined || redirectTo === undefined) {
    throw new AuthError("invalid_option", "The authorization code grant needs redirectUri and redirectTo");
  }
  const stored = await context.clientFor(as);
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", stored.clientId);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", state);
  if (scope !== undefined) url.searchParams.set("scope", scope);
  url.searchParams.set("resource", resource);
  const pending: PendingAuthorization = {
    serverUrl,
    resource,
    issuer: as.issuer,
    codeVerifier,
    state,
    redirectUri,
  };
  if (scope !== undefined) pending.scope = scope;
  await context.store.savePending(state, pending);
  let callback: URL | string | void;
  try {
    callback = await redirectTo(url);
  } catch (error) {
    await context.store.takePending(state); // a flow that never comes back leaves nothing behind
    throw error;
  }
  if (callback === undefined || callback === null) {
    throw new AuthError(
      "authorization_pending",
      `Authorization for ${serverUrl} continues in the browser: call finishAuthorization(callbackUrl) when it returns`,
    );
  }
  return callback;
}

/**
 * Validates the authorization response at `callbackUrl` (`state`, then `iss` per RFC 9207,
 * compared as plain strings), exchanges the code with the PKCE verifier and the `resource`
 * parameter, and stores the tokens. Rejects with code `authorization_response` or `token`.
 */
export async function exchangeAuthorizationCode(
  context: GrantContext,
  callbackUrl: string | URL,
): Promise<void> {
  const url = new URL(callbackUrl);
  const state = url.searchParams.get("state");
  const pending = state === null ? undefined : await context.store.takePending(state);
  if (pending === undefined) {
    throw new AuthError(
      "authorization_response",
      `The authorization response carries an unknown state ${JSON.stringify(state)}`,
    );
  }
  const as = await context.serverMetadata(pending.issuer);
  const stored = await context.clientFor(as);
  const client: oauth.Client = { client_id: stored.clientId };
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, url, pending.state);
  } catch (error) {
    // On an issuer mismatch the response's error fields are not acted on (RFC 9207 §2.4).
    const detail = error instanceof oauth.AuthorizationResponseError
      ? `the server answered error ${JSON.stringify(error.error)}`
      : (error as Error).message;
    throw new AuthError("authorization_response", `The authorization response was refused: ${detail}`, {
      cause: error,
    });
  }
  const dpop = await context.dpopFor(as);
  const response = await requestTokens(context, as, {
    grant: "authorization_code",
    dpop,
    run: async (http) => {
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        context.clientAuth(stored, as),
        params,
        pending.redirectUri,
        pending.codeVerifier,
        {
          ...http,
          additionalParameters: { resource: pending.resource },
        },
      );
      return oauth.processAuthorizationCodeResponse(as, client, response);
    },
  });
  await saveTokens(context, pending.serverUrl, {
    issuer: as.issuer,
    clientId: stored.clientId,
    resource: pending.resource,
    scope: pending.scope,
    response,
    dpop,
  });
}
