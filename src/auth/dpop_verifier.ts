/**
 * DPoP proofs checked by a resource server (RFC 9449 §4.3, §7, §9): the proof's signature by the key
 * in its header, `typ`, `alg`, `htm`, `htu`, `iat` within a window, `jti` never seen before (a cache
 * bounded in size and time), `ath` for the presented token, and server nonces. `jose` is loaded on
 * the first proof.
 * @module
 */
import { integerOption } from "../stream/options.ts";
import { systemEpochMs } from "../stream/time_provider.ts";
import { AuthError } from "./errors.ts";

/** Options of DPoP in `requireBearer` (`RequireBearerOptions.dpop`). Times in milliseconds. */
export interface DPoPVerifierOptions {
  /**
   * Refuse Bearer tokens: every request must come with a DPoP-bound token and a proof. Default false.
   * @default false
   */
  required?: boolean;
  /**
   * Proof algorithms accepted (asymmetric only). Default ES256, ES384, ES512, PS256, PS384, PS512, RS256, RS384, RS512, EdDSA.
   * @default ES256
   */
  algorithms?: readonly string[];
  /**
   * How far a proof's `iat` may be from now, either way. Default 300 000 (5 minutes).
   * @default 300000 (5 minutes)
   */
  proofWindow?: number;
  /**
   * How many `jti` values are remembered, at most. Each is kept until its proof leaves the window
   * (then a replay is refused for its `iat` anyway); when full, the oldest is forgotten, so keep it
   * above the proofs accepted per window. Default 100 000.
   * @default 100000
   */
  replayCacheSize?: number;
  /**
   * Serve nonces (§9): a proof must carry one the server issued. Default false.
   * @default false
   */
  nonces?: boolean;
  /**
   * A nonce is accepted for this long after it stops being the current one, which lasts as long. Default 300 000.
   * @default 300000
   */
  nonceLifetime?: number;
  /**
   * The wall clock, milliseconds since the epoch. Default: the host's.
   * @default the host's
   */
  clock?: () => number;
}

/** Why a proof was refused, as the `error` of the `DPoP` challenge. */
export type DPoPFailure = { error: "invalid_dpop_proof" | "use_dpop_nonce"; description: string };

const DEFAULT_ALGORITHMS = [
  "ES256",
  "ES384",
  "ES512",
  "PS256",
  "PS384",
  "PS512",
  "RS256",
  "RS384",
  "RS512",
  "EdDSA",
];

/** Checks DPoP proofs for one resource server; keeps its replay cache and its nonces. */
export class DPoPVerifier {
  readonly required: boolean;
  readonly algorithms: readonly string[];
  readonly nonces: boolean;
  #window: number;
  #cacheSize: number;
  #nonceLifetime: number;
  #clock: () => number;
  /** jti → when it may be forgotten; insertion order is age order. */
  #seen = new Map<string, number>();
  #nonce: { current: string; previous: string | undefined; since: number } | undefined;

  constructor(options: DPoPVerifierOptions = {}) {
    this.required = options.required ?? false;
    this.algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
    if (
      this.algorithms.length === 0 || this.algorithms.some((alg) => alg === "none" || alg.startsWith("HS"))
    ) {
      throw new AuthError("invalid_option", "dpop.algorithms must list asymmetric JWS algorithms only");
    }
    this.nonces = options.nonces ?? false;
    this.#window = integerOption("dpop.proofWindow", options.proofWindow, 300_000, 1);
    this.#cacheSize = integerOption("dpop.replayCacheSize", options.replayCacheSize, 100_000, 1);
    this.#nonceLifetime = integerOption("dpop.nonceLifetime", options.nonceLifetime, 300_000, 1);
    this.#clock = options.clock ?? systemEpochMs;
  }

  /** How many `jti` values are remembered now. */
  get replayCacheCount(): number {
    this.#prune(this.#clock());
    return this.#seen.size;
  }

  /** The nonce to hand out now (rotated every `nonceLifetime`); undefined without `nonces`. */
  currentNonce(): string | undefined {
    if (!this.nonces) return undefined;
    const now = this.#clock();
    if (this.#nonce === undefined || now - this.#nonce.since >= this.#nonceLifetime) {
      const stale = this.#nonce !== undefined && now - this.#nonce.since >= 2 * this.#nonceLifetime;
      this.#nonce = {
        current: crypto.randomUUID(),
        previous: this.#nonce === undefined || stale ? undefined : this.#nonce.current,
        since: now,
      };
    }
    return this.#nonce.current;
  }

  /**
   * Checks the `DPoP` header of `request` for `accessToken`; returns the thumbprint of the proof's
   * key (to compare with the token's `cnf.jkt`), or why it is refused.
   */
  async verify(request: Request, accessToken: string): Promise<{ jkt: string } | DPoPFailure> {
    const invalid = (description: string): DPoPFailure => ({ error: "invalid_dpop_proof", description });
    const proof = request.headers.get("dpop");
    if (proof === null || proof === "") return invalid("The request has no DPoP proof");
    if (proof.includes(",")) return invalid("The request has more than one DPoP proof");
    const jose = await import("jose");
    let payload: Record<string, unknown>;
    let jwk: Record<string, unknown>;
    try {
      const verified = await jose.jwtVerify(proof, jose.EmbeddedJWK, {
        typ: "dpop+jwt",
        algorithms: [...this.algorithms],
        currentDate: new Date(this.#clock()),
      });
      payload = verified.payload;
      jwk = verified.protectedHeader.jwk as Record<string, unknown>;
    } catch (error) {
      return invalid(`The DPoP proof does not verify: ${(error as Error).message}`);
    }
    if (jwk.d !== undefined || jwk.k !== undefined) {
      return invalid("The DPoP proof's jwk holds a private key");
    }
    if (typeof payload.jti !== "string" || payload.jti === "") return invalid("The DPoP proof has no jti");
    if (payload.htm !== request.method) return invalid(`The DPoP proof's htm is not ${request.method}`);
    if (typeof payload.htu !== "string" || !sameTarget(payload.htu, request.url)) {
      return invalid("The DPoP proof's htu is not this request's URL");
    }
    const now = this.#clock();
    if (typeof payload.iat !== "number" || Math.abs(now - payload.iat * 1000) > this.#window) {
      return invalid("The DPoP proof's iat is outside the accepted window");
    }
    const ath = jose.base64url.encode(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(accessToken))),
    );
    if (payload.ath !== ath) return invalid("The DPoP proof's ath does not match the access token");
    if (this.nonces) {
      const current = this.currentNonce();
      if (
        payload.nonce !== current && (payload.nonce === undefined || payload.nonce !== this.#nonce?.previous)
      ) {
        return { error: "use_dpop_nonce", description: "The DPoP proof must carry the server's nonce" };
      }
    }
    this.#prune(now);
    if (this.#seen.has(payload.jti)) return invalid("The DPoP proof was used before (jti replay)");
    if (this.#seen.size >= this.#cacheSize) this.#seen.delete(this.#seen.keys().next().value!);
    this.#seen.set(payload.jti, payload.iat * 1000 + this.#window);
    return { jkt: await jose.calculateJwkThumbprint(jwk as never, "sha256") };
  }

  /** Forgets the jti values whose proofs left the window (they are refused for their iat). */
  #prune(now: number): void {
    for (const [jti, until] of this.#seen) {
      if (until >= now) break; // oldest first: the rest go on a later call
      this.#seen.delete(jti);
    }
  }
}

/** RFC 9449 §4.3 step 9: the URIs match without query and fragment (scheme and host case-insensitive). */
function sameTarget(htu: string, requestUrl: string): boolean {
  try {
    const a = new URL(htu);
    const b = new URL(requestUrl);
    return a.origin === b.origin && a.pathname === b.pathname;
  } catch {
    return false;
  }
}
