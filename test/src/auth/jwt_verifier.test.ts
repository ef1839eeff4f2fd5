import { generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { jwtVerifier } from "../../../src/auth/jwt_verifier.ts";

const ISSUER = "https://auth.example.com";
const AUDIENCE = "https://mcp.example.com/mcp";

describe("jwtVerifier", async () => {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const sign = (
    claims: Record<string, unknown>,
    options: { audience?: string; issuer?: string; expiresIn?: string | null; typ?: string | null } = {},
  ) => {
    const jwt = new SignJWT(claims)
      .setProtectedHeader(
        options.typ === null ? { alg: "ES256" } : { alg: "ES256", typ: options.typ ?? "at+jwt" },
      )
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setIssuedAt();
    if (options.expiresIn !== null) jwt.setExpirationTime(options.expiresIn ?? "5m");
    return jwt.sign(privateKey);
  };
  const verify = jwtVerifier({ key: publicKey, issuer: ISSUER, audience: AUDIENCE });
  const request = new Request(AUDIENCE);

  it("accepts a token for this audience and issuer, with its scopes, subject and client", async () => {
    const info = await verify(
      await sign({ scope: "mcp:basic mcp:write", sub: "alice", client_id: "c1" }),
      request,
    );
    expect(info).toMatchObject({ scopes: ["mcp:basic", "mcp:write"], subject: "alice", clientId: "c1" });
  });

  it("refuses a token for another audience, another issuer, or an expired one", async () => {
    expect(await verify(await sign({}, { audience: "https://other.example.com/mcp" }), request))
      .toBeUndefined();
    expect(await verify(await sign({}, { issuer: "https://evil.example.com" }), request)).toBeUndefined();
    expect(await verify(await sign({}, { expiresIn: "-1m" }), request)).toBeUndefined();
    expect(await verify("not.a.jwt", request)).toBeUndefined();
  });

  // Issue 25 item 8: before, a token without exp (never expiring) and one of any typ (an ID token) passed.
  it("refuses a token without exp, as RFC 9068 §2.2 requires exp", async () => {
    expect(await verify(await sign({ sub: "alice" }, { expiresIn: null }), request)).toBeUndefined();
    expect(await verify(await sign({ sub: "alice" }), request)).toMatchObject({ subject: "alice" });
  });

  it("accepts typ at+jwt (also application/at+jwt) and refuses JWT, none, or an ID token's", async () => {
    expect(await verify(await sign({}, { typ: "application/at+jwt" }), request)).toBeDefined();
    expect(await verify(await sign({}, { typ: "JWT" }), request)).toBeUndefined();
    expect(await verify(await sign({}, { typ: null }), request)).toBeUndefined();
    expect(await verify(await sign({}, { typ: "id_token+jwt" }), request)).toBeUndefined();
  });

  it("allowUntypedTokens takes JWT or no typ for legacy issuers, still no other typ and still exp", async () => {
    const legacy = jwtVerifier({
      key: publicKey,
      issuer: ISSUER,
      audience: AUDIENCE,
      allowUntypedTokens: true,
    });
    expect(await legacy(await sign({}, { typ: "JWT" }), request)).toBeDefined();
    expect(await legacy(await sign({}, { typ: null }), request)).toBeDefined();
    expect(await legacy(await sign({}, { typ: "at+jwt" }), request)).toBeDefined();
    expect(await legacy(await sign({}, { typ: "id_token+jwt" }), request)).toBeUndefined();
    expect(await legacy(await sign({}, { typ: "JWT", expiresIn: null }), request)).toBeUndefined();
  });

  it("bounds clockTolerance to 300 seconds, and a tolerance admits a token expired within it", async () => {
    expect(() => jwtVerifier({ key: publicKey, issuer: ISSUER, audience: AUDIENCE, clockTolerance: 301 }))
      .toThrow(/clockTolerance/);
    expect(() => jwtVerifier({ key: publicKey, issuer: ISSUER, audience: AUDIENCE, clockTolerance: 300 }))
      .not.toThrow();
    const lenient = jwtVerifier({ key: publicKey, issuer: ISSUER, audience: AUDIENCE, clockTolerance: 120 });
    expect(await lenient(await sign({}, { expiresIn: "-1m" }), request)).toBeDefined();
    expect(await lenient(await sign({}, { expiresIn: "-3m" }), request)).toBeUndefined();
  });

  it("needs exactly one of jwksUrl and key", () => {
    expect(() => jwtVerifier({ issuer: ISSUER, audience: AUDIENCE })).toThrow(/exactly one/);
  });
});
