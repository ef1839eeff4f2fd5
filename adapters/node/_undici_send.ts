/**
 * `undiciSend`: the {@linkcode HttpSend} of the Node entry's `httpTransport`, on undici's dispatcher
 * API (`dispatcher.request`) rather than `fetch`: no web `Request`, `Headers` or `Response` per call,
 * a JSON reply read as text straight from the socket's buffers, a web stream made only for an SSE
 * body. Keep-alive and connection pooling are the dispatcher's; pipelining stays off (undici's
 * default of one request at a time per connection). The default dispatcher is undici's global one,
 * so `setGlobalDispatcher(new ProxyAgent(…))` reaches this client as it reaches `fetch`.
 * @module
 */
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import { type Dispatcher, getGlobalDispatcher } from "undici";
import type { HttpReply, HttpSend, HttpSendInit } from "../../src/http/client/http_endpoint.ts";
import { InvalidOptionError } from "../../src/wire/errors.ts";

/** Options of {@linkcode undiciSend}. */
export interface UndiciSendOptions {
  /**
   * The undici dispatcher requests go through (an `Agent` with TLS options, a `Pool`, a `ProxyAgent`,
   * a `MockAgent` in tests). Default: undici's global dispatcher, read at each request.
   * @default undici's global dispatcher
   */
  dispatcher?: Dispatcher;
  /**
   * Redirects followed per request, as `fetch` follows them (301/302 turn a POST into a GET, 303
   * always, 307/308 keep it; `authorization`, `cookie` and `proxy-authorization` stay on their origin). A redirect beyond this many is
   * answered as it came: the client then fails with `HttpStatusError`. Default 20 (fetch's); 0 never follows.
   * @default 20 (fetch's); 0 never follows
   */
  maxRedirections?: number;
}

type ResponseData = Dispatcher.ResponseData;

/** An {@linkcode HttpSend} on undici's `dispatcher.request`. */
export function undiciSend(options: UndiciSendOptions = {}): HttpSend {
  const maxRedirections = options.maxRedirections ?? 20;
  if (!Number.isInteger(maxRedirections) || maxRedirections < 0) {
    throw new InvalidOptionError(
      `Option maxRedirections must be an integer ≥ 0, got ${JSON.stringify(options.maxRedirections)}`,
    );
  }
  if (options.dispatcher !== undefined && typeof options.dispatcher?.request !== "function") {
    throw new InvalidOptionError("Option dispatcher must be an undici Dispatcher");
  }
  let target: { url: string; origin: string; path: string } | undefined;
  return async (url: string, init: HttpSendInit): Promise<HttpReply> => {
    if (target?.url !== url) {
      const parsed = new URL(url);
      target = { url, origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    }
    const { signal } = init;
    const dispatcher = options.dispatcher ?? getGlobalDispatcher();
    try {
      let data = await dispatcher.request({
        origin: target.origin,
        path: target.path,
        method: init.method,
        headers: init.headers,
        body: init.body,
        signal,
      });
      // Redirects are followed here rather than by undici's interceptor: no extra handler layers on
      // every request for what a 3xx status alone asks for.
      if (REDIRECTS.has(data.statusCode) && maxRedirections > 0) {
        data = await follow(dispatcher, new URL(url), init, data, maxRedirections);
      }
      return new UndiciReply(data, signal);
    } catch (error) {
      // As fetch does: an aborted request rejects with the signal's reason.
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  };
}

/** The statuses a redirect is followed for, as fetch follows them. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Headers that never cross to another origin on a redirect (fetch drops `authorization` too). */
const CREDENTIALS = ["authorization", "cookie", "proxy-authorization"];

/**
 * Follows `data`'s redirect chain, up to `max` hops, as fetch does: 303 (and 301/302 after a POST)
 * become a GET without body; 307/308 repeat the request; credentials stay on their origin. The reply
 * after `max` hops is returned as it came (a 3xx the client reports as an `HttpStatusError`).
 */
async function follow(
  dispatcher: Dispatcher,
  from: URL,
  init: HttpSendInit,
  data: ResponseData,
  max: number,
): Promise<ResponseData> {
  let url = from;
  let method: string = init.method;
  let body = init.body;
  let headers = init.headers;
  for (let hop = 0; hop < max && REDIRECTS.has(data.statusCode); hop++) {
    const location = data.headers.location;
    if (typeof location !== "string") return data;
    const next = new URL(location, url);
    if (next.protocol !== "http:" && next.protocol !== "https:") return data;
    await data.body.dump();
    if (
      data.statusCode === 303 || ((data.statusCode === 301 || data.statusCode === 302) && method === "POST")
    ) {
      method = "GET";
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith("content-")));
    }
    if (next.origin !== url.origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIALS.includes(name)));
    }
    url = next;
    data = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      signal: init.signal,
    });
  }
  return data;
}

/** A response of `dispatcher.request` as an {@linkcode HttpReply}. */
class UndiciReply implements HttpReply {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly #data: ResponseData;
  /** The signal the request was sent with: undici destroys the body with its reason on abort. */
  readonly #signal: AbortSignal | undefined;
  #body: ReadableStream<Uint8Array> | undefined;

  constructor(data: ResponseData, signal: AbortSignal | undefined) {
    this.#data = data;
    this.#signal = signal;
    this.status = data.statusCode;
    this.headers = new ReplyHeaders(data.headers);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get body(): ReadableStream<Uint8Array> {
    this.#body ??= Readable.toWeb(this.#data.body) as unknown as ReadableStream<Uint8Array>;
    return this.#body;
  }

  text(): Promise<string> {
    return this.#data.body.text();
  }

  readText(maxBytes: number, signal?: AbortSignal): Promise<{ text: string; cut: boolean }> {
    // The request's own signal needs no second listener: undici already destroys the body with its reason.
    return readBoundedText(this.#data.body, maxBytes, signal, signal === this.#signal);
  }
}

/**
 * At most `maxBytes` of `body` as UTF-8 text (a byte order mark dropped, as `TextDecoder` drops it),
 * collected from the Node stream's own chunks: no web stream, one promise. Past `maxBytes` the body is
 * destroyed (the connection with it, nothing more is read) and `cut` is set; aborting `signal`
 * destroys it and rejects with the signal's reason.
 */
function readBoundedText(
  body: ResponseData["body"],
  maxBytes: number,
  signal?: AbortSignal,
  watchedByUndici = false,
): Promise<{ text: string; cut: boolean }> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      release(body);
      reject(signal.reason);
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (): void => {
      body.off("data", onData);
      body.off("end", onEnd);
      body.off("error", onError);
      if (!watchedByUndici) signal?.removeEventListener("abort", onAbort);
    };
    const onData = (chunk: Buffer): void => {
      if (total + chunk.byteLength > maxBytes) {
        const room = maxBytes - total;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        total += Math.max(0, room);
        finish();
        release(body); // stop the download: what is past the cap is never held
        resolve({ text: utf8(chunks, total), cut: true });
        return;
      }
      chunks.push(chunk);
      total += chunk.byteLength;
    };
    const onEnd = (): void => {
      finish();
      resolve({ text: utf8(chunks, total), cut: false });
    };
    const onError = (error: Error): void => {
      finish();
      reject(signal?.aborted ? signal.reason : error);
    };
    const onAbort = (): void => {
      finish();
      release(body);
      reject(signal!.reason);
    };
    if (!watchedByUndici) signal?.addEventListener("abort", onAbort, { once: true });
    body.on("error", onError);
    body.on("end", onEnd);
    body.on("data", onData);
  });
}

/** Destroys `body` (undici then closes its connection); the abort error it emits is expected. */
function release(body: ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

/** `chunks` (`total` bytes) decoded as UTF-8, without a leading byte order mark. */
function utf8(chunks: Buffer[], total: number): string {
  const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)).toString("utf8");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** undici's header record (names in lower case, repeated fields as arrays) behind `get`. */
class ReplyHeaders {
  readonly #fields: Record<string, string | string[] | undefined>;

  constructor(fields: Record<string, string | string[] | undefined>) {
    this.#fields = fields;
  }

  get(name: string): string | null {
    const value = this.#fields[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
  }
}
