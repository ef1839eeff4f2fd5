/**
 * Bearer-token protection for a fetch handler: the MCP server as an OAuth 2.1 resource server.
 * @module
 */
import { httpError } from "../http/http_errors.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../http/read_json_body.ts";
import { REQUEST_PRINCIPAL } from "../http/request_parts.ts";
import { APPLY_CORS, type ApplyCors } from "../http/cors_policy.ts";
import { concatBytes } from "../stream/concat_bytes.ts";
import { integerOption } from "../stream/options.ts";
import { formatBearerChallenge } from "./www_authenticate.ts";

/** What a verifier learned from a valid access token. */
export interface AccessTokenInfo {
  /** The scopes the token grants. */
  scopes: readonly string[];
  /** The resource owner (`sub`). */
  subject?: string;
  clientId?: string;
  /** Expiry, seconds since the epoch (informational: the verifier must refuse expired tokens). */
  expiresAt?: number;
  /** Every claim, for JWTs. */
  claims?: Readonly<Record<string, unknown>>;
}

/**
 * Checks an access token: returns what it grants, or undefined when it is invalid, expired, or not
 * issued for this server (its audience must be this resource, RFC 8707). May throw: the request then
 * fails with 500 and the error reaches the handler's caller, never a 200.
 */
export type TokenVerifier = (
  token: string,
  request: Request,
) => AccessTokenInfo | undefined | Promise<AccessTokenInfo | undefined>;

/** One JSON-RPC call, as {@linkcode RequireBearerOptions.scopesFor} sees it. */
export interface ScopedCall {
  method: string;
  /** `params.name` (tools/call, prompts/get) or `params.uri` (resources/read). */
  name?: string;
}

/** The Protected Resource Metadata document (RFC 9728 §2); other members are passed through. */
export interface ProtectedResourceMetadata {
  /** The server's canonical URL (RFC 8707), e.g. `https://mcp.example.com/mcp`. */
  resource: string;
  /** At least one authorization server issuer. */
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  resource_name?: string;
  [member: string]: unknown;
}

/** Options of {@linkcode requireBearer}. */
export interface RequireBearerOptions {
  /** Validates a token; see {@linkcode TokenVerifier}. */
  verify: TokenVerifier;
  /**
   * The Protected Resource Metadata: served without a token at `resourceMetadataUrl`'s path (GET,
   * `Access-Control-Allow-Origin: *`). Leave it out when another route serves the document.
   */
  metadata?: ProtectedResourceMetadata;
  /**
   * The URL of the metadata document, put in every challenge. Default, with `metadata`:
   * `<origin>/.well-known/oauth-protected-resource<path of metadata.resource>`.
   */
  resourceMetadataUrl?: string;
  /** Scopes every request needs. Default none. */
  scopes?: readonly string[];
  /**
   * More scopes for one call (per-tool requirements): called with each JSON-RPC request of a POST
   * body. A token lacking any of them gets 403 `insufficient_scope` naming every scope the call needs.
   */
  scopesFor?: (call: ScopedCall) => readonly string[] | undefined;
  /**
   * Cap on the body read for `scopesFor`; a larger body is answered 413 here, so keep it at or below
   * the handler's own cap. Default 4 MiB.
   */
  maxBodyBytes?: number;
}

/** A fetch handler. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** The shutdown and gauge members of a handler (`createHttpHandler`'s) that a wrapper forwards. */
const FORWARDED = ["drain", "close", "closed", "sessionCount", "streamCount"] as const;

/** What {@linkcode requireBearer} returns: a fetch handler with the wrapped handler's `drain`, `close`, `closed` and gauges. */
export type BearerHandler<H extends FetchHandler> =
  & ((request: Request) => Promise<Response>)
  & Pick<H, Extract<keyof H, (typeof FORWARDED)[number]>>;

const authInfo = new WeakMap<Request, AccessTokenInfo>();

/** The token information {@linkcode requireBearer} attached to `request`, for the handler behind it. */
export function getAuthInfo(request: Request): AccessTokenInfo | undefined {
  return authInfo.get(request);
}

/**
 * Puts a bearer-token check in front of `handler`:
 * - no `Authorization: Bearer` → 401 with `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`;
 * - a token the verifier refuses → 401 with `error="invalid_token"`;
 * - a token without the required scopes (`scopes`, plus `scopesFor` of the calls in the body) → 403
 *   with `error="insufficient_scope"` and `scope` naming every scope needed;
 * - otherwise the handler runs, and {@linkcode getAuthInfo} returns the token's information.
 * Tokens in the query string are never read. With `metadata`, the metadata document is served too.
 * `OPTIONS` requests (CORS preflights) go to the handler unchecked.
 *
 * @example
 * ```ts
 * const handler = requireBearer(createHttpHandler(server), {
 *   verify: jwtVerifier({ jwksUrl, issuer, audience: "https://mcp.example.com/mcp" }),
 *   metadata: { resource: "https://mcp.example.com/mcp", authorization_servers: [issuer], scopes_supported: ["mcp"] },
 *   scopes: ["mcp"],
 * });
 * ```
 */
export function requireBearer<H extends FetchHandler>(
  handler: H,
  options: RequireBearerOptions,
): BearerHandler<H> {
  const metadataUrl = options.resourceMetadataUrl ??
    (options.metadata === undefined ? undefined : defaultMetadataUrl(options.metadata.resource));
  const metadataPath = metadataUrl === undefined ? undefined : new URL(metadataUrl).pathname;
  const baseScopes = [...(options.scopes ?? [])];
  const maxBodyBytes = integerOption("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 1);
  const challengeScope = baseScopes.length === 0
    ? options.metadata?.scopes_supported?.join(" ")
    : baseScopes.join(" ");

  // The wrapped handler's CORS policy (createHttpHandler's `cors`) covers the answers made here too:
  // a browser client it allows must be able to read the 401's WWW-Authenticate.
  const applyCors = (handler as { [APPLY_CORS]?: ApplyCors })[APPLY_CORS];
  const own = (request: Request, response: Response): Response =>
    applyCors === undefined ? response : applyCors(request, response);
  const wrapper = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (options.metadata !== undefined && metadataPath !== undefined && url.pathname === metadataPath) {
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: metadataCors() });
      if (request.method !== "GET" && request.method !== "HEAD") {
        return new Response(null, { status: 405, headers: { allow: "GET, HEAD, OPTIONS" } });
      }
      return Response.json(options.metadata, {
        headers: { ...metadataCors(), "cache-control": "max-age=3600" },
      });
    }
    if (request.method === "OPTIONS") return handler(request); // CORS preflights carry no credentials
    const token = bearerToken(request.headers.get("authorization"));
    if (token === undefined) {
      return own(
        request,
        challenge(
          401,
          { scope: challengeScope, resourceMetadata: metadataUrl },
          "Authorization required",
        ),
      );
    }
    const info = await options.verify(token, request);
    if (info === undefined) {
      return own(
        request,
        challenge(401, {
          error: "invalid_token",
          errorDescription: "The access token is invalid or expired",
          scope: challengeScope,
          resourceMetadata: metadataUrl,
        }, "Invalid access token"),
      );
    }
    let needed = baseScopes;
    let forwarded = request;
    if (options.scopesFor !== undefined && request.method === "POST" && request.body !== null) {
      const bytes = await readCapped(request, maxBodyBytes);
      if (bytes === undefined) {
        return own(
          request,
          httpError("payloadTooLarge", undefined, {
            message: `The request body exceeds maxBodyBytes (${maxBodyBytes} bytes)`,
            headers: { Connection: "close" },
          }),
        );
      }
      const extra = callsIn(bytes).flatMap((call) => [...(options.scopesFor?.(call) ?? [])]);
      if (extra.length > 0) needed = [...new Set([...baseScopes, ...extra])];
      forwarded = new Request(request, { body: bytes });
    }
    const granted = new Set(info.scopes);
    if (!needed.every((scope) => granted.has(scope))) {
      return own(
        request,
        challenge(
          403,
          {
            error: "insufficient_scope",
            errorDescription: `This request needs scope ${JSON.stringify(needed.join(" "))}`,
            scope: needed.join(" "),
            resourceMetadata: metadataUrl,
          },
          "Insufficient scope",
        ),
      );
    }
    authInfo.set(forwarded, info);
    const principal = principalFrom(info);
    if (principal !== undefined) {
      Object.defineProperty(forwarded, REQUEST_PRINCIPAL, { value: principal, configurable: true });
    }
    return handler(forwarded);
  };
  // serve() calls drain() and close() on what it is given: they must reach the wrapped handler, or
  // listen streams are cut without their result and legacy sessions never end.
  for (const name of FORWARDED) {
    if (!(name in handler)) continue;
    const inner = handler as unknown as Record<string, unknown>;
    Object.defineProperty(
      wrapper,
      name,
      typeof inner[name] === "function"
        ? { value: (...args: unknown[]) => (inner[name] as (...a: unknown[]) => unknown)(...args) }
        : { get: () => inner[name] },
    );
  }
  return wrapper as BearerHandler<H>;
}

/**
 * Who a token speaks for, as `createHttpHandler` binds state and sessions to it: the `sub`, else the
 * client (`client_credentials` tokens often have no `sub`); `undefined` when the token names neither.
 */
function principalFrom(info: AccessTokenInfo): string | undefined {
  if (typeof info.subject === "string") return `sub:${info.subject}`;
  if (typeof info.clientId === "string") return `client:${info.clientId}`;
  return undefined;
}

/** `<origin>/.well-known/oauth-protected-resource<path>` for a resource identifier (RFC 9728 §3.1). */
export function defaultMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname.replace(/\/+$/, "");
  return new URL(`/.well-known/oauth-protected-resource${path}`, url.origin).href;
}

function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match === null ? undefined : match[1];
}

function challenge(
  status: 401 | 403,
  params: Parameters<typeof formatBearerChallenge>[0],
  message: string,
): Response {
  const error = params.error ?? "invalid_request";
  return Response.json(
    { error, error_description: params.errorDescription ?? message },
    {
      status,
      headers: {
        "www-authenticate": formatBearerChallenge(params),
        "access-control-expose-headers": "WWW-Authenticate",
      },
    },
  );
}

function metadataCors(): Record<string, string> {
  return {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, HEAD, OPTIONS",
    "access-control-allow-headers": "*",
  };
}

/**
 * Reads the whole body, at most `limit` bytes: undefined (and the upload cancelled) when more arrive.
 * The bytes are handed on to the handler as the body of a new request, byte for byte.
 */
async function readCapped(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  if (declared > limit) {
    await reader.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return concatBytes(chunks, total);
}

/** The JSON-RPC requests in a body; none when it is not JSON (the handler then answers the parse error). */
function callsIn(bytes: Uint8Array): ScopedCall[] {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return []; // no call can run from a body that is not JSON
  }
  const calls: ScopedCall[] = [];
  for (const message of Array.isArray(value) ? value : [value]) {
    if (typeof message !== "object" || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: unknown };
    if (typeof method !== "string") continue;
    const call: ScopedCall = { method };
    if (typeof params === "object" && params !== null) {
      const { name, uri } = params as { name?: unknown; uri?: unknown };
      if (typeof name === "string") call.name = name;
      else if (typeof uri === "string") call.name = uri;
    }
    calls.push(call);
  }
  return calls;
}
