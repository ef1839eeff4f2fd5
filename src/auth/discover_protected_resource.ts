/**
 * Protected Resource Metadata discovery (RFC 9728) in the order of the MCP specification.
 * @module
 */
import * as oauth from "oauth4webapi";
import { AuthError } from "./errors.ts";
import { discardBody, type FetchLike, getJson } from "./fetch_like.ts";
import type { BearerChallenge } from "./www_authenticate.ts";

/** What {@linkcode discoverProtectedResource} found. */
export interface ProtectedResource {
  /** The validated document. */
  metadata: oauth.ResourceServer;
  /** Its `resource`: the value sent as the `resource` parameter (RFC 8707). */
  resource: string;
  /** Its `authorization_servers` (at least one). */
  authorizationServers: string[];
  /** Where it was found. */
  metadataUrl: string;
}

/** Options of {@linkcode discoverProtectedResource}. */
export interface DiscoverProtectedResourceOptions {
  fetch: FetchLike;
  /** The challenge of the 401 that started discovery; its `resource_metadata` is tried first. */
  challenge?: BearerChallenge | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * The URLs to try, in the specification's order: the challenge's `resource_metadata` when present,
 * then `/.well-known/oauth-protected-resource/<path>` (not when the server is at the root), then
 * `/.well-known/oauth-protected-resource`.
 */
export function protectedResourceMetadataUrls(serverUrl: URL, challenge?: BearerChallenge): URL[] {
  const urls: URL[] = [];
  if (challenge?.resourceMetadata !== undefined) urls.push(new URL(challenge.resourceMetadata, serverUrl));
  const path = serverUrl.pathname.replace(/\/+$/, "");
  if (path !== "") urls.push(new URL(`/.well-known/oauth-protected-resource${path}`, serverUrl.origin));
  urls.push(new URL("/.well-known/oauth-protected-resource", serverUrl.origin));
  return urls;
}

/**
 * Finds and validates the Protected Resource Metadata of the MCP server at `serverUrl`.
 *
 * A document is accepted when its `resource` equals `serverUrl`, or names the same origin with a path
 * that is a segment prefix of `serverUrl`'s (a server-wide identifier, as a root document has); any
 * other `resource` is refused with code `resource_mismatch` and discovery stops. Documents that
 * cannot be fetched (non-200) are skipped; when none is found, rejects with code `resource_metadata`.
 */
export async function discoverProtectedResource(
  serverUrl: URL,
  options: DiscoverProtectedResourceOptions,
): Promise<ProtectedResource> {
  const failures: string[] = [];
  for (const url of protectedResourceMetadataUrls(serverUrl, options.challenge)) {
    const response = await getJson(options.fetch, url, options.signal);
    if (response.status !== 200) {
      failures.push(`${url.href} answered ${response.status}`);
      await discardBody(response);
      continue;
    }
    let metadata: oauth.ResourceServer;
    try {
      metadata = await oauth.processResourceDiscoveryResponse(serverUrl, response);
    } catch (error) {
      const body = mismatchedBody(error);
      if (body === undefined) {
        throw new AuthError(
          "resource_metadata",
          `The Protected Resource Metadata at ${url.href} is invalid: ${(error as Error).message}`,
          { cause: error },
        );
      }
      if (!coversServer(body.resource, serverUrl)) {
        throw new AuthError(
          "resource_mismatch",
          `The Protected Resource Metadata at ${url.href} is for resource ${
            JSON.stringify(body.resource)
          }, not for ${serverUrl.href}`,
          { cause: error },
        );
      }
      metadata = body;
    }
    const servers = metadata.authorization_servers;
    if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === "string")) {
      throw new AuthError(
        "resource_metadata",
        `The Protected Resource Metadata at ${url.href} lists no authorization_servers`,
      );
    }
    return { metadata, resource: metadata.resource, authorizationServers: servers, metadataUrl: url.href };
  }
  throw new AuthError(
    "resource_metadata",
    `No Protected Resource Metadata found for ${serverUrl.href} (${failures.join("; ")})`,
  );
}

/** The parsed body of a document whose `resource` differed from the expected value, if that was the error. */
function mismatchedBody(error: unknown): oauth.ResourceServer | undefined {
  if (!(error instanceof oauth.OperationProcessingError) || error.code !== oauth.JSON_ATTRIBUTE_COMPARISON) {
    return undefined;
  }
  const cause = error.cause as { body?: oauth.ResourceServer } | undefined;
  return typeof cause?.body?.resource === "string" ? cause.body : undefined;
}

/** True when `resource` is `serverUrl`'s origin with a path that is a segment prefix of its path. */
function coversServer(resource: string, serverUrl: URL): boolean {
  let parsed: URL;
  try {
    parsed = new URL(resource);
  } catch {
    return false;
  }
  if (parsed.origin !== serverUrl.origin || parsed.hash !== "" || parsed.search !== "") return false;
  const prefix = parsed.pathname.replace(/\/+$/, "");
  const path = serverUrl.pathname;
  return prefix === "" || path === prefix || path.startsWith(`${prefix}/`);
}
