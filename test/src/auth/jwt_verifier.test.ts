import { generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { jwtVerifier } from "../../../src/auth/jwt_verifier.ts";

const ISSUER = "https://auth.example.com";
const AUDIENCE = "https://mcp.example.com/mcp";

describe("jwtVerifier", async () => {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const sign = (
    claims: Record<string, unknown>,
    options: { audience?: string; issuer?: string; expiresIn?: string } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? "5m")
      .sign(privateKey);
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

  it("needs exactly one of jwksUrl and key", () => {
    expect(() => jwtVerifier({ issuer: ISSUER, audience: AUDIENCE })).toThrow(/exactly one/);
  });
});
