// The OAuth client's extensions: DPoP (RFC 9449, SEP-1932), workload identity federation (SEP-1933)
// and enterprise-managed authorization (SEP-990), against small fetch-handler servers.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as jose from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { AuthError, InMemoryOAuthStore, type OAuthClientOptions, withOAuth } from "../../../src/auth/mod.ts";
import { workloadTokenFile } from "../../../adapters/node/_oauth_workload_token.ts";
import { autoApprove, type Handler, routeFetch } from "./oauth_fixtures.ts";

const AS = "http://127.0.0.1:9101";
const RS = "http://127.0.0.1:9100";
const IDP = "http://127.0.0.1:9102";
const MCP = `${RS}/mcp`;
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

interface ServerOptions {
  dpopAlgs?: string[];
  asNonce?: string;
  rsNonce?: string;
  grantTypes?: string[];
  refuseJwtBearer?: string;
}

/** An authorization server (authorization code, JWT bearer; DPoP-bound tokens when a proof comes) and a resource. */
function servers(options: ServerOptions = {}) {
  const tokenRequests: {
    params: Record<string, string>;
    dpop: string | null;
    authorization: string | null;
  }[] = [];
  const resourceRequests: { authorization: string | null; dpop: string | null }[] = [];
  const issued = new Map<string, { jkt?: string }>();
  let seq = 0;
  const as: Handler = async (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      const doc: Record<string, unknown> = {
        issuer: AS,
        authorization_endpoint: `${AS}/authorize`,
        token_endpoint: `${AS}/token`,
        response_types_supported: ["code"],
        grant_types_supported: options.grantTypes ?? ["authorization_code", "refresh_token", JWT_BEARER],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_basic"],
        authorization_response_iss_parameter_supported: true,
      };
      if (options.dpopAlgs !== undefined) doc.dpop_signing_alg_values_supported = options.dpopAlgs;
      return Response.json(doc);
    }
    if (url.pathname === "/authorize") {
      const target = new URL(url.searchParams.get("redirect_uri")!);
      target.searchParams.set("code", "code-1");
      target.searchParams.set("state", url.searchParams.get("state")!);
      target.searchParams.set("iss", AS);
      return new Response(null, { status: 302, headers: { location: target.href } });
    }
    if (url.pathname === "/token") {
      const params = Object.fromEntries(new URLSearchParams(await request.text()));
      const proof = request.headers.get("dpop");
      tokenRequests.push({ params, dpop: proof, authorization: request.headers.get("authorization") });
      if (params.grant_type === JWT_BEARER && options.refuseJwtBearer !== undefined) {
        return Response.json({ error: options.refuseJwtBearer }, { status: 400 });
      }
      let jkt: string | undefined;
      if (proof !== null) {
        const { payload, protectedHeader } = await jose.jwtVerify(proof, jose.EmbeddedJWK, {
          typ: "dpop+jwt",
        });
        expect(payload.htm).toBe("POST");
        expect(payload.htu).toBe(`${AS}/token`);
        if (options.asNonce !== undefined && payload.nonce !== options.asNonce) {
          return Response.json({ error: "use_dpop_nonce" }, {
            status: 400,
            headers: { "dpop-nonce": options.asNonce },
          });
        }
        jkt = await jose.calculateJwkThumbprint(protectedHeader.jwk!);
      }
      const token = `at-${++seq}`;
      issued.set(token, jkt === undefined ? {} : { jkt });
      return Response.json({
        access_token: token,
        token_type: jkt === undefined ? "Bearer" : "DPoP",
        expires_in: 3600,
        refresh_token: `rt-${seq}`,
      });
    }
    return new Response("Not found", { status: 404 });
  };
  const rs: Handler = async (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      return Response.json({ resource: MCP, authorization_servers: [AS] });
    }
    const authorization = request.headers.get("authorization");
    const proof = request.headers.get("dpop");
    resourceRequests.push({ authorization, dpop: proof });
    const [scheme, token] = (authorization ?? " ").split(" ");
    const grant = issued.get(token ?? "");
    if (grant === undefined) {
      return new Response(null, {
        status: 401,
        headers: {
          "www-authenticate": `DPoP resource_metadata="${RS}/.well-known/oauth-protected-resource/mcp"`,
        },
      });
    }
    if (grant.jkt !== undefined) {
      expect(scheme).toBe("DPoP");
      const { payload, protectedHeader } = await jose.jwtVerify(proof!, jose.EmbeddedJWK, {
        typ: "dpop+jwt",
      });
      expect(await jose.calculateJwkThumbprint(protectedHeader.jwk!)).toBe(grant.jkt);
      expect(payload.htu).toBe(MCP);
      expect(payload.htm).toBe(request.method);
      const ath = jose.base64url.encode(
        new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token))),
      );
      expect(payload.ath).toBe(ath);
      if (options.rsNonce !== undefined && payload.nonce !== options.rsNonce) {
        return new Response(null, {
          status: 401,
          headers: { "www-authenticate": 'DPoP error="use_dpop_nonce"', "dpop-nonce": options.rsNonce },
        });
      }
    } else {
      expect(scheme).toBe("Bearer");
    }
    return Response.json({ ok: true });
  };
  return { tokenRequests, resourceRequests, routes: { [AS]: as, [RS]: rs } };
}

function client(routes: Record<string, Handler>, options: Partial<OAuthClientOptions> = {}) {
  const fetch = routeFetch(routes);
  return withOAuth(fetch, {
    redirectUri: "http://127.0.0.1:7777/callback",
    redirectTo: autoApprove(fetch),
    client: { clientId: "c1" },
    ...options,
  });
}

const post = (authFetch: ReturnType<typeof withOAuth>) =>
  authFetch(MCP, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });

describe("DPoP in withOAuth (RFC 9449)", () => {
  it("binds the token with a proof at the token endpoint and sends DPoP <token> with a fresh proof and ath per request", async () => {
    const s = servers({ dpopAlgs: ["ES256"] });
    const authFetch = client(s.routes);
    expect((await post(authFetch)).status).toBe(200);
    expect((await post(authFetch)).status).toBe(200);
    const tokenRequest = s.tokenRequests.find((r) => r.params.grant_type === "authorization_code")!;
    expect(tokenRequest.dpop).not.toBeNull();
    const proofs = s.resourceRequests.filter((r) => r.dpop !== null);
    expect(proofs.length).toBe(2);
    expect(proofs.every((r) => r.authorization?.startsWith("DPoP "))).toBe(true);
    const jtis = proofs.map((r) => jose.decodeJwt(r.dpop!).jti);
    expect(new Set(jtis).size).toBe(2);
    const { jwk } = jose.decodeProtectedHeader(proofs[0]!.dpop!);
    expect((jwk as Record<string, unknown> | undefined)?.d).toBeUndefined();
    expect(jwk?.kty).toBe("EC");
  });

  it("retries the token request and the resource request once with the server's nonce", async () => {
    const s = servers({ dpopAlgs: ["ES256"], asNonce: "as-n", rsNonce: "rs-n" });
    const authFetch = client(s.routes);
    expect((await post(authFetch)).status).toBe(200);
    const codeRequests = s.tokenRequests.filter((r) => r.params.grant_type === "authorization_code");
    expect(codeRequests.map((r) => jose.decodeJwt(r.dpop!).nonce)).toEqual([undefined, "as-n"]);
    const withToken = s.resourceRequests.filter((r) => r.dpop !== null);
    expect(withToken.map((r) => jose.decodeJwt(r.dpop!).nonce)).toEqual([undefined, "rs-n"]);
    expect((await post(authFetch)).status).toBe(200); // the nonce is kept: no challenge this time
    expect(s.resourceRequests.filter((r) => r.dpop !== null).length).toBe(3);
  });

  it("stays with Bearer when the authorization server does not advertise DPoP, and when turned off", async () => {
    for (const [dpopAlgs, dpop] of [[undefined, undefined], [["ES256"], false]] as const) {
      const s = servers(dpopAlgs === undefined ? {} : { dpopAlgs: [...dpopAlgs] });
      const options: Partial<OAuthClientOptions> = dpop === undefined ? {} : { dpop };
      expect((await post(client(s.routes, options))).status).toBe(200);
      expect(s.tokenRequests.every((r) => r.dpop === null)).toBe(true);
      expect(s.resourceRequests.at(-1)?.authorization?.startsWith("Bearer ")).toBe(true);
    }
  });

  it("never sends or refreshes a stored DPoP token bound to another client's key: it authorizes anew", async () => {
    const s = servers({ dpopAlgs: ["ES256"] });
    const store = new InMemoryOAuthStore();
    expect((await post(client(s.routes, { store }))).status).toBe(200);
    const first = await store.getTokens(MCP);
    expect(first?.tokenType).toBe("DPoP");
    const other = client(s.routes, { store }); // another process: another key
    expect((await post(other)).status).toBe(200);
    const unproven = s.resourceRequests.filter((r) => r.authorization === `DPoP ${first!.accessToken}`);
    expect(unproven).toHaveLength(1); // only the first client's own request
    expect(s.tokenRequests.filter((r) => r.params.grant_type === "refresh_token")).toHaveLength(0);
    expect((await store.getTokens(MCP))?.dpopJkt).not.toBe(first!.dpopJkt);
  });

  it("refuses an authorization server that accepts only algorithms it cannot sign with", async () => {
    const s = servers({ dpopAlgs: ["HS256"] });
    const error = await post(client(s.routes)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe("server_metadata");
  });
});

describe("workload identity federation (SEP-1933)", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("sends the JWT bearer grant with the token read from the file at each grant, without a browser", async () => {
    dir = mkdtempSync(join(tmpdir(), "wif-"));
    const file = join(dir, "token");
    writeFileSync(file, "workload-jwt-1\n");
    const s = servers();
    const authFetch = client(s.routes, {
      redirectTo: () => {
        throw new Error("no browser");
      },
      workloadIdentity: { token: workloadTokenFile(file) },
    });
    expect((await post(authFetch)).status).toBe(200);
    expect(s.tokenRequests).toHaveLength(1);
    expect(s.tokenRequests[0]!.params).toMatchObject({
      grant_type: JWT_BEARER,
      assertion: "workload-jwt-1",
      client_id: "c1",
      resource: MCP,
    });
    writeFileSync(file, "workload-jwt-2");
    await authFetch.oauth.store.deleteTokens(MCP); // no refresh token to use: the grant runs again
    await authFetch.oauth.authorize(MCP);
    expect(s.tokenRequests[1]!.params.assertion).toBe("workload-jwt-2");
  });

  it("surfaces a refusal as AuthError token after exactly one token request: no retry, no other grant", async () => {
    for (const refusal of ["invalid_grant", "invalid_scope", "unauthorized_client"]) {
      const s = servers({ refuseJwtBearer: refusal });
      const authFetch = client(s.routes, { workloadIdentity: { token: "jwt" } });
      const error = await post(authFetch).catch((e: unknown) => e);
      expect((error as AuthError).code).toBe("token");
      expect((error as AuthError).message).toContain(refusal);
      expect(s.tokenRequests).toHaveLength(1);
    }
  });

  it("refuses a missing or empty token file with AuthError invalid_option", async () => {
    dir = mkdtempSync(join(tmpdir(), "wif-"));
    writeFileSync(join(dir, "empty"), " \n");
    for (const file of [join(dir, "missing"), join(dir, "empty")]) {
      const error = await workloadTokenFile(file)().catch((e: unknown) => e);
      expect((error as AuthError).code).toBe("invalid_option");
    }
  });
});

describe("enterprise-managed authorization (SEP-990)", () => {
  it("exchanges the ID token at the IdP for an ID-JAG, then sends it in the JWT bearer grant", async () => {
    const s = servers();
    const exchanges: Record<string, string>[] = [];
    const idp: Handler = async (request) => {
      exchanges.push(Object.fromEntries(new URLSearchParams(await request.text())));
      return Response.json({
        access_token: "the-id-jag",
        issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
        token_type: "N_A",
      });
    };
    const authFetch = client({ ...s.routes, [IDP]: idp }, {
      client: { clientId: "mcp-client", clientSecret: "s3cret" },
      enterpriseAuthorization: {
        idToken: () => "the-id-token",
        idpTokenEndpoint: `${IDP}/token`,
        idpClientId: "idp-client",
      },
    });
    expect((await post(authFetch)).status).toBe(200);
    expect(exchanges).toEqual([{
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      subject_token: "the-id-token",
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      audience: AS,
      resource: MCP,
      client_id: "idp-client",
    }]);
    expect(s.tokenRequests[0]!.params).toMatchObject({ grant_type: JWT_BEARER, assertion: "the-id-jag" });
    expect(s.tokenRequests[0]!.authorization).toBe(`Basic ${btoa("mcp-client:s3cret")}`);
  });

  it("refuses an IdP answer that is not an ID-JAG", async () => {
    const s = servers();
    const idp: Handler = () =>
      Response.json({ access_token: "x", issued_token_type: "urn:x", token_type: "N_A" });
    const authFetch = client({ ...s.routes, [IDP]: idp }, {
      enterpriseAuthorization: { idToken: "t", idpTokenEndpoint: `${IDP}/token`, idpClientId: "i" },
    });
    const error = await post(authFetch).catch((e: unknown) => e);
    expect((error as AuthError).code).toBe("token");
    expect(s.tokenRequests).toHaveLength(0);
  });
});
