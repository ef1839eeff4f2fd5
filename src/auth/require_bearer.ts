/**
 * Bearer-token protection for a fetch handler: the MCP server as an OAuth 2.1 resource server.
 * @module
 */
import { httpError } from "../http/http_errors.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../http/server/read_json_body.ts";
import { REQUEST_PRINCIPAL } from "../http/server/request_parts.ts";
import { APPLY_CORS, type ApplyCors } from "../http/server/cors_policy.ts";
import { concatBytes } from "../stream/concat_bytes.ts";
import { integerOption } from "../stream/options.ts";
import { type BearerChallengeParams, formatBearerChallenge } from "./www_authenticate.ts";
import { DPoPVerifier, type DPoPVerifierOptions } from "./dpop_verifier.ts";

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
  /**
   * The JWK SHA-256 thumbprint of the DPoP key the token is bound to (RFC 9449 §6); default: the
   * claim `cnf.jkt`. A bound token is accepted only with a proof by that key.
   */
  jkt?: string;
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
   * @default 4 MiB
   */
  maxBodyBytes?: number;
  /**
   * DPoP (RFC 9449): accept `Authorization: DPoP <token>` with a proof, checked by a
   * {@linkcode DPoPVerifier} (pass one to share its replay cache between handlers), and refuse a
   * DPoP-bound token sent as Bearer. `true` for the defaults. Default off.
   */
  dpop?: boolean | DPoPVerifierOptions | DPoPVerifier;
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
 * @example
 * ```ts
 * declare const server: ContextServer, jwksUrl: string, issuer: string;
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
  const dpop = options.dpop === undefined || options.dpop === false
    ? undefined
    : options.dpop instanceof DPoPVerifier
    ? options.dpop
    : new DPoPVerifier(options.dpop === true ? {} : options.dpop);
  /** The challenges of a 401/403: Bearer (unless DPoP is required) and DPoP (when on); `scheme` gets the error. */
  const refusal = (
    status: 401 | 403,
    params: BearerChallengeParams,
    message: string,
    scheme: "Bearer" | "DPoP" = "Bearer",
    nonce?: string,
  ): Response => {
    const common = { scope: params.scope, resourceMetadata: params.resourceMetadata };
    const bearer = scheme === "Bearer" ? params : common;
    const dpopParams = scheme === "DPoP" ? params : common;
    const challenges: BearerChallengeParams[] = [];
    if (dpop === undefined || !dpop.required) challenges.push({ ...bearer, scheme: "Bearer" });
    if (dpop !== undefined) {
      challenges.push({ ...dpopParams, scheme: "DPoP", algs: dpop.algorithms.join(" ") });
    }
    return challenge(status, params, message, challenges, nonce);
  };

  // The wrapped handler's CORS policy (createHttpHandler's `cors`) covers the answers made here too:
  // a browser client it allows must be able to read the 401's WWW-Authenticate.
  const applyCors = (handler as { [APPLY_CORS]?: ApplyCors })[APPLY_CORS];
  const own = (request: Request, response: Response): Response =>
    applyCors === undefined ? response : applyCors(request, response);
  const wrapper = async (request: Request): Promise<Response> => {
    // Every refusal carries the wrapped handler's CORS headers, so a browser client can read it.
    const refuse = (...args: Parameters<typeof refusal>): Response => own(request, refusal(...args));
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
    const credentials = parseAuthorization(request.headers.get("authorization"));
    if (credentials === undefined || (credentials.scheme === "DPoP" && dpop === undefined)) {
      return refuse(401, { scope: challengeScope, resourceMetadata: metadataUrl }, "Authorization required");
    }
    const { scheme, token } = credentials;
    const invalidToken = (description: string) =>
      refuse(
        401,
        {
          error: "invalid_token",
          errorDescription: description,
          scope: challengeScope,
          resourceMetadata: metadataUrl,
        },
        "Invalid access token",
        dpop === undefined ? "Bearer" : "DPoP",
      );
    if (scheme === "Bearer" && dpop?.required) {
      return invalidToken("This resource accepts DPoP-bound tokens only");
    }
    let proofJkt: string | undefined;
    if (scheme === "DPoP") {
      const proof = await dpop!.verify(request, token);
      if ("error" in proof) {
        const nonce = proof.error === "use_dpop_nonce" ? dpop!.currentNonce() : undefined;
        return refuse(
          401,
          {
            error: proof.error,
            errorDescription: proof.description,
            resourceMetadata: metadataUrl,
          },
          proof.description,
          "DPoP",
          nonce,
        );
      }
      proofJkt = proof.jkt;
    }
    const info = await options.verify(token, request);
    if (info === undefined) return invalidToken("The access token is invalid or expired");
    const boundTo = info.jkt ?? confirmationOf(info.claims);
    if (dpop !== undefined && boundTo !== undefined && scheme === "Bearer") {
      return invalidToken("The access token is DPoP-bound: send it with the DPoP scheme and a proof");
    }
    if (scheme === "DPoP" && boundTo !== proofJkt) {
      return invalidToken(
        boundTo === undefined
          ? "The access token is not DPoP-bound"
          : "The access token is bound to another key than the DPoP proof's",
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
      return refuse(
        403,
        {
          error: "insufficient_scope",
          errorDescription: `This request needs scope ${JSON.stringify(needed.join(" "))}`,
          scope: needed.join(" "),
          resourceMetadata: metadataUrl,
        },
        "Insufficient scope",
        scheme,
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

function parseAuthorization(header: string | null): { scheme: "Bearer" | "DPoP"; token: string } | undefined {
  if (header === null) return undefined;
  const match = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (match === null) return undefined;
  return { scheme: match[1]!.toLowerCase() === "dpop" ? "DPoP" : "Bearer", token: match[2]! };
}

/** `cnf.jkt` of a token's claims (RFC 9449 §6.1). */
function confirmationOf(claims: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const cnf = claims?.cnf;
  if (typeof cnf !== "object" || cnf === null) return undefined;
  const jkt = (cnf as { jkt?: unknown }).jkt;
  return typeof jkt === "string" ? jkt : undefined;
}

function challenge(
  status: 401 | 403,
  params: BearerChallengeParams,
  message: string,
  challenges: BearerChallengeParams[],
  nonce?: string,
): Response {
  const error = params.error ?? "invalid_request";
  const headers: Record<string, string> = {
    "www-authenticate": challenges.map(formatBearerChallenge).join(", "),
    "access-control-expose-headers": nonce === undefined
      ? "WWW-Authenticate"
      : "WWW-Authenticate, DPoP-Nonce",
  };
  if (nonce !== undefined) headers["dpop-nonce"] = nonce;
  return Response.json({ error, error_description: params.errorDescription ?? message }, { status, headers });
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
