/**
 * `undiciSend`: the {@linkcode HttpSend} of the Node entry's `httpTransport`, on undici's dispatcher
 * API (`dispatcher.request`) rather than `fetch`: no web `Request`, `Headers` or `Response` per call,
 * a JSON reply read as text straight from the socket's buffers, a web stream made only for an SSE
 * body. Keep-alive and connection pooling are the dispatcher's; pipelining stays off (undici's
 * default of one request at a time per connection). The default dispatcher is undici's global one,
 * so `setGlobalDispatcher(new ProxyAgent(…))` reaches this client as it reaches `fetch`.
 * @module
 */
import { Readable } from "node:stream";
import { type Dispatcher, getGlobalDispatcher, interceptors } from "undici";
import type { HttpReply, HttpSend, HttpSendInit } from "../../src/http/http_endpoint.ts";
import { InvalidOptionError } from "../../src/wire/errors.ts";

/** Options of {@linkcode undiciSend}. */
export interface UndiciSendOptions {
  /**
   * The undici dispatcher requests go through (an `Agent` with TLS options, a `Pool`, a `ProxyAgent`,
   * a `MockAgent` in tests). Default: undici's global dispatcher, read at each request.
   */
  dispatcher?: Dispatcher;
  /**
   * Redirects followed per request, as `fetch` follows them (301/302 turn a POST into a GET, 303
   * always, 307/308 keep it; credentials are dropped across origins). A redirect beyond this many is
   * answered as it came: the client then fails with `HttpStatusError`. Default 20 (fetch's); 0 never follows.
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
  const redirecting = new WeakMap<Dispatcher, Dispatcher>();
  const dispatcherNow = (): Dispatcher => {
    const base = options.dispatcher ?? getGlobalDispatcher();
    if (maxRedirections === 0) return base;
    let composed = redirecting.get(base);
    if (composed === undefined) {
      composed = base.compose(interceptors.redirect({ maxRedirections }));
      redirecting.set(base, composed);
    }
    return composed;
  };
  let target: { url: string; origin: string; path: string } | undefined;
  return async (url: string, init: HttpSendInit): Promise<HttpReply> => {
    if (target?.url !== url) {
      const parsed = new URL(url);
      target = { url, origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    }
    const { signal } = init;
    try {
      const data = await dispatcherNow().request({
        origin: target.origin,
        path: target.path,
        method: init.method,
        headers: init.headers,
        body: init.body,
        signal,
      });
      return new UndiciReply(data);
    } catch (error) {
      // As fetch does: an aborted request rejects with the signal's reason.
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  };
}

/** A response of `dispatcher.request` as an {@linkcode HttpReply}. */
class UndiciReply implements HttpReply {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly #data: ResponseData;
  #body: ReadableStream<Uint8Array> | undefined;

  constructor(data: ResponseData) {
    this.#data = data;
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
