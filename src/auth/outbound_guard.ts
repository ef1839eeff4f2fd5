/**
 * `OutboundGuard`: what the OAuth client may fetch. Discovery follows URLs a server chose (the
 * challenge's `resource_metadata`, the authorization servers it lists, their endpoints and `jwks_uri`),
 * so without a guard a hostile MCP server points the client at `http://169.254.169.254/…` or a
 * printer on the LAN and reads the status codes back from the errors (SSRF).
 * @module
 */
import { integerOption } from "../stream/options.ts";
import { AuthError } from "./errors.ts";
import { discardBody, type FetchLike, isLoopbackHost } from "./fetch_like.ts";

/** Options of {@linkcode OutboundGuard} (the `outbound` option of `OAuthClient`). */
export interface OutboundGuardOptions {
  /**
   * Allow IP-literal targets in private, link-local, shared (CGNAT), unique-local, multicast and
   * unspecified ranges (`10.0.0.0/8`, `169.254.0.0/16`, `fc00::/7`, …). Default `false`. Loopback is
   * always allowed. Host names are not resolved (web APIs cannot): a name that resolves to such an
   * address is the resolver's business.
   * @default false
   */
  allowPrivateNetworks?: boolean;
  /**
   * Redirects followed for a GET (each hop checked like the first); a POST is never redirected. Default 3.
   * @default 3
   */
  maxRedirects?: number;
  /**
   * Longest response body read, in bytes; a longer one fails with `AuthError`. Default 1 MiB.
   * @default 1 MiB
   */
  maxResponseBytes?: number;
}

/** The default {@linkcode OutboundGuardOptions.maxRedirects}. */
export const DEFAULT_MAX_REDIRECTS = 3;
/** The default {@linkcode OutboundGuardOptions.maxResponseBytes}. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * Wraps a fetch so it reaches only allowed URLs: `https:`, or `http:` to a loopback host (or to any
 * host when `insecure` says so); never a private or link-local IP literal unless allowed; origins
 * the user chose (the MCP server's, through {@linkcode OutboundGuard.trust}) always. Redirects are
 * followed by the guard itself, bounded and checked hop by hop; bodies are capped.
 *
 * @example
 * ```ts ignore (OutboundGuard is internal: OAuthClient's `outbound` option configures it)
 * const guard = new OutboundGuard(fetch, () => false, { maxRedirects: 1 });
 * await guard.fetch("http://169.254.169.254/latest"); // rejects: AuthError "outbound_refused"
 * ```
 */
export class OutboundGuard {
  readonly #inner: FetchLike;
  readonly #insecure: (url: URL) => boolean;
  readonly #private: boolean;
  readonly #maxRedirects: number;
  readonly #maxBytes: number;
  readonly #trusted = new Set<string>();

  /** `insecure(url)`: whether plain HTTP to this non-loopback URL is allowed (`allowInsecureRequests`). */
  constructor(inner: FetchLike, insecure: (url: URL) => boolean, options: OutboundGuardOptions = {}) {
    this.#inner = inner;
    this.#insecure = insecure;
    this.#private = options.allowPrivateNetworks === true;
    this.#maxRedirects = integerOption("maxRedirects", options.maxRedirects, DEFAULT_MAX_REDIRECTS, 0);
    this.#maxBytes = integerOption(
      "maxResponseBytes",
      options.maxResponseBytes,
      DEFAULT_MAX_RESPONSE_BYTES,
      1,
    );
  }

  /** Allows every URL of `origin` (the MCP server the user asked for). */
  trust(origin: string): void {
    this.#trusted.add(origin);
  }

  /** Why `url` may not be fetched, or `undefined` when it may. */
  refusal(url: URL): string | undefined {
    if (this.#trusted.has(url.origin)) return undefined;
    const host = url.hostname;
    if (url.protocol !== "https:" && url.protocol !== "http:") return `${url.protocol} is not HTTP(S)`;
    if (isLoopbackHost(host)) return undefined;
    if (url.protocol === "http:" && !this.#insecure(url)) {
      return "plain HTTP is allowed to loopback hosts only";
    }
    if (!this.#private && isPrivateAddress(host)) {
      return "it is a private, link-local or otherwise internal address (allowPrivateNetworks)";
    }
    return undefined;
  }

  /** The guarded fetch. Rejects with `AuthError` code `outbound_refused` for a URL the guard refuses. */
  readonly fetch: FetchLike = async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    for (let hop = 0;; hop++) {
      const refused = this.refusal(url);
      if (refused !== undefined) {
        throw new AuthError("outbound_refused", `Refused to fetch ${quoteUrl(url)}: ${refused}`);
      }
      const response = await this.#inner(hop === 0 ? input : url.href, { ...init, redirect: "manual" });
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null || (method !== "GET" && method !== "HEAD")) {
        return capBody(response, this.#maxBytes, url);
      }
      await discardBody(response);
      if (hop >= this.#maxRedirects) {
        throw new AuthError(
          "outbound_refused",
          `${quoteUrl(url)} redirects more than maxRedirects (${this.#maxRedirects}) times`,
        );
      }
      url = new URL(location, url);
    }
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function quoteUrl(url: URL): string {
  const text = url.href;
  return text.length <= 200 ? text : `${text.slice(0, 200)}… (${text.length} characters)`;
}

/** `response` whose body errors with `AuthError` once more than `limit` bytes came. */
function capBody(response: Response, limit: number, url: URL): Response {
  if (response.body === null) return response;
  const declared = Number(response.headers.get("content-length"));
  let seen = 0;
  const tooLarge = () =>
    new AuthError(
      "outbound_refused",
      `The response of ${quoteUrl(url)} is longer than maxResponseBytes (${limit})`,
    );
  if (declared > limit) {
    void response.body.cancel().catch(() => {});
    return new Response(
      new ReadableStream({
        start: (controller) => controller.error(tooLarge()),
      }),
      { status: response.status, statusText: response.statusText, headers: response.headers },
    );
  }
  const capped = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(capped, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** True for an IP literal in a private, link-local, shared, unique-local, multicast or unspecified range. */
export function isPrivateAddress(hostname: string): boolean {
  const name = hostname.startsWith("[") ? hostname.slice(1, -1).toLowerCase() : hostname.toLowerCase();
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  if (v4 !== null) return isPrivateV4(v4.slice(1).map(Number));
  if (!name.includes(":")) return false; // a host name: not resolved here
  const mapped = /^::ffff:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  if (mapped !== null) return isPrivateV4(mapped.slice(1).map(Number));
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(name);
  if (hexMapped !== null) {
    const high = parseInt(hexMapped[1]!, 16);
    const low = parseInt(hexMapped[2]!, 16);
    return isPrivateV4([high >> 8, high & 255, low >> 8, low & 255]);
  }
  if (name === "::") return true;
  const first = parseInt(name.split(":")[0] || "0", 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00;
}

function isPrivateV4([a, b]: number[]): boolean {
  return a === 0 || a === 10 || (a === 100 && b! >= 64 && b! <= 127) || (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168) || a! >= 224;
}
