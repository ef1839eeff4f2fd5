/**
 * The request side of `serve` on `node:http`: {@linkcode NodeRequest}, what a handler accepting
 * `RequestParts` (`createHttpHandler`'s) gets, and {@linkcode toRequest}, the web `Request` every
 * other handler gets; both read the body from the socket only as the handler asks for it.
 * @module
 */
import type { IncomingMessage } from "node:http";
import { BodyTooLargeError } from "../../src/http/errors.ts";
import type { Disconnect } from "./_disconnect.ts";
import {
  READ_BODY,
  type RequestHeaders,
  type RequestParts,
  TAKES_TEXT_REPLY,
} from "../../src/http/server/request_parts.ts";

/** The headers of `req` as web `Headers` (throws on a value `Headers` refuses). */
function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!raw[i]!.startsWith(":")) headers.append(raw[i]!, raw[i + 1]!);
  }
  return headers;
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

/** The headers of a request as `node:http` parsed them (`req.headers`, which Node builds for every request anyway), read like web `Headers`. */
class NodeHeaders implements RequestHeaders {
  readonly #fields: IncomingMessage["headers"];

  constructor(fields: IncomingMessage["headers"]) {
    this.#fields = fields;
  }

  get(name: string): string | null {
    const value = this.#fields[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === "string" ? value : value.join(", ");
  }
}

/** `http://host/target` as `new URL(...).href`, by host then target, for those seen lately (they repeat: one URL parse per distinct pair, not per request). */
const hrefs = new Map<string, Map<string, string>>();
/** Pairs remembered at most (then forgotten at once). */
const MAX_CACHED_HREFS = 256;
let cachedHrefs = 0;

function hrefOf(target: string, host: string): string {
  let byTarget = hrefs.get(host);
  let href = byTarget?.get(target);
  if (href === undefined) {
    href = new URL(target, `http://${host}`).href; // throws on a bad host or target: the caller answers 400
    if (cachedHrefs >= MAX_CACHED_HREFS) {
      hrefs.clear();
      cachedHrefs = 0;
      byTarget = undefined;
    }
    if (!byTarget) hrefs.set(host, byTarget = new Map());
    byTarget.set(target, href);
    cachedHrefs++;
  }
  return href;
}

/**
 * What a handler that accepts {@linkcode RequestParts} gets in place of a web `Request`: the same
 * method, URL, headers and signal, the body as a web stream only when asked for, a
 * {@linkcode READ_BODY} method that reads it whole from the socket under a byte cap, and
 * {@linkcode TAKES_TEXT_REPLY}: the handler may answer with a {@linkcode TextReply}. Refuses what a
 * `Request` refuses (a bad URL or method), so the client gets the same 400; header values Node's
 * parser already refused. No web `Headers` and no AbortController is made unless the signal is read.
 */
export class NodeRequest implements RequestParts {
  /** serve() writes a TextReply itself. */
  readonly [TAKES_TEXT_REPLY] = true;
  readonly method: string;
  readonly url: string;
  readonly headers: RequestHeaders;
  readonly #disconnect: Disconnect;
  readonly #req: IncomingMessage;
  #body: ReadableStream<Uint8Array> | null | undefined;

  constructor(req: IncomingMessage, hostname: string, disconnect: Disconnect) {
    this.method = req.method ?? "GET";
    if (FORBIDDEN_METHODS.has(this.method.toUpperCase())) {
      throw new TypeError(`Method ${this.method} is not allowed`);
    }
    const fields = req.headers;
    this.headers = new NodeHeaders(fields);
    this.url = hrefOf(req.url ?? "/", fields.host ?? hostname);
    this.#disconnect = disconnect;
    this.#req = req;
    if (this.method === "GET" || this.method === "HEAD") this.#body = null;
  }

  /** Aborts when the client goes away before the response finished. */
  get signal(): AbortSignal {
    return this.#disconnect.signal;
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
