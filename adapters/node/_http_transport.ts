/**
 * The Node entry's `httpTransport`: the Streamable HTTP client transport of `src/http`, sending with
 * undici's dispatcher API ({@linkcode undiciSend}) unless a `fetch` (an OAuth wrapper, a test double)
 * or a `send` is given, which then sends as on every other runtime. With a proxy variable set
 * (`HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`, lower case too) and no `dispatcher`, it sends through
 * {@linkcode envProxyFetch}.
 * @module
 */
import {
  type HttpTransport,
  httpTransport as webHttpTransport,
  type HttpTransportOptions as WebHttpTransportOptions,
} from "../../src/http/client/http_client_transport.ts";
import { envProxyFetch, proxyConfigured } from "./_proxy_fetch.ts";
import { undiciSend, type UndiciSendOptions } from "./_undici_send.ts";

/**
 * Options of the Node entry's {@linkcode httpTransport}: those of every runtime, and undici's
 * `dispatcher` and `maxRedirections` (used when no `fetch` or `send` is given).
 */
export interface HttpTransportOptions extends WebHttpTransportOptions, UndiciSendOptions {}

/**
 * The Streamable HTTP client transport for `ContextClient.connect`, sending with undici's dispatcher.
 *
 * @example
 * ```ts
 * import { ContextClient } from "onemodelcontext";
 * import { httpTransport } from "onemodelcontext/node";
 *
 * const client = await ContextClient.connect(httpTransport("http://127.0.0.1:3000/mcp"));
 * const tools = await client.listTools();
 * await client.close();
 * ```
 */
export function httpTransport(url: string | URL, options: HttpTransportOptions = {}): HttpTransport {
  const { dispatcher, maxRedirections, ...web } = options;
  if (web.fetch !== undefined || web.send !== undefined) return webHttpTransport(url, web);
  // HTTP_PROXY, HTTPS_PROXY, NO_PROXY (lower case too): every request, the HTTP+SSE fallback's
  // included, through undici's EnvHttpProxyAgent.
  if (dispatcher === undefined && proxyConfigured()) {
    return webHttpTransport(url, { ...web, fetch: envProxyFetch() });
  }
  return webHttpTransport(url, { ...web, send: undiciSend({ dispatcher, maxRedirections }) });
}
