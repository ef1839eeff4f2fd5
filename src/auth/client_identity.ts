/**
 * The client's identity at an authorization server, in the specification's order (pre-registration,
 * Client ID Metadata Document, Dynamic Client Registration), and its token-endpoint authentication.
 * @module
 */
import * as oauth from "oauth4webapi";
import { AuthError } from "./errors.ts";
import { isLoopbackHost } from "./fetch_like.ts";
import type { OAuthStore, StoredClient } from "./oauth_store.ts";

/** Credentials obtained outside the protocol (pre-registration). */
export interface PreRegisteredClient {
  clientId: string;
  clientSecret?: string;
  /** A private key for `private_key_jwt` (RFC 7523): a signing `CryptoKey`, optionally with its `kid`. */
  privateKey?: oauth.CryptoKey | { key: oauth.CryptoKey; kid?: string };
  /**
   * `client_secret_basic`, `client_secret_post`, `private_key_jwt` or `none`; default: `private_key_jwt`
   * with a `privateKey`, else chosen from the server's metadata.
   */
  tokenEndpointAuthMethod?: string;
  /** The issuer these credentials belong to; when set, another issuer is refused (code `registration`). */
  issuer?: string;
}

/** The `oauth4webapi` request options every OAuth request of the client carries. */
export interface OAuthHttpOptions {
  [oauth.customFetch]: never;
  [oauth.allowInsecureRequests]: boolean;
}

/** What {@linkcode resolveClient} needs. */
export interface ResolveClientOptions {
  client?: PreRegisteredClient | undefined;
  clientMetadataUrl?: string | undefined;
  clientMetadata?: Record<string, unknown> | undefined;
  grantType?: "authorization_code" | "client_credentials" | undefined;
  redirectUri?: string | undefined;
  store: OAuthStore;
  http: OAuthHttpOptions;
}

/**
 * The client identity at `as`: the pre-registered client (refused, code `registration`, when bound to
 * another issuer), else one registered earlier with this issuer, else the CIMD URL when `as`
 * advertises `client_id_metadata_document_supported`, else a Dynamic Client Registration (kept in the
 * store under the issuer, so another authorization server never sees it). Rejects with code
 * `registration` when none applies or registration fails.
 */
export async function resolveClient(
  as: oauth.AuthorizationServer,
  options: ResolveClientOptions,
): Promise<StoredClient> {
  const pre = options.client;
  if (pre !== undefined) {
    if (pre.issuer !== undefined && pre.issuer !== as.issuer) {
      throw new AuthError(
        "registration",
        `The pre-registered client is for ${pre.issuer}, but the server's authorization server is ${as.issuer}`,
      );
    }
    const client: StoredClient = { clientId: pre.clientId };
    if (pre.clientSecret !== undefined) client.clientSecret = pre.clientSecret;
    const method = pre.tokenEndpointAuthMethod ??
      (pre.privateKey === undefined ? undefined : "private_key_jwt");
    if (method !== undefined) client.tokenEndpointAuthMethod = method;
    return client;
  }
  const stored = await options.store.getClient(as.issuer);
  if (stored !== undefined) return stored;
  const cimd = options.clientMetadataUrl;
  if (cimd !== undefined && as.client_id_metadata_document_supported === true) {
    return { clientId: cimd, tokenEndpointAuthMethod: "none" };
  }
  if (as.registration_endpoint === undefined) {
    throw new AuthError(
      "registration",
      `No client identity for ${as.issuer}: no pre-registered client, ${
        cimd === undefined ? "no clientMetadataUrl" : "no CIMD support"
      }, and no registration_endpoint`,
    );
  }
  const registered = await register(as, options);
  const client: StoredClient = { clientId: registered.client_id };
  if (typeof registered.client_secret === "string") client.clientSecret = registered.client_secret;
  if (typeof registered.token_endpoint_auth_method === "string") {
    client.tokenEndpointAuthMethod = registered.token_endpoint_auth_method;
  }
  await options.store.saveClient(as.issuer, client);
  return client;
}

/** Dynamic Client Registration (RFC 7591) with `application_type` (SEP-837) and the grant types wanted. */
async function register(
  as: oauth.AuthorizationServer,
  options: ResolveClientOptions,
): Promise<oauth.OmitSymbolProperties<oauth.Client>> {
  const clientCredentials = options.grantType === "client_credentials";
  const metadata: Record<string, unknown> = {
    client_name: "onemodelcontext",
    grant_types: clientCredentials ? ["client_credentials"] : ["authorization_code", "refresh_token"],
    ...(clientCredentials ? {} : {
      response_types: ["code"],
      redirect_uris: [options.redirectUri],
      application_type: applicationType(options.redirectUri),
    }),
    ...options.clientMetadata,
  };
  try {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      metadata as Partial<oauth.OmitSymbolProperties<oauth.Client>>,
      options.http,
    );
    return await oauth.processDynamicClientRegistrationResponse(response).catch((error: unknown) => {
      // RFC 7591 requires client_secret_expires_at with a secret; many servers leave it out (it then never expires).
      const body =
        (error as { cause?: { body?: { client_id?: unknown; client_secret_expires_at?: unknown } } }).cause
          ?.body;
      if (
        error instanceof oauth.OperationProcessingError && typeof body?.client_id === "string" &&
        body.client_secret_expires_at === undefined
      ) {
        return body as oauth.OmitSymbolProperties<oauth.Client>;
      }
      throw error;
    });
  } catch (cause) {
    throw new AuthError(
      "registration",
      `Dynamic Client Registration at ${as.registration_endpoint} failed: ${(cause as Error).message}`,
      { cause },
    );
  }
}

/**
 * Token-endpoint authentication: the client's registered method, else, with a secret,
 * `client_secret_basic` or `client_secret_post` as the server advertises, else `none`.
 */
export function clientAuthentication(
  client: StoredClient,
  as: oauth.AuthorizationServer,
  privateKey?: PreRegisteredClient["privateKey"],
): oauth.ClientAuth {
  const secret = client.clientSecret;
  let method = client.tokenEndpointAuthMethod;
  if (method === undefined) {
    const supported = as.token_endpoint_auth_methods_supported;
    if (secret === undefined) method = "none";
    else if (supported === undefined || supported.includes("client_secret_basic")) {
      method = "client_secret_basic";
    } else if (supported.includes("client_secret_post")) method = "client_secret_post";
    else method = "none";
  }
  switch (method) {
    case "client_secret_basic":
    case "client_secret_post":
      if (secret === undefined) {
        throw new AuthError(
          "registration",
          `Token endpoint authentication ${method} needs a client secret, and the client has none`,
        );
      }
      return method === "client_secret_basic" ? clientSecretBasic(secret) : oauth.ClientSecretPost(secret);
    case "none":
      return oauth.None();
    case "private_key_jwt":
      if (privateKey === undefined) {
        throw new AuthError(
          "registration",
          "Token endpoint authentication private_key_jwt needs client.privateKey",
        );
      }
      return oauth.PrivateKeyJwt(privateKey);
    default:
      throw new AuthError(
        "registration",
        `Token endpoint authentication ${JSON.stringify(method)} is not supported`,
      );
  }
}

/**
 * `client_secret_basic` with the `application/x-www-form-urlencoded` serializer (RFC 6749 §2.3.1):
 * `oauth4webapi`'s encoder also escapes `-`, `.`, `_` and `*`, which servers that compare the
 * credentials without decoding them refuse.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  const encode = (value: string): string => new URLSearchParams([["", value]]).toString().slice(1);
  return (_as, client, _body, headers) => {
    headers.set("authorization", `Basic ${btoa(`${encode(client.client_id)}:${encode(secret)}`)}`);
  };
}

/** `native` for loopback, localhost and custom-scheme redirect URIs; `web` otherwise (SEP-837). */
function applicationType(redirectUri: string | undefined): "native" | "web" {
  if (redirectUri === undefined) return "native";
  const url = new URL(redirectUri);
  if (url.protocol !== "http:" && url.protocol !== "https:") return "native";
  return isLoopbackHost(url.hostname) ? "native" : "web";
}
