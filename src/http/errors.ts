/**
 * The errors of the HTTP building blocks, fitted to the error model of `src/wire/errors.ts` (one
 * class per stable `code`): two of them need their own message and fields, so they extend
 * `MessageTooLargeError` and keep its `code` and `name`; everything else raises the wire classes
 * directly (`ParseError` and `InvalidUtf8Error` for bodies, `CancelledError` for cancelled streams,
 * `ProtocolError` for values that cannot be framed or mirrored).
 * @module
 */
import { MessageTooLargeError } from "../wire/errors.ts";

/**
 * A request body was larger than the byte cap: either its `Content-Length` said so (nothing was read)
 * or more bytes than the cap arrived (reading stopped at the first chunk over). Answer 413.
 * `code` is `message_too_large`; `instanceof MessageTooLargeError` holds.
 */
export class BodyTooLargeError extends MessageTooLargeError {
  /** The `Content-Length` the request declared, when it declared one over the cap. */
  readonly declaredBytes: number | undefined;
  constructor(limitBytes: number, declaredBytes?: number) {
    super(limitBytes);
    const what = declaredBytes === undefined
      ? "The request body"
      : `The request body (Content-Length ${declaredBytes})`;
    this.message = `${what} exceeds maxBodyBytes (${limitBytes} bytes)`;
    this.declaredBytes = declaredBytes;
  }
}

/**
 * One incoming SSE event was larger than `maxEventBytes`; the stream is errored.
 * `code` is `message_too_large`; `instanceof MessageTooLargeError` holds.
 */
export class EventTooLargeError extends MessageTooLargeError {
  constructor(limitBytes: number) {
    super(limitBytes);
    this.message = `An SSE event exceeds maxEventBytes (${limitBytes} bytes)`;
  }
}

/**
 * A JSON response body was larger than `maxResponseBytes`: its `Content-Length` said so (nothing was
 * read) or more bytes arrived (reading stopped at the first chunk over, the body was cancelled).
 * `code` is `message_too_large`; `instanceof MessageTooLargeError` holds.
 */
export class ResponseTooLargeError extends MessageTooLargeError {
  /** The `Content-Length` the response declared, when it declared one over the cap. */
  readonly declaredBytes: number | undefined;
  constructor(limitBytes: number, declaredBytes?: number) {
    super(limitBytes);
    const what = declaredBytes === undefined
      ? "The response body"
      : `The response body (Content-Length ${declaredBytes})`;
    this.message = `${what} exceeds maxResponseBytes (${limitBytes} bytes)`;
    this.declaredBytes = declaredBytes;
  }
}
