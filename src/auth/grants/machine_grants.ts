/**
 * The grants without a browser: `client_credentials`, and the JWT bearer grant (RFC 7523) with a
 * workload's token (SEP-1933) or an ID-JAG from the enterprise IdP (SEP-990).
 * @module
 */
import * as oauth from "oauth4webapi";
import { JWT_BEARER_GRANT, readToken, requestIdJag } from "../assertion_grants.ts";
import type { GrantContext } from "./grant_context.ts";
import { requestTokens, saveTokens, type TokenContext } from "./token_endpoint.ts";

/** For whom a grant obtains tokens. */
export interface GrantTarget {
  /** The MCP server's canonical URL: the store's key. */
  serverUrl: string;
  as: oauth.AuthorizationServer;
  /** The protected resource (RFC 8707 `resource`). */
  resource: string;
  scope: string | undefined;
}

/** The `client_credentials` grant: the client's own credentials for tokens. */
export async function clientCredentialsGrant(context: GrantContext, target: GrantTarget): Promise<void> {
  const { serverUrl, as, resource, scope } = target;
  const stored = await context.clientFor(as);
  const client: oauth.Client = { client_id: stored.clientId };
  const parameters: Record<string, string> = { resource };
  if (scope !== undefined) parameters.scope = scope;
  const dpop = await context.dpopFor(as);
  const response = await requestTokens(context, as, {
    grant: "client_credentials",
    dpop,
    run: async (http) => {
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        context.clientAuth(stored, as),
        parameters,
        http,
      );
      return oauth.processClientCredentialsResponse(as, client, response);
    },
  });
  const issued: TokenContext = { issuer: as.issuer, clientId: stored.clientId, resource };
  if (scope !== undefined) issued.scope = scope;
  await saveTokens(context, serverUrl, { ...issued, response, dpop });
}

/**
 * The JWT bearer grant (RFC 7523) with the workload's token (SEP-1933) or with an ID-JAG obtained
 * from the enterprise IdP (SEP-990). A refusal rejects with code `token`: never retried, and no
 * other grant is tried.
 */
export async function jwtBearerGrant(context: GrantContext, target: GrantTarget): Promise<void> {
  const { serverUrl, as, resource, scope } = target;
  const { workloadIdentity, enterpriseAuthorization } = context.options;
  const assertion = workloadIdentity !== undefined
    ? await readToken(workloadIdentity.token, "workload identity token")
    : await requestIdJag(
      enterpriseAuthorization!,
      { audience: as.issuer, resource, scope },
      context.fetch,
      context.options.allowInsecureRequests ?? "loopback",
    );
  const stored = await context.clientFor(as);
  const client: oauth.Client = { client_id: stored.clientId };
  const parameters: Record<string, string> = { assertion, resource };
  if (scope !== undefined) parameters.scope = scope;
  const dpop = await context.dpopFor(as);
  const response = await requestTokens(context, as, {
    grant: "jwt-bearer",
    dpop,
    run: async (http) => {
      const response = await oauth.genericTokenEndpointRequest(
        as,
        client,
        context.clientAuth(stored, as),
        JWT_BEARER_GRANT,
        parameters,
        http,
      );
      return oauth.processGenericTokenEndpointResponse(as, client, response);
    },
  });
  const issued: TokenContext = { issuer: as.issuer, clientId: stored.clientId, resource };
  if (scope !== undefined) issued.scope = scope;
  await saveTokens(context, serverUrl, { ...issued, response, dpop });
}
