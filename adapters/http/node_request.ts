/**
 * The request side of `serve` on `node:http`: {@linkcode NodeRequest}, what a handler accepting
 * `RequestParts` (`createHttpHandler`'s) gets, and {@linkcode toRequest}, the web `Request` every
 * other handler gets; both read the body from the socket only as the handler asks for it.
 * @module
 */
import type { IncomingMessage } from "node:http";
import { BodyTooLargeError } from "../../src/http/errors.ts";
import { READ_BODY, type RequestParts, TAKES_TEXT_REPLY } from "../../src/http/request_parts.ts";

/** The headers of `req` as web `Headers` (throws on a value `Headers` refuses). */
function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!raw[i]!.startsWith(":")) headers.append(raw[i]!, raw[i + 1]!);
  }
  return headers;
}

/** The first `Host` of raw headers, as `req.headers.host` has it (without building `req.headers`). */
function firstHost(raw: string[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === "host") return raw[i + 1];
  }
  return undefined;
}

/** The methods a web `Request` refuses. */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** `req` as a web `Request` whose body streams in as the handler reads it and whose `signal` is `signal`. */
export function toRequest(req: IncomingMessage, hostname: string, signal: AbortSignal): Request {
  const headers = headersOf(req);
  const host = req.headers.host ?? hostname;
  const url = new URL(req.url ?? "/", `http://${host}`);
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (method !== "GET" && method !== "HEAD") {
    init.body = bodyOf(req);
    init.duplex = "half";
  }
  return new Request(url, init);
}

/**
 * What a handler that accepts {@linkcode RequestParts} gets in place of a web `Request`: the same
 * method, URL, headers and signal, the body as a web stream only when asked for, a
 * {@linkcode READ_BODY} method that reads it whole from the socket under a byte cap, and
 * {@linkcode TAKES_TEXT_REPLY}: the handler may answer with a {@linkcode TextReply}. Refuses what a
 * `Request` refuses (a bad URL, header value or method), so the client gets the same 400.
 */
export class NodeRequest implements RequestParts {
  /** serve() writes a TextReply itself. */
  readonly [TAKES_TEXT_REPLY] = true;
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly signal: AbortSignal;
  readonly #req: IncomingMessage;
  #body: ReadableStream<Uint8Array> | null | undefined;

  constructor(req: IncomingMessage, hostname: string, signal: AbortSignal) {
    this.method = req.method ?? "GET";
    if (FORBIDDEN_METHODS.has(this.method.toUpperCase())) throw new TypeError(`Method ${this.method} is not allowed`);
    this.headers = headersOf(req);
    this.url = new URL(req.url ?? "/", `http://${firstHost(req.rawHeaders) ?? hostname}`).href;
    this.signal = signal;
    this.#req = req;
    if (this.method === "GET" || this.method === "HEAD") this.#body = null;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined) this.#body = bodyOf(this.#req);
    return this.#body;
  }

  /** The whole body, read from the socket; rejects with BodyTooLargeError at the first chunk past `limitBytes` (reading stops there). */
  [READ_BODY](limitBytes: number): Promise<Uint8Array> | undefined {
    if (this.#body !== undefined) return undefined; // the stream was taken (or there is no body): read that
    this.#body = null;
    const req = this.#req;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      const detach = (): void => {
        req.off("data", onData);
        req.off("end", onEnd);
        req.off("error", onError);
      };
      const onData = (chunk: Buffer): void => {
        if (total + chunk.byteLength > limitBytes) {
          detach();
          req.pause(); // the 413 is the outcome; the connection is dropped once it is sent
          reject(new BodyTooLargeError(limitBytes));
          return;
        }
        chunks.push(chunk);
        total += chunk.byteLength;
      };
      const onEnd = (): void => {
        detach();
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
      };
      const onError = (error: Error): void => {
        detach();
        reject(error);
      };
      req.on("data", onData);
      req.on("end", onEnd);
      req.on("error", onError);
    });
  }
}

/** The request body as a web stream that reads from the socket only as the handler pulls. */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let onData: ((chunk: Buffer) => void) | undefined;
  let onEnd: (() => void) | undefined;
  let onError: ((error: Error) => void) | undefined;
  const detach = (): void => {
    if (onData) req.off("data", onData);
    if (onEnd) req.off("end", onEnd);
    if (onError) req.off("error", onError);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      onData = (chunk) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      };
      onEnd = () => {
        detach();
        controller.close();
      };
      onError = (error) => {
        detach();
        controller.error(error);
      };
      req.on("data", onData);
      req.on("end", onEnd);
      req.on("error", onError);
      req.pause();
    },
    pull() {
      req.resume();
    },
    cancel() {
      detach();
      req.pause();
    },
  });
}
