/**
 * The OAuth client and bearer check on one runtime: the full flow, a refused `iss`, and step-up, all
 * in process (fetch handlers, no sockets). Registered by vitest, `deno test` and `bun test`.
 * @module
 */
import { AuthError, withOAuth } from "../../src/auth/mod.ts";
import {
  AuthServerFixture,
  type AuthServerOptions,
  autoApprove,
  ResourceFixture,
  type ResourceFixtureOptions,
  routeFetch,
} from "../src/auth/oauth_fixtures.ts";
import { assert, assertEquals } from "./assert.ts";
import type { TestApi } from "./test_api.ts";

const AS = "http://127.0.0.1:9201";
const RS = "http://127.0.0.1:9200";

function setup(as: Partial<AuthServerOptions> = {}, rs: Partial<ResourceFixtureOptions> = {}) {
  const server = new AuthServerFixture({ origin: AS, ...as });
  const resource: ResourceFixture = new ResourceFixture({
    origin: RS,
    authServers: [server.issuer],
    verify: (t) => server.verifierFor(resource.serverUrl)(t),
    ...rs,
  });
  const fetch = routeFetch({ [AS]: server.handler, [RS]: resource.handler });
  const authFetch = withOAuth(fetch, {
    redirectUri: "http://127.0.0.1:7777/callback",
    redirectTo: autoApprove(fetch),
  });
  const call = (method: string, params?: unknown) =>
    authFetch(resource.serverUrl, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
  return { server, call };
}

/** Registers the suite on `api`. */
export function authSuite(api: TestApi, runtime: string): void {
  api.test(`auth on ${runtime}: a 401 runs discovery, registration and PKCE, and the retry carries the token`, async () => {
    const { server, call } = setup();
    const response = await call("tools/list");
    assertEquals(response.status, 200);
    assertEquals(server.authorizations[0]?.get("code_challenge_method"), "S256");
    assertEquals(server.tokenRequests[0]?.params.resource, `${RS}/mcp`);
  });

  api.test(`auth on ${runtime}: an authorization response with a wrong iss is refused before the token request`, async () => {
    const { server, call } = setup({ issInRedirect: "wrong" });
    const error = await call("tools/list").then(() => undefined, (e: unknown) => e);
    assert(error instanceof AuthError, `Expected an AuthError, got ${String(error)}`);
    assertEquals(error.code, "authorization_response");
    assertEquals(server.tokenRequests.length, 0);
  });

  api.test(`auth on ${runtime}: a 403 insufficient_scope steps up with the union of scopes`, async () => {
    const { server, call } = setup({}, { scopes: ["mcp:basic"], toolScopes: { write: ["mcp:write"] } });
    assertEquals((await call("tools/call", { name: "write" })).status, 200);
    assertEquals(server.authorizations.map((a) => a.get("scope")), ["mcp:basic", "mcp:basic mcp:write"]);
  });
}
