/**
 * `envProxyFetch()`: the `fetch` of the Node HTTP client, honouring the proxy variables as curl and
 * undici do: `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (lower case too; the lower-case one wins).
 * Through undici's `EnvHttpProxyAgent`; with none of them set, the runtime's global `fetch` as it is.
 * @module
 */
import { EnvHttpProxyAgent, fetch as undiciFetch } from "undici";
import type { FetchLike } from "../../src/http/client/http_endpoint.ts";

const VARIABLES = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"] as const;

let cached: { key: string; fetch: FetchLike } | undefined;

/** True when any proxy variable is set (non-empty) in `env`. */
export function proxyConfigured(env: Record<string, string | undefined> = process.env): boolean {
  return VARIABLES.slice(0, 4).some((name) => (env[name] ?? "") !== "");
}

/**
 * The `fetch` for this process's proxy variables, read now (one agent per distinct setting). With
 * no proxy variable set, the global `fetch`.
 *
 * @example
 * ```ts
 * declare const url: string;
 * const transport = httpTransport(url, { fetch: envProxyFetch() }); // what the Node entry's httpTransport does by default
 * ```
 */
export function envProxyFetch(): FetchLike {
  if (!proxyConfigured()) return (input, init) => globalThis.fetch(input, init);
  const key = VARIABLES.map((name) => process.env[name] ?? "").join("\n");
  if (cached?.key !== key) {
    const dispatcher = new EnvHttpProxyAgent();
    cached = {
      key,
      fetch: (input, init) =>
        undiciFetch(input as never, { ...(init as object), dispatcher } as never) as unknown as Promise<
          Response
        >,
    };
  }
  return cached.fetch;
}
