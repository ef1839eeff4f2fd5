/**
 * CORS for the MCP endpoint, so browser clients on other origins can call it: preflight answers and
 * the headers of actual responses, allowing and exposing every `Mcp-*` header.
 * @module
 */
import type { RequestParts } from "./request_parts.ts";

/** Request headers always allowed: the MCP ones and those a JSON-RPC POST needs. */
export const CORS_ALLOWED_HEADERS: readonly string[] = [
  "Content-Type",
  "Accept",
  "Authorization",
  "MCP-Protocol-Version",
  "Mcp-Session-Id",
  "Mcp-Method",
  "Mcp-Name",
  "Last-Event-ID",
];

/** Response headers always exposed (plus every `Mcp-*` header a response carries). */
export const CORS_EXPOSED_HEADERS: readonly string[] = [
  "MCP-Protocol-Version",
  "Mcp-Session-Id",
  "Last-Event-ID",
  "WWW-Authenticate",
];

/**
 * A handler property: `(request, response) => Response` adds the handler's CORS headers to a
 * response made in front of it (`requireBearer`'s 401 and 403), so a browser client the handler's
 * policy allows can read them. `createHttpHandler`'s handlers have it.
 */
export const APPLY_CORS: unique symbol = Symbol.for("onemodelcontext.http.applyCors");

/** The {@linkcode APPLY_CORS} property's shape. */
export type ApplyCors = (request: RequestParts, response: Response) => Response;

/** Options of {@linkcode CorsPolicy}. */
export interface CorsPolicyOptions {
  /**
   * Origins allowed to call, or `"*"` for any. Default `"*"`.
   * @default "*"
   */
  origins?: readonly string[] | "*";
  /**
   * Send `Access-Control-Allow-Credentials: true` (the origin is then echoed, never `*`). Default false.
   * @default false
   */
  credentials?: boolean;
  /**
   * Methods allowed. Default `["GET", "POST", "DELETE", "OPTIONS"]`.
   * @default ["GET", "POST", "DELETE", "OPTIONS"]
   */
  methods?: readonly string[];
  /**
   * Extra request headers allowed. Default none.
   * @default none
   */
  allowHeaders?: readonly string[];
  /**
   * Extra response headers exposed. Default none.
   * @default none
   */
  exposeHeaders?: readonly string[];
  /**
   * `Access-Control-Max-Age` of preflight answers, in seconds. Default 600.
   * @default 600
   */
  maxAgeSeconds?: number;
}

/**
 * Answers preflights and decorates responses. Every request header named `Mcp-*` is allowed
 * (`Mcp-Param-*` names are open-ended, so a preflight's `Access-Control-Request-Headers` is checked
 * name by name), and every `Mcp-*` response header is exposed along with
 * {@linkcode CORS_EXPOSED_HEADERS}.
 *
 * @example
 * ```ts
 * declare const handler: (request: Request) => Promise<Response>;
 * const cors = new CorsPolicy({ origins: ["https://app.example.com"] });
 * async function withCors(request: Request): Promise<Response> {
 *   const preflight = cors.preflight(request);
 *   if (preflight) return preflight;
 *   return cors.apply(request, await handler(request));
 * }
 * ```
 */
export class CorsPolicy {
  readonly #origins: ReadonlySet<string> | "*";
  readonly #credentials: boolean;
  readonly #methods: string;
  readonly #allowed: ReadonlySet<string>;
  readonly #exposed: readonly string[];
  readonly #maxAge: string;

  constructor(options: CorsPolicyOptions = {}) {
    this.#origins = options.origins === undefined || options.origins === "*"
      ? "*"
      : new Set(options.origins.map((o) => o.toLowerCase()));
    this.#credentials = options.credentials ?? false;
    this.#methods = (options.methods ?? ["GET", "POST", "DELETE", "OPTIONS"]).join(", ");
    this.#allowed = new Set(
      [...CORS_ALLOWED_HEADERS, ...(options.allowHeaders ?? [])].map((h) => h.toLowerCase()),
    );
    this.#exposed = [...CORS_EXPOSED_HEADERS, ...(options.exposeHeaders ?? [])];
    this.#maxAge = String(options.maxAgeSeconds ?? 600);
  }

  /** True when `origin` may call. */
  allowsOrigin(origin: string): boolean {
    return this.#origins === "*" || this.#origins.has(origin.toLowerCase());
  }

  /** True when request header `name` is allowed: an `Mcp-*` header, a listed one, or a CORS-safelisted one. */
  allowsHeader(name: string): boolean {
    const lower = name.trim().toLowerCase();
    return lower.startsWith("mcp-") || this.#allowed.has(lower) || lower === "accept-language" ||
      lower === "content-language";
  }

  /**
   * The answer to a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`), or `undefined`
   * for any other request. An allowed preflight gets 204 with the allow headers; a refused one
   * (origin, method or a header not allowed) gets 204 without them, so the browser blocks the call.
   */
  preflight(request: RequestParts): Response | undefined {
    const method = request.headers.get("access-control-request-method");
    if (request.method !== "OPTIONS" || method === null) return undefined;
    const origin = request.headers.get("origin");
    const headers = new Headers({
      Vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
    });
    const requested = (request.headers.get("access-control-request-headers") ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h.length > 0);
    const methodOk = this.#methods.split(", ").includes(method.toUpperCase());
    if (
      origin !== null && this.allowsOrigin(origin) && methodOk && requested.every((h) => this.allowsHeader(h))
    ) {
      this.#setOrigin(headers, origin);
      headers.set("Access-Control-Allow-Methods", this.#methods);
      if (requested.length > 0) headers.set("Access-Control-Allow-Headers", requested.join(", "));
      headers.set("Access-Control-Max-Age", this.#maxAge);
    }
    return new Response(null, { status: 204, headers });
  }

  /**
   * `response` with `Access-Control-Allow-Origin` (and credentials) and `Access-Control-Expose-Headers`
   * listing every `Mcp-*` header it carries, when the request came from an allowed origin; unchanged
   * otherwise. The body is passed through, not read.
   */
  apply(request: RequestParts, response: Response): Response {
    const origin = request.headers.get("origin");
    if (origin === null || !this.allowsOrigin(origin)) return response;
    const headers = new Headers(response.headers);
    this.#setOrigin(headers, origin);
    const exposed = new Set(this.#exposed);
    for (const [name] of headers) if (name.startsWith("mcp-")) exposed.add(name);
    headers.set("Access-Control-Expose-Headers", [...exposed].join(", "));
    headers.append("Vary", "Origin");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }

  #setOrigin(headers: Headers, origin: string): void {
    headers.set("Access-Control-Allow-Origin", this.#origins === "*" && !this.#credentials ? "*" : origin);
    if (this.#credentials) headers.set("Access-Control-Allow-Credentials", "true");
  }
}
