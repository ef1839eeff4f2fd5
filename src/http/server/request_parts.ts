/**
 * The part of a web `Request` that `createHttpHandler` reads, and the symbols by which a `serve()`
 * adapter and such a handler skip web streams on the hot path: a lighter object than a `Request`
 * in, a {@linkcode TextReply} in place of a `Response` out (on Node, building a `Request` with a
 * streamed body and a signal, and a `Response` and reading its body, cost more than the MCP exchange).
 * @module
 */
import type { ClassifiedMessage } from "../../wire/json_rpc_message.ts";

/** What `createHttpHandler` reads of a request's headers: web `Headers` are such. */
export type RequestHeaders = Pick<Headers, "get">;

/** What `createHttpHandler` reads of a request: a web `Request` is one. */
export type RequestParts = Pick<Request, "method" | "url" | "signal"> & {
  readonly headers: RequestHeaders;
  readonly body: ReadableStream<Uint8Array> | null;
};

/**
 * A handler whose property of this name is `true` accepts {@linkcode RequestParts} in place of a
 * `Request` (`createHttpHandler`'s handlers do; a handler wrapping one does not, unless it says so).
 */
export const ACCEPTS_REQUEST_PARTS: unique symbol = Symbol.for("onemodelcontext.http.acceptsRequestParts");

/**
 * An optional method of a request object: `(limitBytes) => Promise<Uint8Array> | undefined` reads the
 * whole body without a web stream, rejecting with `BodyTooLargeError` as soon as more than
 * `limitBytes` arrived (it stops reading there); `undefined` means "read `body` instead".
 */
export const READ_BODY: unique symbol = Symbol.for("onemodelcontext.http.readBody");

/** The {@linkcode READ_BODY} method's shape. */
export type ReadBody = (limitBytes: number) => Promise<Uint8Array> | undefined;

/** A request property: `true` when whoever passed the request takes a {@linkcode TextReply} in place of a `Response`. */
export const TAKES_TEXT_REPLY: unique symbol = Symbol.for("onemodelcontext.http.takesTextReply");

/**
 * A whole reply as text (a JSON reply), which a handler may resolve with in place of a `Response`
 * when the request said {@linkcode TAKES_TEXT_REPLY}: no body stream is built, none is read.
 */
export class TextReply {
  /** The HTTP status. */
  readonly status: number;
  /** The response headers, by name. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body. */
  readonly text: string;

  constructor(status: number, headers: Readonly<Record<string, string>>, text: string) {
    this.status = status;
    this.headers = headers;
    this.text = text;
  }

  /** The same reply as a web `Response`. */
  toResponse(): Response {
    return new Response(this.text, { status: this.status, headers: this.headers });
  }
}

/**
 * A request property: the authenticated principal of the request (an OAuth `sub`), set by whoever
 * verified its credentials (`requireBearer`). `createHttpHandler` binds a modern `requestState` and a
 * legacy session to it. A symbol, so nothing a client sends can set it.
 */
export const REQUEST_PRINCIPAL: unique symbol = Symbol.for("onemodelcontext.http.principal");

/** The principal {@linkcode REQUEST_PRINCIPAL} names on `request`, when it is a string. */
export function principalOf(request: object): string | undefined {
  const principal = (request as { [REQUEST_PRINCIPAL]?: unknown })[REQUEST_PRINCIPAL];
  return typeof principal === "string" ? principal : undefined;
}

/** True when the caller of the handler takes a TextReply for this request (serve() on Node). */
export function takesTextReply(request: RequestParts): boolean {
  return (request as { [TAKES_TEXT_REPLY]?: unknown })[TAKES_TEXT_REPLY] === true;
}

/** True when `request`'s `Accept` allows one of `types` (an absent header allows everything). */
export function accepts(request: RequestParts, types: readonly string[]): boolean {
  const accept = request.headers.get("accept");
  return accept === null || acceptsAny(accept, types);
}

/** True when `accept` (an `Accept` value) allows one of `types`; an empty one allows everything. */
export function acceptsAny(accept: string, types: readonly string[]): boolean {
  if (accept.trim() === "") return true;
  const ranges = accept.split(",").map((part) => part.split(";")[0]!.trim().toLowerCase());
  return ranges.some((range) =>
    range === "*/*" || types.some((type) => range === type || range === `${type.split("/")[0]}/*`)
  );
}

/** A POSTed message as sorted, when it is a valid one: a request, a notification, a result or an error. */
export type PostedMessage = Exclude<ClassifiedMessage, { kind: "invalid" }> & {
  /** A `notifications/cancelled`'s `params.requestId` as written, when JSON.parse rounded it. */
  cancelledIdLiteral?: string;
};
