/**
 * Authorization server metadata discovery (RFC 8414 with the OpenID Connect Discovery fallbacks) in
 * the order of the MCP specification.
 * @module
 */
import * as oauth from "oauth4webapi";
import { AuthError } from "./errors.ts";
import { discardBody, type FetchLike, getJson } from "./fetch_like.ts";

/** Options of {@linkcode discoverAuthorizationServer}. */
export interface DiscoverAuthorizationServerOptions {
  fetch: FetchLike;
  signal?: AbortSignal | undefined;
}

/**
 * The metadata URLs for `issuer`, in the specification's order. With a path (`https://a/tenant1`):
 * `/.well-known/oauth-authorization-server/tenant1`, `/.well-known/openid-configuration/tenant1`,
 * `/tenant1/.well-known/openid-configuration`. Without: `/.well-known/oauth-authorization-server`,
 * `/.well-known/openid-configuration`.
 */
export function authorizationServerMetadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/+$/, "");
  if (path === "") {
    return [
      new URL("/.well-known/oauth-authorization-server", issuer.origin),
      new URL("/.well-known/openid-configuration", issuer.origin),
    ];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`/.well-known/openid-configuration${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}

/**
 * Fetches and validates the metadata of the authorization server `issuer` (an entry of the resource's
 * `authorization_servers`). A document is used only when its `issuer` is identical (string equality)
 * to `issuer` (RFC 8414 §3.3); documents that cannot be fetched or whose issuer differs are skipped,
 * and when none is left, rejects with code `server_metadata`.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  options: DiscoverAuthorizationServerOptions,
): Promise<oauth.AuthorizationServer> {
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch (cause) {
    throw new AuthError(
      "server_metadata",
      `The authorization server ${JSON.stringify(issuer)} is not a URL`,
      { cause },
    );
  }
  const failures: string[] = [];
  let lastError: unknown;
  for (const url of authorizationServerMetadataUrls(issuerUrl)) {
    const response = await getJson(options.fetch, url, options.signal);
    if (response.status !== 200) {
      failures.push(`${url.href} answered ${response.status}`);
      await discardBody(response);
      continue;
    }
    try {
      const metadata = await oauth.processDiscoveryResponse(issuerUrl, response);
      if (metadata.issuer !== issuer) {
        throw new AuthError(
          "server_metadata",
          `The metadata at ${url.href} names issuer ${JSON.stringify(metadata.issuer)}, not ${
            JSON.stringify(issuer)
          }`,
        );
      }
      return metadata;
    } catch (error) {
      lastError = error;
      failures.push(`${url.href}: ${(error as Error).message}`);
    }
  }
  throw new AuthError(
    "server_metadata",
    `No valid authorization server metadata for ${issuer} (${failures.join("; ")})`,
    { cause: lastError },
  );
}
