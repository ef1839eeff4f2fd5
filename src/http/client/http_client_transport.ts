/**
 * `httpTransport(url, options)`: the Streamable HTTP client transport of {@linkcode ContextClient},
 * in both eras. Connecting probes the era as the 2026-07-28 transport page says: `server/discover`
 * with the modern headers first; a 400 whose JSON-RPC error code is modern (-32022, -32021, -32020)
 * means modern; any other 4xx means legacy `initialize`; no answer in time is an error, never a
 * legacy signal. The era is cached per endpoint.
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import { integerOption, numberOption } from "../../stream/options.ts";
import type { ExchangeTransport } from "../../client/exchange_transport.ts";
import { type FetchLike, type HeadersSource, HttpEndpoint, type HttpSend } from "./http_endpoint.ts";
import { HttpStatusError } from "./http_client_errors.ts";
import type { ReconnectOptions } from "./legacy_http_client_session.ts";
import { connectLegacySse } from "./legacy_sse_client.ts";
import { HttpEraProbe } from "./http_era_probe.ts";

/** Options of {@linkcode httpTransport}. */
export interface HttpTransportOptions {
  /**
   * The `fetch` every request goes through (authentication wrappers, test doubles, undici's `fetch`
   * on Node). Default: the runtime's global `fetch`.
   * @default the runtime's global `fetch`
   */
  fetch?: FetchLike;
  /**
   * Sends every request in place of `fetch`, when no `fetch` is given: the seam the Node entry's
   * `httpTransport` fills with undici's dispatcher API. Default: none (`fetch` sends).
   * @default none (`fetch` sends)
   */
  send?: HttpSend;
  /** Headers added to every request (e.g. `Authorization`), or a function returning them per request. */
  headers?: HeadersSource;
  /**
   * Milliseconds a request may go without its reply or a progress notification. Default 60 000; `Infinity` turns it off.
   * @default 60000
   */
  requestTimeout?: number;
  /**
   * Milliseconds a request may take in all, progress or not. Default 600 000; `Infinity` turns it off.
   * @default 600000
   */
  maxTotalTimeout?: number;
  /**
   * Legacy era: open the GET stream for server-initiated messages after `initialize`. Default true.
   * @default true
   */
  listen?: boolean;
  /** Legacy era: how the GET stream and interrupted response streams reconnect. */
  reconnect?: ReconnectOptions;
  /**
   * Largest SSE event accepted, in bytes. Default 4 MiB.
   * @default 4 MiB
   */
  maxEventBytes?: number;
  /**
   * Largest `application/json` response body accepted, in bytes; a bigger one fails the request with `ResponseTooLargeError`. Default 4 MiB.
   * @default 4 MiB
   */
  maxResponseBytes?: number;
  /**
   * `"streamable-http"`: only Streamable HTTP. `"sse"`: the deprecated HTTP+SSE transport of
   * 2024-11-05 (`GET` the URL, POST to its `endpoint` event's URL). `"auto"` (default): Streamable
   * HTTP, and when `initialize` gets a 4xx other than 401/403, the HTTP+SSE transport, as the spec's
   * backwards-compatibility section says.
   */
  transport?: "auto" | "streamable-http" | "sse";
}

/** The {@linkcode ExchangeTransport} that {@linkcode httpTransport} returns. */
export interface HttpTransport extends ExchangeTransport {
  /** The MCP endpoint. */
  readonly url: string;
  /** The era cache key: the endpoint's origin and path (`http://127.0.0.1:3000/mcp`). */
  readonly cacheKey: string;
}

/**
 * The Streamable HTTP client transport for {@linkcode ContextClient.connect}.
 *
 * @example
 * ```ts
 * declare const token: string;
 * const client = await ContextClient.connect(httpTransport("https://example.com/mcp", {
 *   headers: { Authorization: `Bearer ${token}` },
 * }));
 * console.log(client.era, client.protocolVersion);
 * const tools = await client.listTools();
 * await client.close(); // legacy sessions end with DELETE
 * ```
 */
export function httpTransport(url: string | URL, options: HttpTransportOptions = {}): HttpTransport {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidOptionError(
      `The httpTransport URL must be an absolute http(s) URL, got ${JSON.stringify(String(url))}`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new InvalidOptionError(
      `The httpTransport URL must be http: or https:, got ${JSON.stringify(parsed.protocol)}`,
    );
  }
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw new InvalidOptionError("Option fetch must be a function");
  }
  if (options.send !== undefined && typeof options.send !== "function") {
    throw new InvalidOptionError("Option send must be a function");
  }
  const timeouts = {
    timeout: numberOption("requestTimeout", options.requestTimeout, 60_000, 1),
    maxTotalTimeout: numberOption("maxTotalTimeout", options.maxTotalTimeout, 600_000, 1),
  };
  const r = options.reconnect ?? {};
  const reconnect = {
    initialDelay: numberOption("reconnect.initialDelay", r.initialDelay, 1_000),
    maxDelay: numberOption("reconnect.maxDelay", r.maxDelay, 30_000),
    factor: numberOption("reconnect.factor", r.factor, 1.5, 1),
    maxAttempts: integerOption("reconnect.maxAttempts", r.maxAttempts, 10, 1),
  };
  const endpoint = new HttpEndpoint(parsed, {
    fetch: options.fetch,
    send: options.send,
    headers: options.headers,
    maxEventBytes: options.maxEventBytes,
    maxResponseBytes: options.maxResponseBytes,
  });
  const cacheKey = `${parsed.origin}${parsed.pathname}`;
  const transport = options.transport ?? "auto";
  if (transport !== "auto" && transport !== "streamable-http" && transport !== "sse") {
    throw new InvalidOptionError(
      `Option transport must be "auto", "streamable-http" or "sse", got ${JSON.stringify(transport)}`,
    );
  }
  const sseOptions = { fetch: options.fetch, headers: options.headers, maxEventBytes: options.maxEventBytes };
  return {
    url: parsed.href,
    cacheKey,
    connectExchange: async (settings) => {
      if (transport === "sse") return connectLegacySse(parsed, sseOptions, settings);
      try {
        return await new HttpEraProbe(endpoint, settings, {
          timeouts,
          reconnect,
          listen: options.listen ?? true,
        })
          .run();
      } catch (error) {
        if (transport === "streamable-http" || settings.era === "modern" || !refusedAsLegacySse(error)) {
          throw error;
        }
        try {
          return await connectLegacySse(parsed, sseOptions, settings);
        } catch {
          throw error; // not an HTTP+SSE server either: the Streamable HTTP failure says more
        }
      }
    },
  };
}

/** True for a 4xx answer (not 401/403) to the Streamable HTTP handshake: a server of the HTTP+SSE transport, maybe. */
function refusedAsLegacySse(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e instanceof HttpStatusError) {
      const status = (e as unknown as { status: number }).status;
      return status >= 400 && status < 500 && status !== 401 && status !== 403;
    }
  }
  return false;
}
