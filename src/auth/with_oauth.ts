/**
 * `withOAuth(fetch, oauth)`: a `fetch` that authorizes itself, for the HTTP client transport's `fetch` option.
 * @module
 */
import { canonicalServerUrl, discardBody, type FetchLike } from "./fetch_like.ts";
import { OAuthClient, type OAuthClientOptions } from "./oauth_client.ts";
import { parseBearerChallenge } from "./www_authenticate.ts";

/** The fetch {@linkcode withOAuth} returns; `oauth` is the client it drives (for `finishAuthorization`). */
export interface OAuthFetch extends FetchLike {
  readonly oauth: OAuthClient;
}

/**
 * Wraps `fetch` so every request carries `Authorization: Bearer <token>` for its server (tokens are
 * keyed by the request URL without fragment), and so that:
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
 * const authFetch = withOAuth(fetch, { redirectUri, redirectTo: (url) => loopback.waitForCallback(url) });
 * const transport = new HttpClientTransport(url, { fetch: authFetch });
 * ```
 */
export function withOAuth(fetch: FetchLike, oauth: OAuthClient | OAuthClientOptions): OAuthFetch {
  const client = oauth instanceof OAuthClient ? oauth : new OAuthClient({ fetch, ...oauth });
  const authFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = await replayable(input, init);
    const serverUrl = canonicalServerUrl(request.url);
    let authorizedHere = false;
    for (;;) {
      const header = await client.authorizationHeader(serverUrl);
      const response = await fetch(...request.attempt(header));
      const challenge = response.status === 401 || response.status === 403
        ? parseBearerChallenge(response.headers.get("www-authenticate"))
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
  attempt(authorization: string | undefined): [string | URL | Request, RequestInit | undefined];
}

/** Makes a request sendable more than once: a Request is cloned per attempt, a stream body is buffered. */
async function replayable(input: string | URL | Request, init: RequestInit | undefined): Promise<Replayable> {
  if (input instanceof Request && init === undefined) {
    const original = input.clone();
    return {
      url: input.url,
      attempt(authorization) {
        const copy = original.clone();
        if (authorization === undefined) return [copy, undefined];
        const headers = new Headers(copy.headers);
        headers.set("authorization", authorization);
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
    attempt(authorization) {
      const headers = new Headers(init?.headers);
      if (authorization !== undefined) headers.set("authorization", authorization);
      return [input, { ...base, headers }];
    },
  };
}
