// The client's DPoP keys: generated through WebCrypto with a non-extractable private key, one per
// algorithm the authorization server accepts, none when it advertises no DPoP.
import { describe, expect, it } from "vitest";
import { DPoPProofs } from "../../../src/auth/dpop_proofs.ts";

const as = (algs?: string[]) => ({
  issuer: "https://as.example",
  ...(algs ? { dpop_signing_alg_values_supported: algs } : {}),
});

describe("DPoPProofs", () => {
  it("generates an ES256 key whose private half cannot be exported, and reuses it", async () => {
    const proofs = new DPoPProofs();
    const key = await proofs.forServer(as(["RS256", "ES256"]));
    expect(key?.extractable).toBe(false);
    expect(await proofs.forServer(as(["ES256"]))).toBe(key);
    expect(await proofs.byThumbprint(key!.thumbprint)).toBe(key);
    expect(await proofs.byThumbprint("other")).toBeUndefined();
  });

  it("uses no key when the server advertises no DPoP, unless always", async () => {
    expect(await new DPoPProofs().forServer(as())).toBeUndefined();
    expect(await new DPoPProofs().forServer(as([]))).toBeUndefined();
    expect(await new DPoPProofs({ always: true }).forServer(as())).toBeDefined();
  });
});
