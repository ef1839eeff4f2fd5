import { describe, expect, it } from "vitest";
import { AuthError, InMemoryOAuthStore, type OAuthClientOptions, withOAuth } from "../../../src/auth/mod.ts";
import { FakeTimeProvider } from "../../../testing/mod.ts";
import {
  AuthServerFixture,
  type AuthServerOptions,
  autoApprove,
  ResourceFixture,
  type ResourceFixtureOptions,
  routeFetch,
} from "./oauth_fixtures.ts";

const AS = "http://127.0.0.1:9001";
const RS = "http://127.0.0.1:9000";
const REDIRECT = "http://127.0.0.1:7777/callback";

interface SetupOptions {
  as?: Partial<AuthServerOptions>;
  rs?: Partial<ResourceFixtureOptions>;
  client?: Partial<OAuthClientOptions>;
}

function setup(options: SetupOptions = {}) {
  const as = new AuthServerFixture({ origin: AS, ...options.as });
  // deno-lint-ignore prefer-const -- assigned before the closures that read it run
  let rs: ResourceFixture;
  rs = new ResourceFixture({
    origin: RS,
    authServers: [as.issuer],
    verify: (token) => as.verifierFor(rs.prm().resource)(token),
    ...options.rs,
  });
  const fetch = routeFetch({ [AS]: as.handler, [RS]: rs.handler });
  const time = new FakeTimeProvider();
  const authFetch = withOAuth(fetch, {
    redirectUri: REDIRECT,
    redirectTo: autoApprove(fetch),
    time,
    ...options.client,
  });
  let id = 0;
  const call = (method = "tools/list", params?: Record<string, unknown>) =>
    authFetch(rs.serverUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
  return { as, rs, fetch, authFetch, call, time };
}

async function rejection(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthError);
  return error as AuthError;
}

describe("withOAuth: the full authorization code flow", () => {
  it("answers a 401 by discovering, registering, authorizing with PKCE S256 and the resource, then retries with the token", async () => {
    const { as, rs, call } = setup();
    const response = await call();
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ result: { ok: true } });
    expect(as.registrations).toHaveLength(1);
    expect(as.registrations[0]).toMatchObject({
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      application_type: "native",
    });
    const authorization = as.authorizations[0] as URLSearchParams;
    expect(authorization.get("code_challenge_method")).toBe("S256");
    expect(authorization.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorization.get("resource")).toBe(rs.serverUrl);
    expect(authorization.get("state")).toBeTruthy();
    const token = as.tokenRequests[0];
    expect(token?.params).toMatchObject({
      grant_type: "authorization_code",
      resource: rs.serverUrl,
      redirect_uri: REDIRECT,
    });
    expect(token?.params.code_verifier).toBeTruthy();
    expect(rs.requests.map((r) => r.path)).toEqual([
      "POST /mcp",
      "GET /.well-known/oauth-protected-resource/mcp",
      "POST /mcp",
    ]);
    expect(rs.requests[2]?.authorization).toMatch(/^Bearer at-/);
  });

  it("reuses the stored token for the next request without authorizing again", async () => {
    const { as, call } = setup();
    await call();
    const second = await call("tools/call", { name: "x" });
    expect(second.status).toBe(200);
    expect(as.authorizations).toHaveLength(1);
    expect(as.tokenRequests).toHaveLength(1);
  });

  it("refuses an authorization server that does not advertise PKCE S256, before any authorization request", async () => {
    for (const pkceMethods of [null, ["plain"]]) {
      const { as, call } = setup({ as: { pkceMethods } });
      const error = await rejection(call());
      expect(error.code).toBe("pkce_unsupported");
      expect(as.authorizations).toHaveLength(0);
    }
  });
});

describe("OAuthClient options", () => {
  it("refuses a plain-http redirect URI outside loopback, and accepts https and loopback ones", () => {
    expect(() => withOAuth(fetch, { redirectUri: "http://app.example.com/callback" })).toThrow(
      /https or a loopback host/,
    );
    expect(() => withOAuth(fetch, { redirectUri: "https://app.example.com/callback" })).not.toThrow();
    expect(() => withOAuth(fetch, { redirectUri: "http://localhost:3000/callback" })).not.toThrow();
  });

  it("refuses plain-http authorization server endpoints outside loopback unless allowed", async () => {
    const asOrigin = "http://auth.test";
    const as = new AuthServerFixture({ origin: asOrigin });
    const rs: ResourceFixture = new ResourceFixture({
      origin: RS,
      authServers: [asOrigin],
      verify: (t) => as.verifierFor(rs.serverUrl)(t),
    });
    const fetch = routeFetch({ [asOrigin]: as.handler, [RS]: rs.handler });
    const post = (allowInsecureRequests: boolean | "loopback") =>
      withOAuth(fetch, { redirectUri: REDIRECT, redirectTo: autoApprove(fetch), allowInsecureRequests })(
        rs.serverUrl,
        { method: "POST", body: "{}" },
      );
    // Refused before any request reaches it (issue 25 item 7); before, oauth4webapi refused the metadata.
    expect((await rejection(post("loopback"))).code).toBe("outbound_refused");
    expect(as.authorizations).toHaveLength(0);
    expect((await post(true)).status).toBe(200);
  });
});

describe("withOAuth: the authorization response issuer (RFC 9207)", () => {
  const cases: { name: string; as: Partial<AuthServerOptions>; accepted: boolean }[] = [
    {
      name: "a correct iss, advertised",
      as: { issAdvertised: true, issInRedirect: "correct" },
      accepted: true,
    },
    { name: "no iss, not advertised", as: { issAdvertised: null, issInRedirect: "omit" }, accepted: true },
    { name: "a wrong iss, advertised", as: { issAdvertised: true, issInRedirect: "wrong" }, accepted: false },
    {
      name: "a wrong iss, not advertised",
      as: { issAdvertised: null, issInRedirect: "wrong" },
      accepted: false,
    },
    {
      name: "no iss although advertised",
      as: { issAdvertised: true, issInRedirect: "omit" },
      accepted: false,
    },
    {
      name: "an iss equal only after URL normalization (trailing slash)",
      as: { issAdvertised: true, issInRedirect: "normalized" },
      accepted: false,
    },
  ];
  for (const c of cases) {
    it(`${c.accepted ? "accepts" : "refuses, before the token request,"} ${c.name}`, async () => {
      const { as, call } = setup({ as: c.as });
      if (c.accepted) {
        expect((await call()).status).toBe(200);
      } else {
        expect((await rejection(call())).code).toBe("authorization_response");
        expect(as.authorizations).toHaveLength(1);
        expect(as.tokenRequests).toHaveLength(0);
      }
    });
  }

  it("refuses authorization server metadata whose issuer differs from the identifier, using none of its endpoints", async () => {
    const { as, call } = setup({ as: { metadataIssuer: "https://attacker.example.com" } });
    expect((await rejection(call())).code).toBe("server_metadata");
    expect(as.registrations).toHaveLength(0);
    expect(as.authorizations).toHaveLength(0);
  });

  it("refuses Protected Resource Metadata naming another resource, before authorizing", async () => {
    const { as, call } = setup({ rs: { prmResource: "https://evil.example.com/mcp" } });
    expect((await rejection(call())).code).toBe("resource_mismatch");
    expect(as.requests).toHaveLength(0);
  });
});

describe("withOAuth: discovery order", () => {
  it("uses the challenge's resource_metadata first and never probes the root when the path-based document answers", async () => {
    const { rs, call } = setup({ rs: { prmAt: "path", prmInHeader: true } });
    await call();
    expect(rs.requests.filter((r) => r.path.startsWith("GET")).map((r) => r.path)).toEqual([
      "GET /.well-known/oauth-protected-resource/mcp",
    ]);
  });

  it("without resource_metadata, tries the path-based well-known URI, then the root one", async () => {
    const { rs, call } = setup({ rs: { prmAt: "root", prmInHeader: false } });
    expect((await call()).status).toBe(200);
    expect(rs.requests.filter((r) => r.path.startsWith("GET")).map((r) => r.path)).toEqual([
      "GET /.well-known/oauth-protected-resource/mcp",
      "GET /.well-known/oauth-protected-resource",
    ]);
  });

  it("follows a custom resource_metadata location from the challenge", async () => {
    const { rs, call } = setup({ rs: { prmAt: "custom", prmInHeader: true } });
    expect((await call()).status).toBe(200);
    expect(rs.requests.filter((r) => r.path.startsWith("GET")).map((r) => r.path)).toEqual([
      "GET /custom/metadata.json",
    ]);
  });

  const asCases: { at: AuthServerOptions["metadataAt"]; tenant?: string; expected: string[] }[] = [
    { at: "oauth", expected: ["GET /.well-known/oauth-authorization-server"] },
    {
      at: "openid-insert",
      expected: ["GET /.well-known/oauth-authorization-server", "GET /.well-known/openid-configuration"],
    },
    { at: "oauth", tenant: "/tenant1", expected: ["GET /.well-known/oauth-authorization-server/tenant1"] },
    {
      at: "openid-insert",
      tenant: "/tenant1",
      expected: [
        "GET /.well-known/oauth-authorization-server/tenant1",
        "GET /.well-known/openid-configuration/tenant1",
      ],
    },
    {
      at: "openid-append",
      tenant: "/tenant1",
      expected: [
        "GET /.well-known/oauth-authorization-server/tenant1",
        "GET /.well-known/openid-configuration/tenant1",
        "GET /tenant1/.well-known/openid-configuration",
      ],
    },
  ];
  for (const c of asCases) {
    it(`finds authorization server metadata served at ${c.at}${c.tenant ? ` for issuer path ${c.tenant}` : ""} after the earlier locations`, async () => {
      const as: Partial<AuthServerOptions> = { metadataAt: c.at };
      if (c.tenant !== undefined) as.tenant = c.tenant;
      const fixture = setup({ as });
      expect((await fixture.call()).status).toBe(200);
      expect(
        fixture.as.requests.filter((r) => r.startsWith("GET /.well-known") || r.includes("/.well-known/")),
      ).toEqual(c.expected);
    });
  }
});

describe("withOAuth: client identity", () => {
  it("uses pre-registered credentials first, with the advertised token endpoint authentication", async () => {
    const { as, call } = setup({
      as: {
        registration: false,
        cimd: true,
        clients: { "pre-client": "pre-secret" },
        tokenAuthMethods: ["client_secret_basic"],
      },
      client: {
        client: { clientId: "pre-client", clientSecret: "pre-secret" },
        clientMetadataUrl: "https://app.example.com/client.json",
      },
    });
    expect((await call()).status).toBe(200);
    expect(as.authorizations[0]?.get("client_id")).toBe("pre-client");
    expect(as.tokenRequests[0]?.authorization).toBe(`Basic ${btoa("pre-client:pre-secret")}`); // not form-encoded: "-" stays as is
  });

  it("uses the Client ID Metadata Document URL when the server advertises support, without registering", async () => {
    const { as, call } = setup({
      as: { cimd: true },
      client: { clientMetadataUrl: "https://app.example.com/client.json" },
    });
    expect((await call()).status).toBe(200);
    expect(as.registrations).toHaveLength(0);
    expect(as.authorizations[0]?.get("client_id")).toBe("https://app.example.com/client.json");
    expect(as.tokenRequests[0]?.authorization).toBeNull();
  });

  it("falls back to Dynamic Client Registration when the server does not advertise CIMD", async () => {
    const { as, call } = setup({
      as: { cimd: false },
      client: { clientMetadataUrl: "https://app.example.com/client.json" },
    });
    expect((await call()).status).toBe(200);
    expect(as.registrations).toHaveLength(1);
    expect(as.authorizations[0]?.get("client_id")).toMatch(/^dcr-/);
  });

  it("accepts a registration response with a secret but without client_secret_expires_at (it never expires)", async () => {
    const { as, call } = setup({ as: { registerAs: { omitSecretExpiry: true } } });
    expect((await call()).status).toBe(200);
    expect(as.tokenRequests[0]?.authorization).toMatch(/^Basic /);
  });

  it("fails with code registration when no identity can be had", async () => {
    const { as, call } = setup({ as: { registration: false } });
    expect((await rejection(call())).code).toBe("registration");
    expect(as.authorizations).toHaveLength(0);
  });

  it("refuses pre-registered credentials bound to another issuer", async () => {
    const { call } = setup({ client: { client: { clientId: "c", issuer: "https://other.example.com" } } });
    expect((await rejection(call())).code).toBe("registration");
  });

  for (const method of ["client_secret_basic", "client_secret_post", "none"] as const) {
    it(`authenticates at the token endpoint with the registered method ${method}`, async () => {
      const { as, call } = setup({
        as: { registerAs: { method, secret: method !== "none" }, tokenAuthMethods: [method] },
      });
      expect((await call()).status).toBe(200);
      const request = as.tokenRequests[0];
      expect(request?.authorization?.startsWith("Basic ") ?? false).toBe(method === "client_secret_basic");
      expect(request?.params.client_secret !== undefined).toBe(method === "client_secret_post");
    });
  }
});

describe("withOAuth: scopes", () => {
  it("requests the challenge's scope", async () => {
    const { as, call } = setup({ rs: { scopes: ["mcp:basic"], scopesSupported: ["mcp:other"] } });
    await call();
    expect(as.authorizations[0]?.get("scope")).toBe("mcp:basic");
  });

  it("requests every scopes_supported of the resource when the challenge has no scope", async () => {
    const { as, call } = setup({ rs: { scopesSupported: ["mcp:basic", "mcp:read"] } });
    await call();
    expect(as.authorizations[0]?.get("scope")).toBe("mcp:basic mcp:read");
  });

  it("omits scope when neither the challenge nor the resource names any", async () => {
    const { as, call } = setup();
    await call();
    expect(as.authorizations[0]?.has("scope")).toBe(false);
  });

  it("adds offline_access only when the authorization server lists it", async () => {
    const listed = setup({
      rs: { scopesSupported: ["mcp:basic"] },
      as: { scopesSupported: ["mcp:basic", "offline_access"] },
    });
    await listed.call();
    expect(listed.as.authorizations[0]?.get("scope")).toBe("mcp:basic offline_access");
    const unlisted = setup({
      rs: { scopesSupported: ["mcp:basic"] },
      as: { scopesSupported: ["mcp:basic"] },
    });
    await unlisted.call();
    expect(unlisted.as.authorizations[0]?.get("scope")).toBe("mcp:basic");
  });

  it("steps up on 403 insufficient_scope with the union of the previous and the challenged scopes", async () => {
    const { as, rs, call } = setup({ rs: { scopes: ["mcp:basic"], toolScopes: { write: ["mcp:write"] } } });
    expect((await call("tools/list")).status).toBe(200);
    const response = await call("tools/call", { name: "write" });
    expect(response.status).toBe(200);
    expect(as.authorizations.map((a) => a.get("scope"))).toEqual(["mcp:basic", "mcp:basic mcp:write"]);
    expect(rs.requests.filter((r) => r.path === "POST /mcp")).toHaveLength(4); // 401, 200, 403, 200
  });

  it("stops after three authorizations when the server keeps answering 403, and does not start a fourth on the next request", async () => {
    // the authorization server never grants mcp:never: every request with a token is answered 403
    const { as, call } = setup({
      rs: { scopes: ["mcp:basic"], toolScopes: { admin: ["mcp:never"] } },
      as: { withhold: ["mcp:never"] },
    });
    const fixture = { as };
    const error = await rejection(call("tools/call", { name: "admin" }));
    expect(error.code).toBe("unauthorized");
    expect(fixture.as.authorizations).toHaveLength(3);
    await rejection(call("tools/call", { name: "admin" }));
    expect(fixture.as.authorizations).toHaveLength(3);
  });

  it("starts counting again after a successful response (the bound is not hit early)", async () => {
    const { as, call } = setup({
      rs: {
        scopes: ["mcp:basic"],
        toolScopes: { write: ["mcp:write"], admin: ["mcp:admin"], drop: ["mcp:drop"] },
      },
    });
    expect((await call("tools/call", { name: "write" })).status).toBe(200); // 401 → auth, 403 → auth: 2
    expect((await call("tools/call", { name: "admin" })).status).toBe(200); // 403 → auth: 3
    expect((await call("tools/call", { name: "drop" })).status).toBe(200); // 403 → auth: a 4th in a row without the reset
    expect(as.authorizations).toHaveLength(4);
    expect(as.authorizations[3]?.get("scope")).toBe("mcp:basic mcp:write mcp:admin mcp:drop");
  });
});

describe("withOAuth: refresh", () => {
  it("refreshes an access token 30 s before it expires, not earlier", async () => {
    const { as, rs, call, time } = setup({ as: { tokenLifetime: 60 } });
    await call();
    await time.advance(29_999);
    await call();
    expect(as.tokenRequests.map((r) => r.params.grant_type)).toEqual(["authorization_code"]);
    await time.advance(1);
    expect((await call()).status).toBe(200);
    expect(as.tokenRequests.map((r) => r.params.grant_type)).toEqual(["authorization_code", "refresh_token"]);
    expect(as.tokenRequests[1]?.params.resource).toBe(rs.serverUrl);
    expect(as.authorizations).toHaveLength(1);
    const last = rs.requests[rs.requests.length - 1];
    expect(last?.authorization).not.toBe(rs.requests[2]?.authorization);
  });

  it("answers a 401 for a rejected token with a refresh, not a new authorization", async () => {
    const { as, call } = setup();
    await call();
    as.revokeAccessTokens();
    expect((await call()).status).toBe(200);
    expect(as.tokenRequests.map((r) => r.params.grant_type)).toEqual(["authorization_code", "refresh_token"]);
    expect(as.authorizations).toHaveLength(1);
  });
});

describe("withOAuth: authorization server migration", () => {
  it("re-registers with a new authorization server named by the resource and never shows it the old client id", async () => {
    const AS2 = "http://127.0.0.1:9002";
    const as1 = new AuthServerFixture({ origin: AS });
    const as2 = new AuthServerFixture({ origin: AS2 });
    let current = as1;
    const rs: ResourceFixture = new ResourceFixture({
      origin: RS,
      authServers: [AS],
      verify: (token) => current.verifierFor(rs.serverUrl)(token),
    });
    const fetch = routeFetch({ [AS]: as1.handler, [AS2]: as2.handler, [RS]: rs.handler });
    const authFetch = withOAuth(fetch, { redirectUri: REDIRECT, redirectTo: autoApprove(fetch) });
    const post = () =>
      authFetch(rs.serverUrl, {
        method: "POST",
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    expect((await post()).status).toBe(200);
    current = as2;
    rs.options.authServers = [AS2];
    expect((await post()).status).toBe(200);
    expect(as2.registrations).toHaveLength(1);
    const oldId = as1.authorizations[0]?.get("client_id");
    expect(as2.authorizations.map((a) => a.get("client_id"))).not.toContain(oldId);
    expect(as2.tokenRequests.some((r) => r.params.refresh_token !== undefined)).toBe(false);
  });
});

describe("withOAuth: client credentials", () => {
  it("obtains a token with the client_credentials grant and the resource, without a browser", async () => {
    const { as, rs, call } = setup({
      as: { clients: { machine: "machine-secret" } },
      rs: { scopes: ["mcp:basic"] },
      client: {
        grantType: "client_credentials",
        client: { clientId: "machine", clientSecret: "machine-secret" },
        redirectTo: () => {
          throw new Error("No browser");
        },
      },
    });
    expect((await call()).status).toBe(200);
    expect(as.authorizations).toHaveLength(0);
    expect(as.tokenRequests[0]?.params).toMatchObject({
      grant_type: "client_credentials",
      resource: rs.serverUrl,
      scope: "mcp:basic",
    });
  });
});

describe("withOAuth: client credentials with private_key_jwt", () => {
  it("signs a client assertion for the issuer with the pre-registered key", async () => {
    const { publicKey, privateKey } =
      (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
        "sign",
        "verify",
      ])) as CryptoKeyPair;
    const { as, call } = setup({
      as: { jwtClients: { "jwt-client": publicKey } },
      client: { grantType: "client_credentials", client: { clientId: "jwt-client", privateKey } },
    });
    expect((await call()).status).toBe(200);
    expect(as.tokenRequests[0]?.params).toMatchObject({
      grant_type: "client_credentials",
      client_id: "jwt-client",
    });
    expect(as.tokenRequests[0]?.params.client_assertion).toBeTruthy();
  });
});

describe("withOAuth: browser redirect", () => {
  it("rejects with authorization_pending when the page leaves, and finishAuthorization completes it later", async () => {
    let authorizationUrl: URL | undefined;
    const fixture = setup({ client: { redirectTo: (url) => void (authorizationUrl = url) } });
    expect((await rejection(fixture.call())).code).toBe("authorization_pending");
    const callback = await autoApprove(fixture.fetch)(authorizationUrl as URL);
    await fixture.authFetch.oauth.finishAuthorization(callback);
    expect((await fixture.call()).status).toBe(200);
    expect(fixture.as.authorizations).toHaveLength(1);
  });

  it("forgets the pending authorization when redirectTo fails", async () => {
    let state: string | null = null;
    const store = new InMemoryOAuthStore();
    const { call } = setup({
      client: {
        store,
        redirectTo: (url) => {
          state = url.searchParams.get("state");
          throw new Error("The user closed the window");
        },
      },
    });
    await expect(call()).rejects.toThrow("The user closed the window");
    expect(state).not.toBeNull();
    expect(store.takePending(state as unknown as string)).toBeUndefined();
  });

  it("refuses a callback with an unknown state", async () => {
    const { authFetch } = setup();
    expect((await rejection(authFetch.oauth.finishAuthorization(`${REDIRECT}?code=x&state=forged`))).code)
      .toBe("authorization_response");
  });
});
