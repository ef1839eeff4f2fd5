/**
 * `HttpEndpoint`: the client's side of one MCP endpoint URL. It sends with the caller's `fetch` and
 * headers, and reads a response body as JSON-RPC messages, from `application/json` or from
 * `text/event-stream`. Both HTTP eras' client code sends through it.
 * @module
 */
import { ProtocolError } from "../../wire/errors.ts";
import { SseDecoderStream } from "./sse_decoder_stream.ts";
import { HttpStatusError } from "./http_client_errors.ts";
import { classifyMessage } from "../../wire/json_rpc_message.ts";
import type { JsonRpcError } from "../../wire/errors.ts";
import type { HeaderFields } from "../http_errors.ts";
import { integerOption } from "../../stream/options.ts";
import { DEFAULT_MAX_RESPONSE_BYTES, readResponseExcerpt, readResponseText } from "./read_response_text.ts";
import type { HttpReply } from "./http_reply.ts";

export type { HttpReply } from "./http_reply.ts";

/** A `fetch` as the web defines it; pass undici's, an authenticated wrapper or a test double. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** One request as {@linkcode HttpSend} gets it: header names in lower case, the body as text. */
export interface HttpSendInit {
  method: "POST" | "GET" | "DELETE";
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/**
 * Sends one HTTP request: the seam under {@linkcode HttpEndpoint}. By default it is `fetch`; the Node
 * entry's `httpTransport` sends with undici's dispatcher API. Aborting `signal` aborts the request
 * and, once the headers are in, the body.
 */
export type HttpSend = (url: string, init: HttpSendInit) => Promise<HttpReply>;

/** Headers added to every request: fixed, or computed per request (e.g. a fresh bearer token). */
export type HeadersSource = HeaderFields | (() => HeaderFields | Promise<HeaderFields>);

/** Options of {@linkcode HttpEndpoint}. */
export interface HttpEndpointOptions {
  fetch?: FetchLike;
  /** Sends in place of `fetch` when given (and no `fetch` is). */
  send?: HttpSend;
  headers?: HeadersSource;
  /**
   * Largest SSE event accepted, in bytes. Default 4 MiB.
   * @default 4 MiB
   */
  maxEventBytes?: number;
  /**
   * Largest `application/json` response body accepted, in bytes (`ResponseTooLargeError` past it). Default 4 MiB.
   * @default 4 MiB
   */
  maxResponseBytes?: number;
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
  readonly #send: HttpSend | undefined;
  readonly #headers: HeadersSource | undefined;
  readonly #maxEventBytes: number | undefined;
  /** The cap of a JSON response body, in bytes. */
  readonly maxResponseBytes: number;

  constructor(url: string | URL, options: HttpEndpointOptions = {}) {
    this.url = String(url);
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#send = options.fetch === undefined ? options.send : undefined;
    this.#headers = options.headers;
    this.#maxEventBytes = options.maxEventBytes;
    this.maxResponseBytes = integerOption(
      "maxResponseBytes",
      options.maxResponseBytes,
      DEFAULT_MAX_RESPONSE_BYTES,
      1,
    );
  }

  /** Sends one HTTP request with the custom headers, then `headers` (which win). */
  send(
    method: "POST" | "GET" | "DELETE",
    init: { headers: Record<string, string>; body?: string; signal?: AbortSignal },
  ): Promise<HttpReply> {
    const source = this.#headers;
    // No async layer unless the custom headers are computed: one promise less per request.
    if (typeof source === "function") {
      return (async () => this.#sendWith(method, init, await source()))();
    }
    try {
      return this.#sendWith(method, init, source);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #sendWith(
    method: "POST" | "GET" | "DELETE",
    init: { headers: Record<string, string>; body?: string; signal?: AbortSignal },
    custom: HeaderFields | undefined,
  ): Promise<HttpReply> {
    if (this.#send !== undefined) {
      const headers: Record<string, string> = {};
      if (custom !== undefined) {
        const entries = custom instanceof Headers || Array.isArray(custom) ? custom : Object.entries(custom);
        for (const [name, value] of entries) headers[name.toLowerCase()] = value;
      }
      for (const name in init.headers) headers[name.toLowerCase()] = init.headers[name]!;
      const sendInit: HttpSendInit = { method, headers, signal: init.signal };
      if (init.body !== undefined) sendInit.body = init.body;
      return this.#send(this.url, sendInit);
    }
    const headers = new Headers(custom);
    for (const [name, value] of Object.entries(init.headers)) headers.set(name, value);
    const request: RequestInit = { method, headers, signal: init.signal };
    if (init.body !== undefined) request.body = init.body;
    return this.#fetch(this.url, request);
  }

  /**
   * Reads `response` as JSON-RPC messages and hands each to `onMessage` until it returns `true` or
   * the body ends. A JSON body is one message; an SSE body is one message per event with data (an
   * event without data, such as a priming event, carries none). Throws `ProtocolError` for a body
   * that is neither, `ResponseTooLargeError` for a JSON body over `maxResponseBytes` (read no further),
   * and the read error when the stream fails. Aborting `signal` stops reading at
   * once (the body is cancelled, whatever `fetch` produced it) and rejects with its reason.
   */
  read(
    response: HttpReply,
    onMessage: (message: unknown) => boolean | void,
    signal?: AbortSignal,
    cursor?: SseCursor,
  ): Promise<ReadOutcome> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type === "text/event-stream") return this.#readSse(response, onMessage, signal, cursor);
    // No async layer of its own for a JSON body: one promise less per reply.
    return readResponseText(response, this.maxResponseBytes, signal).then((text) =>
      this.#deliverJson(type, text, onMessage)
    );
  }

  #deliverJson(type: string, text: string, onMessage: (message: unknown) => boolean | void): ReadOutcome {
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
    response: HttpReply,
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

/**
 * The JSON-RPC error in a non-2xx response body, or an {@linkcode HttpStatusError} when the body is
 * none. At most `maxBytes` of the body are read (a bigger one is an error page: only its excerpt counts).
 */
export async function errorOfStatus(
  response: HttpReply,
  method: string,
  maxBytes?: number,
): Promise<JsonRpcError | HttpStatusError> {
  const { text, cut } = await readResponseExcerpt(response, maxBytes);
  if (cut) return new HttpStatusError(method, { status: response.status, body: text });
  try {
    const classified = classifyMessage(JSON.parse(text));
    if (classified.kind === "error") return classified.error;
  } catch {
    // Not JSON: the status and the text tell the caller what happened.
  }
  return new HttpStatusError(method, { status: response.status, body: text });
}
