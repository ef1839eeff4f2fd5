/**
 * `HttpEndpoint`: the client's side of one MCP endpoint URL. It sends with the caller's `fetch` and
 * headers, and reads a response body as JSON-RPC messages, from `application/json` or from
 * `text/event-stream`. Both HTTP eras' client code sends through it.
 * @module
 */
import { ProtocolError } from "../wire/errors.ts";
import { SseDecoderStream } from "./sse_decoder_stream.ts";
import { HttpStatusError } from "./http_client_errors.ts";
import { classifyMessage } from "../wire/json_rpc_message.ts";
import type { JsonRpcError } from "../wire/errors.ts";
import { abortable } from "../stream/deferred.ts";
import type { HeaderFields } from "./http_errors.ts";

/** A `fetch` as the web defines it; pass undici's, an authenticated wrapper or a test double. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Headers added to every request: fixed, or computed per request (e.g. a fresh bearer token). */
export type HeadersSource = HeaderFields | (() => HeaderFields | Promise<HeaderFields>);

/** Options of {@linkcode HttpEndpoint}. */
export interface HttpEndpointOptions {
  fetch?: FetchLike;
  headers?: HeadersSource;
  /** Largest SSE event accepted, in bytes. Default 4 MiB. */
  maxEventBytes?: number;
}

/** How a response body ended, from {@linkcode HttpEndpoint.read}. */
/** Where a read got to, kept up to date event by event (so it is known even when the read fails). */
export interface SseCursor {
  /** The last non-empty SSE event id seen. */
  lastEventId: string;
  /** The last `retry:` value seen. */
  retry?: number;
}

export interface ReadOutcome {
  /** `done`: `onMessage` said it had what it wanted; `eof`: the body ended. */
  ended: "done" | "eof";
  /** The last SSE event id seen (`""` for none or for JSON). */
  lastEventId: string;
  /** The last SSE `retry:` value, if any. */
  retry?: number;
}

/** The media types every MCP POST accepts. */
export const ACCEPT_BOTH = "application/json, text/event-stream";

export class HttpEndpoint {
  readonly url: string;
  readonly #fetch: FetchLike;
  readonly #headers: HeadersSource | undefined;
  readonly #maxEventBytes: number | undefined;

  constructor(url: string | URL, options: HttpEndpointOptions = {}) {
    this.url = String(url);
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#headers = options.headers;
    this.#maxEventBytes = options.maxEventBytes;
  }

  /** Sends one HTTP request with the custom headers, then `headers` (which win). */
  async send(
    method: "POST" | "GET" | "DELETE",
    init: { headers: Record<string, string>; body?: string; signal?: AbortSignal },
  ): Promise<Response> {
    const headers = new Headers(typeof this.#headers === "function" ? await this.#headers() : this.#headers);
    for (const [name, value] of Object.entries(init.headers)) headers.set(name, value);
    const request: RequestInit = { method, headers, signal: init.signal };
    if (init.body !== undefined) request.body = init.body;
    return this.#fetch(this.url, request);
  }

  /**
   * Reads `response` as JSON-RPC messages and hands each to `onMessage` until it returns `true` or
   * the body ends. A JSON body is one message; an SSE body is one message per event with data (an
   * event without data, such as a priming event, carries none). Throws `ProtocolError` for a body
   * that is neither, and the read error when the stream fails. Aborting `signal` stops reading at
   * once (the body is cancelled, whatever `fetch` produced it) and rejects with its reason.
   */
  async read(
    response: Response,
    onMessage: (message: unknown) => boolean | void,
    signal?: AbortSignal,
    cursor?: SseCursor,
  ): Promise<ReadOutcome> {
    signal?.throwIfAborted();
    const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type === "text/event-stream") return this.#readSse(response, onMessage, signal, cursor);
    const text = await abortable(response.text(), signal);
    if (type !== "application/json" && text.trim() === "") return { ended: "eof", lastEventId: "" };
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      throw new ProtocolError(
        `The server answered with ${type || "no Content-Type"} that is not JSON: ${
          JSON.stringify(text.slice(0, 100))
        }`,
        { cause: error },
      );
    }
    return { ended: onMessage(message) === true ? "done" : "eof", lastEventId: "" };
  }

  async #readSse(
    response: Response,
    onMessage: (message: unknown) => boolean | void,
    signal?: AbortSignal,
    cursor?: SseCursor,
  ): Promise<ReadOutcome> {
    if (response.body === null) return { ended: "eof", lastEventId: "" };
    const decoder = new SseDecoderStream(
      this.#maxEventBytes === undefined ? {} : { maxEventBytes: this.#maxEventBytes },
    );
    const reader = response.body.pipeThrough(decoder).getReader();
    // A fetch that ignores its signal once the headers are in still stops here.
    const onAbort = (): void => void reader.cancel(signal!.reason).catch(() => {});
    signal?.addEventListener("abort", onAbort, { once: true });
    let lastEventId = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        signal?.throwIfAborted();
        if (done) {
          return { ended: "eof", lastEventId: decoder.lastEventId || lastEventId, retry: decoder.retry };
        }
        lastEventId = value.lastEventId;
        if (cursor) {
          if (lastEventId !== "") cursor.lastEventId = lastEventId;
          if (decoder.retry !== undefined) cursor.retry = decoder.retry;
        }
        if (value.data === "") continue;
        let message: unknown;
        try {
          message = JSON.parse(value.data);
        } catch (error) {
          throw new ProtocolError(`An SSE event is not JSON: ${JSON.stringify(value.data.slice(0, 100))}`, {
            cause: error,
          });
        }
        if (onMessage(message) === true) return { ended: "done", lastEventId, retry: decoder.retry };
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      // The reply is in (or reading failed): release the connection. Cancel errors carry nothing new.
      reader.cancel().catch(() => {});
    }
  }
}

/** The JSON-RPC error in a non-2xx response body, or an {@linkcode HttpStatusError} when the body is none. */
export async function errorOfStatus(
  response: Response,
  method: string,
): Promise<JsonRpcError | HttpStatusError> {
  const text = await response.text().catch(() => "");
  try {
    const classified = classifyMessage(JSON.parse(text));
    if (classified.kind === "error") return classified.error;
  } catch {
    // Not JSON: the status and the text tell the caller what happened.
  }
  return new HttpStatusError(method, { status: response.status, body: text });
}
