/**
 * DPoP proofs of the OAuth client (RFC 9449, MCP extension SEP-1932), on `oauth4webapi`'s DPoP handle:
 * one key pair per algorithm, the private key non-extractable; proofs, `ath` and the nonce cache are
 * the library's.
 * @module
 */
import * as oauth from "oauth4webapi";
import { AuthError } from "./errors.ts";

/** Options of DPoP in the OAuth client (`OAuthClientOptions.dpop`). */
export interface DPoPOptions {
  /**
   * The key pair that signs proofs (its public key extractable, its private key best not): pass one
   * kept across restarts (IndexedDB holds `CryptoKey`s) so stored DPoP-bound tokens stay usable.
   * Default: a new ES256 pair per client, its private key non-extractable.
   * @default a new ES256 pair per client
   */
  keyPair?: oauth.CryptoKeyPair;
  /**
   * Send proofs even when the authorization server does not advertise
   * `dpop_signing_alg_values_supported`. Default false: DPoP follows the server's metadata.
   * @default false
   */
  always?: boolean;
}

/** The algorithms a generated key can use, in order of preference. */
const GENERATED_ALGORITHMS = ["ES256", "EdDSA", "ES384", "PS256", "RS256"];

/** The keys and handles of one OAuth client; proofs for the token endpoint and for resource requests. */
export class DPoPProofs {
  #options: DPoPOptions;
  #handles = new Map<string, Promise<DPoPKey>>();

  constructor(options: DPoPOptions = {}) {
    this.#options = options;
  }

  /**
   * The key for an authorization server, or undefined when DPoP is not used with it: the server lists
   * no `dpop_signing_alg_values_supported` (and `always` is off). Rejects (code `server_metadata`)
   * when the server lists only algorithms this client cannot sign with.
   */
  forServer(as: oauth.AuthorizationServer): Promise<DPoPKey | undefined> {
    const listed = Array.isArray(as.dpop_signing_alg_values_supported) &&
        as.dpop_signing_alg_values_supported.length > 0
      ? as.dpop_signing_alg_values_supported.filter((alg) => alg !== "none")
      : undefined;
    if (listed === undefined && this.#options.always !== true) return Promise.resolve(undefined);
    const given = this.#options.keyPair;
    if (given !== undefined) return this.#handle("given", async () => given);
    const alg = listed === undefined
      ? GENERATED_ALGORITHMS[0]!
      : GENERATED_ALGORITHMS.find((candidate) => listed.includes(candidate));
    if (alg === undefined) {
      return Promise.reject(
        new AuthError(
          "server_metadata",
          `The authorization server ${as.issuer} accepts DPoP proofs only with ${
            listed!.join(", ")
          }; this client signs with ${GENERATED_ALGORITHMS.join(", ")}`,
        ),
      );
    }
    return this.#handle(alg, () => oauth.generateKeyPair(alg, { extractable: false }));
  }

  /** The key whose JWK SHA-256 thumbprint is `jkt`, among those made so far; undefined when none. */
  async byThumbprint(jkt: string): Promise<DPoPKey | undefined> {
    for (const pending of this.#handles.values()) {
      const key = await pending.catch(() => undefined);
      if (key?.thumbprint === jkt) return key;
    }
    return undefined;
  }

  #handle(name: string, make: () => Promise<oauth.CryptoKeyPair>): Promise<DPoPKey> {
    let handle = this.#handles.get(name);
    if (handle === undefined) {
      handle = make().then(async (keyPair) => {
        const dpop = oauth.DPoP({}, keyPair);
        return new DPoPKey(dpop, await dpop.calculateThumbprint(), keyPair.privateKey.extractable);
      });
      this.#handles.set(name, handle);
    }
    return handle;
  }
}

/** One DPoP key: its `oauth4webapi` handle (proofs and nonces) and its JWK thumbprint (`cnf.jkt`). */
export class DPoPKey {
  constructor(
    readonly handle: oauth.DPoPHandle,
    readonly thumbprint: string,
    /** Whether the private key can be exported (false for the keys this module generates). */
    readonly extractable: boolean,
  ) {}

  /**
   * Sends a resource request with `Authorization: DPoP <token>` and a fresh proof (`htm`, `htu`,
   * `ath`, the server's last nonce), through `send`, which gets the two headers to set. A
   * `401 use_dpop_nonce` is sent once more with the nonce the server just gave (RFC 9449 §9).
   */
  async send(
    accessToken: string,
    method: string,
    url: string,
    send: (headers: { authorization: string; dpop: string }) => Promise<Response>,
  ): Promise<Response> {
    for (let attempt = 0;; attempt++) {
      try {
        return await oauth.protectedResourceRequest(accessToken, method, new URL(url), undefined, undefined, {
          DPoP: this.handle,
          [oauth.allowInsecureRequests]: true, // the transport decides about the scheme, not this layer
          [oauth.customFetch]: ((_url: string, init: { headers: Record<string, string> }) =>
            send({ authorization: init.headers.authorization!, dpop: init.headers.dpop! })) as never,
        });
      } catch (error) {
        if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error;
        if (attempt === 0 && oauth.isDPoPNonceError(error)) {
          if (error.response.body !== null) await error.response.body.cancel().catch(() => {});
          continue;
        }
        return error.response; // a challenge is the caller's to read (401 → authorize, 403 → step-up)
      }
    }
  }
}
