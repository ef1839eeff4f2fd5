/**
 * `Origin` and `Host` validation against DNS rebinding (both HTTP eras: servers MUST validate
 * `Origin`, and answer 403 when it is present and invalid).
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import { forbidden } from "../http_errors.ts";
import type { RequestParts } from "./request_parts.ts";

/** Options of {@linkcode OriginGuard}. */
export interface OriginGuardOptions {
  /**
   * The address or host name the server listens on. When it is a loopback address (`localhost`,
   * `127.0.0.0/8`, `::1`), only loopback `Host`s and `Origin`s pass unless allow-listed. Any other
   * address (`0.0.0.0`, a LAN address) needs `allowedHosts`, or the guard refuses to be built: a
   * DNS-rebinding page sends an `Origin` equal to its `Host`, so without a host allow-list nothing
   * tells it from a real client. Default none: `Host` is not checked, and an `Origin` must be
   * allow-listed or the request's own origin.
   * @default none
   */
  bindAddress?: string;
  /**
   * Extra `Host` values accepted: `name` (any port) or `name:port`, compared ignoring case. Default none.
   * @default none
   */
  allowedHosts?: readonly string[];
  /**
   * Extra `Origin`s accepted (`https://app.example.com`, `null` for opaque origins), or `"*"` for any. Default none.
   * @default none
   */
  allowedOrigins?: readonly string[] | "*";
}

/**
 * Decides whether a request's `Host` and `Origin` may reach the endpoint.
 *
 * Bound to loopback: `Host` must be a loopback name or allow-listed (a rebinding page reaches the
 * server under its own host name), and an `Origin`, when present, must be a loopback origin or
 * allow-listed. Otherwise: `Host` must be allow-listed when `allowedHosts` is given, and an
 * `Origin` must be allow-listed or equal to the request's own origin. Requests without `Origin`
 * (non-browser clients) pass the origin check.
 *
 * @example
 * ```ts
 * const guard = new OriginGuard({ bindAddress: "127.0.0.1" });
 * function guarded(request: Request, handle: (request: Request) => Response): Response {
 *   const refused = guard.refuse(request); // a 403 Response, or undefined
 *   if (refused) return refused;
 *   return handle(request);
 * }
 * ```
 */
export class OriginGuard {
  readonly #loopback: boolean;
  readonly #hosts: ReadonlySet<string> | undefined;
  readonly #origins: ReadonlySet<string> | "*";
  /** The outcome for the Host/Origin pairs seen lately. */
  readonly #recent = new Map<string, string>();

  /** Throws {@linkcode InvalidOptionError} for a non-loopback `bindAddress` without `allowedHosts`. */
  constructor(options: OriginGuardOptions = {}) {
    this.#loopback = options.bindAddress !== undefined &&
      isLoopbackHostname(stripBrackets(options.bindAddress));
    if (options.bindAddress !== undefined && !this.#loopback && !(options.allowedHosts?.length)) {
      throw new InvalidOptionError(
        `Option bindAddress ${
          JSON.stringify(options.bindAddress)
        } is not a loopback address: give allowedHosts (the host names clients reach this server by, e.g. ["mcp.example.com"]), or a DNS-rebinding page could call the server with its own Host and Origin`,
      );
    }
    this.#hosts = options.allowedHosts && new Set(options.allowedHosts.map((h) => h.toLowerCase()));
    this.#origins = options.allowedOrigins === "*"
      ? "*"
      : new Set((options.allowedOrigins ?? []).map(normalizeOrigin));
  }

  /** True when the guard runs in loopback mode (the bind address is a loopback address). */
  get loopback(): boolean {
    return this.#loopback;
  }

  /** Why the request is refused, or `undefined` when it may pass. */
  check(request: RequestParts): string | undefined {
    const host = request.headers.get("host") ?? new URL(request.url).host;
    const origin = request.headers.get("origin");
    // The answer depends on Host and Origin alone, and clients send the same few pairs again and again.
    const key = origin === null ? host : `${host}\n${origin}`;
    const cached = this.#recent.get(key);
    if (cached !== undefined) return cached === PASSES ? undefined : cached;
    const reason = this.#check(host, origin);
    if (this.#recent.size >= MAX_RECENT) this.#recent.clear();
    this.#recent.set(key, reason ?? PASSES);
    return reason;
  }

  #check(host: string, origin: string | null): string | undefined {
    const hostname = hostnameOf(host);
    if (hostname === undefined) return `Host ${JSON.stringify(host)} is not a valid host`;
    const hostAllowed = this.#hosts !== undefined &&
      (this.#hosts.has(host.toLowerCase()) || this.#hosts.has(hostname));
    if (this.#loopback) {
      if (!isLoopbackHostname(hostname) && !hostAllowed) {
        return `Host ${JSON.stringify(host)} is not a loopback host and not allowed`;
      }
    } else if (this.#hosts !== undefined && !hostAllowed) {
      return `Host ${JSON.stringify(host)} is not allowed`;
    }

    if (origin === null || this.#origins === "*") return undefined;
    const normalized = normalizeOrigin(origin);
    if (this.#origins.has(normalized)) return undefined;
    const parsed = parseOrigin(origin);
    if (this.#loopback) {
      if (parsed && isLoopbackHostname(stripBrackets(parsed.hostname))) return undefined;
      return `Origin ${JSON.stringify(origin)} is not a loopback origin and not allowed`;
    }
    if (parsed && parsed.host === host.toLowerCase()) return undefined;
    return `Origin ${JSON.stringify(origin)} is not allowed`;
  }

  /** The 403 answer (a JSON-RPC error without id) when the request is refused, else `undefined`. */
  refuse(request: RequestParts): Response | undefined {
    const reason = this.check(request);
    return reason === undefined ? undefined : forbidden(reason);
  }
}

/** The cached outcome of a pair that passes (every refusal is a non-empty reason). */
const PASSES = "";
/** Pairs remembered at most (then forgotten at once). */
const MAX_RECENT = 256;

/** True for `localhost`, an IPv4 address in `127.0.0.0/8`, and `::1` (brackets optional). */
export function isLoopbackHostname(hostname: string): boolean {
  const name = stripBrackets(hostname.toLowerCase()).replace(/\.$/, "");
  if (name === "localhost" || name === "::1" || name === "0:0:0:0:0:0:0:1") return true;
  const quad = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return quad !== null && quad.slice(1).every((part) => Number(part) <= 255);
}

function stripBrackets(name: string): string {
  return name.startsWith("[") && name.endsWith("]") ? name.slice(1, -1) : name;
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), or `undefined` when it is not one. */
function hostnameOf(host: string): string | undefined {
  if (host.length === 0 || /[\s/@?#\\]/.test(host)) return undefined;
  try {
    const url = new URL(`http://${host}`);
    return stripBrackets(url.hostname);
  } catch {
    return undefined; // not a host: the caller refuses the request with this as the reason
  }
}

function parseOrigin(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined; // "null" and garbage: refused unless allow-listed verbatim
  }
}

function normalizeOrigin(origin: string): string {
  const parsed = parseOrigin(origin.trim());
  return parsed ? parsed.origin : origin.trim().toLowerCase();
}
