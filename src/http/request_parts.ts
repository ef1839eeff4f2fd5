/**
 * The part of a web `Request` that `createHttpHandler` reads, and the symbols by which a `serve()`
 * adapter and such a handler skip web streams on the hot path: a lighter object than a `Request`
 * in, a JSON reply's text beside its `Response` body out (on Node, building a `Request` with a
 * streamed body and a signal, and reading a `Response` body, cost more than the MCP exchange).
 * @module
 */

/** What `createHttpHandler` reads of a request: a web `Request` is one. */
export type RequestParts = Pick<Request, "method" | "url" | "headers" | "signal"> & { readonly body: ReadableStream<Uint8Array> | null };

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

/**
 * A property a handler's `Response` may carry: its whole body as a string (a JSON reply). An adapter
 * may send it in place of reading `body`, as long as `bodyUsed` is false; a `Response` rebuilt from
 * this one (CORS headers added, say) has no such property and is read as usual.
 */
export const BODY_TEXT: unique symbol = Symbol.for("onemodelcontext.http.bodyText");
