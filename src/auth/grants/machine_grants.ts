/**
 * The grants without a browser: `client_credentials`, and the JWT bearer grant (RFC 7523) with a
 * workload's token (SEP-1933) or an ID-JAG from the enterprise IdP (SEP-990).
 * @module
 */
import * as oauth from "oauth4webapi";
import { JWT_BEARER_GRANT, readToken, requestIdJag } from "../assertion_grants.ts";
import type { GrantContext } from "./grant_context.ts";
import { requestTokens, saveTokens, type TokenContext, type TokenRequest } from "./token_endpoint.ts";

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
export function clientCredentialsGrant(context: GrantContext, target: GrantTarget): Promise<void> {
  const parameters = withScope({ resource: target.resource }, target.scope);
  return requestGrant(context, target, {
    name: "client_credentials",
    send: async (client, auth, http) => {
      const response = await oauth.clientCredentialsGrantRequest(target.as, client, auth, parameters, http);
      return oauth.processClientCredentialsResponse(target.as, client, response);
    },
  });
}

/**
 * The JWT bearer grant (RFC 7523) with the workload's token (SEP-1933) or with an ID-JAG obtained
 * from the enterprise IdP (SEP-990). A refusal rejects with code `token`: never retried, and no
 * other grant is tried.
 */
export async function jwtBearerGrant(context: GrantContext, target: GrantTarget): Promise<void> {
  const { as, resource, scope } = target;
  const { workloadIdentity, enterpriseAuthorization } = context.options;
  const assertion = workloadIdentity !== undefined
    ? await readToken(workloadIdentity.token, "workload identity token")
    : await requestIdJag(
      enterpriseAuthorization!,
      { audience: as.issuer, resource, scope },
      context.fetch,
      context.options.allowInsecureRequests ?? "loopback",
    );
  const parameters = withScope({ assertion, resource }, scope);
  await requestGrant(context, target, {
    name: "jwt-bearer",
    send: async (client, auth, http) => {
      const response = await oauth.genericTokenEndpointRequest(
        as,
        client,
        auth,
        JWT_BEARER_GRANT,
        parameters,
        http,
      );
      return oauth.processGenericTokenEndpointResponse(as, client, response);
    },
  });
}

/** One grant of {@linkcode requestGrant}. */
interface MachineGrant {
  /** The grant's name in error messages. */
  name: string;
  /** Sends the grant's token request and checks the response. */
  send(
    client: oauth.Client,
    auth: oauth.ClientAuth,
    http: Parameters<TokenRequest["run"]>[0],
  ): Promise<oauth.TokenEndpointResponse>;
}

/**
 * Runs a grant without a browser: the client's identity at `target.as`, its DPoP key, the grant's
 * token request, and the issued tokens stored for the target's server with its resource and scope.
 */
async function requestGrant(context: GrantContext, target: GrantTarget, grant: MachineGrant): Promise<void> {
  const { serverUrl, as, resource, scope } = target;
  const stored = await context.clientFor(as);
  const client: oauth.Client = { client_id: stored.clientId };
  const dpop = await context.dpopFor(as);
  const response = await requestTokens(context, as, {
    grant: grant.name,
    dpop,
    run: (http) => grant.send(client, context.clientAuth(stored, as), http),
  });
  const issued: TokenContext = { issuer: as.issuer, clientId: stored.clientId, resource };
  if (scope !== undefined) issued.scope = scope;
  await saveTokens(context, serverUrl, { ...issued, response, dpop });
}

/** `parameters` with `scope` when there is one. */
function withScope(parameters: Record<string, string>, scope: string | undefined): Record<string, string> {
  if (scope !== undefined) parameters.scope = scope;
  return parameters;
}
