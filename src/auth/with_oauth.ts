/**
 * `withOAuth(fetch, oauth)`: a `fetch` that authorizes itself, for the HTTP client transport's `fetch` option.
 * @module
 */
import { canonicalServerUrl, discardBody, type FetchLike } from "./fetch_like.ts";
import { OAuthClient, type OAuthClientOptions } from "./oauth_client.ts";
import { parseBearerChallenge, parseDPoPChallenge } from "./www_authenticate.ts";

/** The fetch {@linkcode withOAuth} returns; `oauth` is the client it drives (for `finishAuthorization`). */
export interface OAuthFetch extends FetchLike {
  readonly oauth: OAuthClient;
}

/**
 * Wraps `fetch` so every request carries `Authorization: Bearer <token>` for its server (tokens are
 * keyed by the request URL without fragment), or `Authorization: DPoP <token>` with a fresh `DPoP`
 * proof when the token is DPoP-bound (see `OAuthClientOptions.dpop`), and so that:
 * - a 401 runs the authorization (discovery, registration, PKCE, token) and sends the request again, once;
 * - a 403 whose challenge says `error="insufficient_scope"` re-authorizes with the union of the
 *   previous and the challenged scopes (step-up) and sends the request again;
 * - after `maxAuthorizations` (default 3) authorizations without a successful response in between,
 *   the request rejects with {@linkcode AuthError} code `unauthorized`, so a server that never accepts
 *   cannot loop the client.
 * An expired token is refreshed before sending. A request body is buffered so it can be sent again.
 * Without a token for the server, the request goes out with the caller's own headers unchanged.
 * Without an `oauth.fetch`, the same `fetch` serves the OAuth requests.
 *
 * @example
 * ```ts
 * declare const url: string, redirectUri: string, loopback: { waitForCallback(url: URL): Promise<URL> };
 * const authFetch = withOAuth(fetch, { redirectUri, redirectTo: (url) => loopback.waitForCallback(url) });
 * const transport = httpTransport(url, { fetch: authFetch });
 * ```
 */
export function withOAuth(fetch: FetchLike, oauth: OAuthClient | OAuthClientOptions): OAuthFetch {
  const client = oauth instanceof OAuthClient ? oauth : new OAuthClient({ fetch, ...oauth });
  const authFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = await replayable(input, init);
    const serverUrl = canonicalServerUrl(request.url);
    let authorizedHere = false;
    for (;;) {
      const response = await client.sendAuthorized(
        request.url,
        request.method,
        (headers) => fetch(...request.attempt(headers)),
      );
      const header = response.headers.get("www-authenticate");
      const challenge = response.status === 401 || response.status === 403
        ? parseBearerChallenge(header) ?? parseDPoPChallenge(header)
        : undefined;
      const stepUp = response.status === 403 && challenge?.error === "insufficient_scope";
      if (response.status === 401 && !authorizedHere) {
        await discardBody(response);
        await client.authorize(serverUrl, { challenge, signal: init?.signal ?? undefined });
        authorizedHere = true;
        continue;
      }
      if (stepUp) {
        await discardBody(response);
        await client.authorize(serverUrl, { challenge, stepUp: true, signal: init?.signal ?? undefined });
        authorizedHere = true;
        continue;
      }
      if (response.status !== 401 && response.status !== 403) client.succeeded(serverUrl);
      return response;
    }
  };
  return Object.assign(authFetch, { oauth: client });
}

interface Replayable {
  url: string;
  method: string;
  /** The request with `headers` (authorization, DPoP proof) set over the caller's own. */
  attempt(headers: Record<string, string>): [string | URL | Request, RequestInit | undefined];
}

/** Makes a request sendable more than once: a Request is cloned per attempt, a stream body is buffered. */
async function replayable(input: string | URL | Request, init: RequestInit | undefined): Promise<Replayable> {
  if (input instanceof Request && init === undefined) {
    const original = input.clone();
    return {
      url: input.url,
      method: input.method,
      attempt(extra) {
        const copy = original.clone();
        if (Object.keys(extra).length === 0) return [copy, undefined];
        const headers = new Headers(copy.headers);
        for (const [name, value] of Object.entries(extra)) headers.set(name, value);
        return [new Request(copy, { headers }), undefined];
      },
    };
  }
  if (input instanceof Request) {
    return replayable(new Request(input, init), undefined);
  }
  let body = init?.body;
  if (body instanceof ReadableStream) body = new Uint8Array(await new Response(body).arrayBuffer());
  const base: RequestInit = { ...init };
  if (body !== undefined) base.body = body;
  return {
    url: new URL(input).href,
    method: (init?.method ?? "GET").toUpperCase(),
    attempt(extra) {
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(extra)) headers.set(name, value);
      return [input, { ...base, headers }];
    },
  };
}
