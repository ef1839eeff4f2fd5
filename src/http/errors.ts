/**
 * The typed errors of the HTTP building blocks. Each extends {@linkcode TransportError} with one of its
 * stable codes, so callers branch on `code` (or `instanceof`) exactly as for the stream transports.
 * @module
 */
import { TransportError } from "../wire/errors.ts";

/**
 * A request body was larger than the byte cap: either its `Content-Length` said so (nothing was read)
 * or more bytes than the cap arrived (reading stopped at the first byte over). Answer 413.
 */
export class BodyTooLargeError extends TransportError {
  /** The cap that was exceeded, in bytes. */
  readonly limitBytes: number;
  /** The `Content-Length` the request declared, when it declared one over the cap. */
  readonly declaredBytes: number | undefined;
  constructor(limitBytes: number, declaredBytes?: number) {
    const what = declaredBytes === undefined ? "The request body" : `The request body (Content-Length ${declaredBytes})`;
    super("message_too_large", `${what} exceeds maxBodyBytes (${limitBytes} bytes)`);
    this.name = "BodyTooLargeError";
    this.limitBytes = limitBytes;
    this.declaredBytes = declaredBytes;
  }
}

/** Why a request body could not be read as one JSON value. */
export type BodyParseFailure = "empty" | "invalid_utf8" | "invalid_json";

/** A request body was empty, not UTF-8, or not JSON. Answer -32700 (Parse error). */
export class BodyParseError extends TransportError {
  readonly reason: BodyParseFailure;
  constructor(reason: BodyParseFailure, message: string, options?: { cause?: unknown }) {
    super(reason === "invalid_utf8" ? "invalid_utf8" : "parse", message, options);
    this.name = "BodyParseError";
    this.reason = reason;
  }
}

/**
 * An SSE stream was cancelled by its reader (the client disconnected) or aborted by the server:
 * pending and later writes reject with this error.
 */
export class StreamCancelledError extends TransportError {
  constructor(message = "The SSE stream was cancelled by its reader", options?: { cause?: unknown }) {
    super("cancelled", message, options);
    this.name = "StreamCancelledError";
  }
}

/** One incoming SSE event (or one line of it) was larger than `maxEventBytes`; the stream is errored. */
export class EventTooLargeError extends TransportError {
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super("message_too_large", `An SSE event exceeds maxEventBytes (${limitBytes} bytes)`);
    this.name = "EventTooLargeError";
    this.limitBytes = limitBytes;
  }
}

/** An outgoing SSE field (`id`, `event`) held a line break or NUL that would break the framing. */
export class InvalidSseFieldError extends TransportError {
  readonly field: string;
  constructor(field: string, value: string) {
    super("protocol", `SSE field ${field} must not contain CR, LF or NUL, got ${JSON.stringify(value.slice(0, 60))}`);
    this.name = "InvalidSseFieldError";
    this.field = field;
  }
}

/** A tool argument marked `x-mcp-header` cannot be mirrored (an integer outside ±(2^53 − 1), or not a primitive). */
export class UnmirrorableArgumentError extends TransportError {
  readonly header: string;
  constructor(header: string, value: unknown) {
    const shown = typeof value === "number" ? String(value) : (JSON.stringify(value)?.slice(0, 60) ?? typeof value);
    super("protocol", `Argument for ${header} cannot be sent as a header: ${shown} is not a string, boolean or safe integer`);
    this.name = "UnmirrorableArgumentError";
    this.header = header;
  }
}
