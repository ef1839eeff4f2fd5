/**
 * The grants that trade an assertion for an access token, with no browser: workload identity
 * federation (MCP extension SEP-1933: a workload's JWT in the JWT bearer grant, RFC 7523) and
 * enterprise-managed authorization (SEP-990: the user's ID token exchanged at the enterprise IdP
 * for an Identity Assertion JWT Authorization Grant, ID-JAG, by RFC 8693 token exchange, then that
 * ID-JAG in the JWT bearer grant).
 * @module
 */
import * as oauth from "oauth4webapi";
import { AuthError } from "./errors.ts";
import { isLoopbackHost } from "./fetch_like.ts";
import type { FetchLike } from "./fetch_like.ts";

/** RFC 7523 §2.1. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** RFC 8693 §2.1. */
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
/** The token type of an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant). */
export const ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";

/** A token, or a function returning the current one (read again for every grant: workload tokens rotate). */
export type TokenSource = string | (() => string | Promise<string>);

/** Workload identity federation (SEP-1933): `OAuthClientOptions.workloadIdentity`. */
export interface WorkloadIdentityOptions {
  /**
   * The workload's JWT, issued by its platform (a Kubernetes projected service account token, a
   * cloud instance identity, a CI job token) for the authorization server as audience. The Node
   * entry's `workloadTokenFile(path)` reads it from a file at every grant.
   */
  token: TokenSource;
}

/** Enterprise-managed authorization (SEP-990): `OAuthClientOptions.enterpriseAuthorization`. */
export interface EnterpriseAuthorizationOptions {
  /** The user's OpenID Connect ID token from the enterprise IdP (single sign-on). */
  idToken: TokenSource;
  /** The IdP's token endpoint, where the ID token is exchanged for an ID-JAG. */
  idpTokenEndpoint: string;
  /** This client's `client_id` at the IdP. */
  idpClientId: string;
  /** This client's secret at the IdP (`client_secret_basic`); without it, the client is public. */
  idpClientSecret?: string;
  /** The IdP's issuer; default: the token endpoint's origin. */
  idpIssuer?: string;
}

/** Reads a {@linkcode TokenSource}; an empty token is refused (code `invalid_option`). */
export async function readToken(source: TokenSource, what: string): Promise<string> {
  const token = typeof source === "function" ? await source() : source;
  if (typeof token !== "string" || token.trim() === "") {
    throw new AuthError("invalid_option", `The ${what} is empty`);
  }
  return token.trim();
}

/**
 * Exchanges the user's ID token at the IdP for an ID-JAG for `audience` (the authorization server's
 * issuer) and `resource` (the MCP server). Rejects with code `token` when the IdP refuses or answers
 * another token type.
 */
export async function requestIdJag(
  options: EnterpriseAuthorizationOptions,
  target: { audience: string; resource: string; scope?: string | undefined },
  fetch: FetchLike,
  allowInsecure: boolean | "loopback",
): Promise<string> {
  const endpoint = new URL(options.idpTokenEndpoint);
  const idp: oauth.AuthorizationServer = {
    issuer: options.idpIssuer ?? endpoint.origin,
    token_endpoint: endpoint.href,
  };
  const client: oauth.Client = { client_id: options.idpClientId };
  const auth = options.idpClientSecret === undefined
    ? oauth.None()
    : oauth.ClientSecretBasic(options.idpClientSecret);
  const parameters: Record<string, string> = {
    requested_token_type: ID_JAG_TOKEN_TYPE,
    subject_token: await readToken(options.idToken, "enterprise ID token"),
    subject_token_type: ID_TOKEN_TYPE,
    audience: target.audience,
    resource: target.resource,
  };
  if (target.scope !== undefined) parameters.scope = target.scope;
  const insecure = allowInsecure === "loopback" ? isLoopbackHost(endpoint.hostname) : allowInsecure;
  let response: oauth.TokenEndpointResponse;
  try {
    const http = await oauth.genericTokenEndpointRequest(
      idp,
      client,
      auth,
      TOKEN_EXCHANGE_GRANT,
      parameters,
      {
        [oauth.customFetch]: fetch as never,
        [oauth.allowInsecureRequests]: insecure,
      },
    );
    // An ID-JAG is not an access token: RFC 8693 §2.2.1 makes its token_type "N_A".
    response = await oauth.processGenericTokenEndpointResponse(idp, client, http, {
      recognizedTokenTypes: { n_a: () => {} },
    });
  } catch (cause) {
    const detail = cause instanceof oauth.ResponseBodyError
      ? `${cause.error}${cause.error_description ? ` (${cause.error_description})` : ""}`
      : (cause as Error).message;
    throw new AuthError("token", `The ID-JAG token exchange at ${endpoint.href} failed: ${detail}`, {
      cause,
    });
  }
  if (response.issued_token_type !== ID_JAG_TOKEN_TYPE) {
    throw new AuthError(
      "token",
      `The IdP ${endpoint.href} issued ${JSON.stringify(response.issued_token_type)}, not an ID-JAG`,
    );
  }
  return response.access_token;
}
