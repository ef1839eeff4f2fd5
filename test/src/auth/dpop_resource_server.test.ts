// DPoP on the resource server (requireBearer with dpop), from RFC 9449: proof checks (§4.3), replay,
// htm/htu, the iat window, ath, the cnf.jkt binding (§6, §7.1), nonces (§9), on a fake clock; and
// withOAuth with DPoP against it.
import * as jose from "jose";
import { describe, expect, it } from "vitest";
import {
  type AccessTokenInfo,
  DPoPVerifier,
  type DPoPVerifierOptions,
  parseDPoPChallenge,
  requireBearer,
  withOAuth,
} from "../../../src/auth/mod.ts";
import { autoApprove, type Handler, routeFetch } from "./oauth_fixtures.ts";

const EPOCH = 1_800_000_000_000;
const URL_MCP = "https://mcp.example.com/mcp";

class Clock {
  now = EPOCH;
  advance(ms: number): void {
    this.now += ms;
  }
}

async function key() {
  const pair = await jose.generateKeyPair("ES256");
  const jwk = await jose.exportJWK(pair.publicKey);
  return { ...pair, jwk, jkt: await jose.calculateJwkThumbprint(jwk) };
}
type Key = Awaited<ReturnType<typeof key>>;

async function ath(token: string): Promise<string> {
  return jose.base64url.encode(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token))),
  );
}

interface ProofClaims {
  htm?: string;
  htu?: string;
  iat?: number;
  jti?: string;
  ath?: string;
  nonce?: string;
}

async function proof(k: Key, token: string, clock: Clock, claims: ProofClaims = {}): Promise<string> {
  return await new jose.SignJWT({
    htm: "POST",
    htu: URL_MCP,
    iat: Math.floor(clock.now / 1000),
    jti: crypto.randomUUID(),
    ath: await ath(token),
    ...claims,
  }).setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: k.jwk }).sign(k.privateKey);
}

/** A protected endpoint whose tokens are `bound-<jkt>` (DPoP-bound) or `plain` (Bearer). */
function protectedEndpoint(clock: Clock, options: DPoPVerifierOptions = {}) {
  const verifier = new DPoPVerifier({ clock: () => clock.now, ...options });
  const verify = (token: string): AccessTokenInfo | undefined => {
    if (token === "plain") return { scopes: [] };
    if (token.startsWith("bound-")) return { scopes: [], claims: { cnf: { jkt: token.slice(6) } } };
    return undefined;
  };
  const handler = requireBearer(() => Response.json({ ok: true }), { verify, dpop: verifier });
  const send = (authorization: string | undefined, dpopProof?: string, method = "POST", url = URL_MCP) => {
    const headers: Record<string, string> = {};
    if (authorization !== undefined) headers.authorization = authorization;
    if (dpopProof !== undefined) headers.dpop = dpopProof;
    return handler(new Request(url, { method, headers }));
  };
  return { verifier, send };
}

async function refusal(response: Response) {
  expect(response.status).toBe(401);
  return parseDPoPChallenge(response.headers.get("www-authenticate"));
}

describe("requireBearer with DPoP (RFC 9449)", () => {
  it("accepts a DPoP-bound token with a valid proof, and refuses the same proof again (jti replay)", async () => {
    const clock = new Clock();
    const k = await key();
    const { send } = protectedEndpoint(clock);
    const token = `bound-${k.jkt}`;
    const p = await proof(k, token, clock);
    expect((await send(`DPoP ${token}`, p)).status).toBe(200);
    const challenge = await refusal(await send(`DPoP ${token}`, p));
    expect(challenge?.error).toBe("invalid_dpop_proof");
    expect(challenge?.errorDescription).toContain("replay");
  });

  it("refuses a proof for another URL or method (htu, htm), and accepts the query-less match", async () => {
    const clock = new Clock();
    const k = await key();
    const { send } = protectedEndpoint(clock);
    const token = `bound-${k.jkt}`;
    expect(
      (await refusal(
        await send(`DPoP ${token}`, await proof(k, token, clock, { htu: "https://mcp.example.com/other" })),
      ))?.error,
    )
      .toBe("invalid_dpop_proof");
    expect((await refusal(await send(`DPoP ${token}`, await proof(k, token, clock, { htm: "GET" }))))?.error)
      .toBe("invalid_dpop_proof");
    expect((await send(`DPoP ${token}`, await proof(k, token, clock), "POST", `${URL_MCP}?x=1`)).status).toBe(
      200,
    );
  });

  it("holds the iat window both ways: proofWindow old or ahead is accepted, one second more is refused", async () => {
    const clock = new Clock();
    const k = await key();
    const { send } = protectedEndpoint(clock, { proofWindow: 60_000 });
    const token = `bound-${k.jkt}`;
    const at = (offset: number) => proof(k, token, clock, { iat: Math.floor((clock.now + offset) / 1000) });
    expect((await send(`DPoP ${token}`, await at(-60_000))).status).toBe(200);
    expect((await send(`DPoP ${token}`, await at(60_000))).status).toBe(200);
    const stale = await refusal(await send(`DPoP ${token}`, await at(-61_000)));
    expect(stale?.errorDescription).toContain("iat");
    expect((await refusal(await send(`DPoP ${token}`, await at(61_000))))?.error).toBe("invalid_dpop_proof");
  });

  it("refuses a token bound to another key than the proof's, a proof for another token (ath), and a missing proof", async () => {
    const clock = new Clock();
    const [k, other] = [await key(), await key()];
    const { send } = protectedEndpoint(clock);
    const token = `bound-${other.jkt}`;
    const wrongKey = await refusal(await send(`DPoP ${token}`, await proof(k, token, clock)));
    expect(wrongKey?.error).toBe("invalid_token");
    expect(wrongKey?.errorDescription).toContain("another key");
    const mine = `bound-${k.jkt}`;
    expect(
      (await refusal(await send(`DPoP ${mine}`, await proof(k, mine, clock, { ath: await ath("x") }))))
        ?.error,
    )
      .toBe("invalid_dpop_proof");
    expect((await refusal(await send(`DPoP ${mine}`)))?.error).toBe("invalid_dpop_proof");
    expect((await refusal(await send(`DPoP ${mine}`, "not-a-jwt")))?.error).toBe("invalid_dpop_proof");
  });

  it("refuses a DPoP-bound token sent as Bearer, an unbound token sent as DPoP, and Bearer when DPoP is required", async () => {
    const clock = new Clock();
    const k = await key();
    const { send } = protectedEndpoint(clock);
    expect((await send(`Bearer bound-${k.jkt}`)).status).toBe(401);
    expect((await send("Bearer plain")).status).toBe(200);
    expect((await refusal(await send("DPoP plain", await proof(k, "plain", clock))))?.errorDescription)
      .toContain(
        "not DPoP-bound",
      );
    const strict = protectedEndpoint(clock, { required: true });
    const response = await strict.send("Bearer plain");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).not.toMatch(/^Bearer|, Bearer/);
    const unauthenticated = await strict.send(undefined);
    expect(parseDPoPChallenge(unauthenticated.headers.get("www-authenticate"))?.params.algs).toContain(
      "ES256",
    );
  });

  it("with nonces, a proof without the server's nonce gets 401 use_dpop_nonce and a DPoP-Nonce; the previous nonce stays good for one lifetime", async () => {
    const clock = new Clock();
    const k = await key();
    const { send } = protectedEndpoint(clock, { nonces: true, nonceLifetime: 10_000 });
    const token = `bound-${k.jkt}`;
    const first = await send(`DPoP ${token}`, await proof(k, token, clock));
    expect((await refusal(first))?.error).toBe("use_dpop_nonce");
    const nonce = first.headers.get("dpop-nonce")!;
    expect(nonce).toBeTruthy();
    expect((await send(`DPoP ${token}`, await proof(k, token, clock, { nonce }))).status).toBe(200);
    clock.advance(10_000); // rotated: the old nonce is the previous one, still accepted
    expect((await send(`DPoP ${token}`, await proof(k, token, clock, { nonce }))).status).toBe(200);
    clock.advance(10_000);
    const rotated = await send(`DPoP ${token}`, await proof(k, token, clock, { nonce }));
    expect((await refusal(rotated))?.error).toBe("use_dpop_nonce");
    expect(rotated.headers.get("dpop-nonce")).not.toBe(nonce);
  });

  it("bounds the replay cache in size (oldest forgotten when full, not before) and in time (gone after the window)", async () => {
    const clock = new Clock();
    const k = await key();
    const { send, verifier } = protectedEndpoint(clock, { replayCacheSize: 3, proofWindow: 60_000 });
    const token = `bound-${k.jkt}`;
    const proofs = [await proof(k, token, clock), await proof(k, token, clock), await proof(k, token, clock)];
    for (const p of proofs) expect((await send(`DPoP ${token}`, p)).status).toBe(200);
    expect(verifier.replayCacheCount).toBe(3);
    expect((await send(`DPoP ${token}`, proofs[0])).status).toBe(401); // full, nothing forgotten yet
    expect((await send(`DPoP ${token}`, await proof(k, token, clock))).status).toBe(200); // evicts proofs[0]
    expect(verifier.replayCacheCount).toBe(3);
    expect((await send(`DPoP ${token}`, proofs[0])).status).toBe(200); // forgotten: the size bound holds
    clock.advance(60_001);
    expect(verifier.replayCacheCount).toBe(0);
  });

  it("refuses options that would weaken it", () => {
    expect(() => new DPoPVerifier({ algorithms: ["HS256"] })).toThrow();
    expect(() => new DPoPVerifier({ replayCacheSize: 0 })).toThrow();
    expect(() => new DPoPVerifier({ proofWindow: -1 })).toThrow();
  });
});

describe("withOAuth with DPoP against requireBearer with DPoP and nonces", () => {
  it("obtains a bound token, answers the nonce challenge, and every request carries a fresh proof", async () => {
    const AS = "http://127.0.0.1:9301";
    const RS = "http://127.0.0.1:9300";
    const bound = new Map<string, string>();
    const as: Handler = async (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/.well-known/oauth-authorization-server") {
        return Response.json({
          issuer: AS,
          authorization_endpoint: `${AS}/authorize`,
          token_endpoint: `${AS}/token`,
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
          dpop_signing_alg_values_supported: ["ES256"],
        });
      }
      if (url.pathname === "/authorize") {
        const target = new URL(url.searchParams.get("redirect_uri")!);
        target.searchParams.set("code", "c");
        target.searchParams.set("state", url.searchParams.get("state")!);
        return new Response(null, { status: 302, headers: { location: target.href } });
      }
      const { protectedHeader } = await jose.jwtVerify(request.headers.get("dpop")!, jose.EmbeddedJWK);
      const token = `t${bound.size}`;
      bound.set(token, await jose.calculateJwkThumbprint(protectedHeader.jwk!));
      return Response.json({ access_token: token, token_type: "DPoP", expires_in: 3600 });
    };
    const verifier = new DPoPVerifier({ nonces: true });
    let proofs = 0;
    const rs = requireBearer(() => Response.json({ ok: true }), {
      verify: (token, request) => {
        if (request.headers.has("dpop")) proofs++;
        const jkt = bound.get(token);
        return jkt === undefined ? undefined : { scopes: [], jkt };
      },
      metadata: { resource: `${RS}/mcp`, authorization_servers: [AS] },
      dpop: verifier,
    });
    const fetch = routeFetch({ [AS]: as, [RS]: rs });
    const authFetch = withOAuth(fetch, {
      client: { clientId: "c" },
      redirectUri: "http://127.0.0.1:7777/cb",
      redirectTo: autoApprove(fetch),
    });
    for (let i = 0; i < 3; i++) {
      expect((await authFetch(`${RS}/mcp`, { method: "POST", body: "{}" })).status).toBe(200);
    }
    expect(proofs).toBe(3);
    expect(verifier.replayCacheCount).toBe(3);
  });
});
