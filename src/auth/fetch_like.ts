/**
 * The `fetch` shape the authorization layer takes and returns, and the small request helpers it shares.
 * @module
 */

/** A function with the signature of the global `fetch`. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** True for `localhost`, `::1` and any 127.0.0.0/8 address. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname) ||
    hostname.endsWith(".localhost");
}

/**
 * The canonical URI of an MCP server for a request URL (RFC 8707 §2, MCP "Canonical Server URI"):
 * the URL without its fragment, scheme and host lower-cased (the URL parser does that).
 */
export function canonicalServerUrl(url: string | URL): string {
  const parsed = new URL(url);
  parsed.hash = "";
  return parsed.href;
}

/** GETs a JSON document; the body is left unread for the caller. */
export function getJson(fetch: FetchLike, url: URL, signal?: AbortSignal): Promise<Response> {
  const init: RequestInit = { method: "GET", headers: { accept: "application/json" }, redirect: "manual" };
  if (signal !== undefined) init.signal = signal;
  return fetch(url.href, init);
}

/** Drops an unread body so its connection is released; a failing cancel changes nothing. */
export async function discardBody(response: Response): Promise<void> {
  if (response.body !== null && !response.bodyUsed) await response.body.cancel().catch(() => {});
}
