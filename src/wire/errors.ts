/// <reference lib="esnext.disposable" preserve="true" />
/**
 * Every error the library raises: one base class, {@linkcode TransportError}, with one subclass per
 * stable literal `code`, and {@linkcode JsonRpcError} for JSON-RPC error objects.
 *
 * Each class is branded with a `Symbol.for` key and answers `instanceof` through
 * `static [Symbol.hasInstance]`, so `instanceof` works across two copies of the package (a bundled
 * copy and an installed one, `dist/` and `src/`). `instanceof TransportError` narrows to
 * {@linkcode AnyTransportError}, a union discriminated by `code`:
 *
 * @example
 * ```ts
 * declare const client: ContextClient;
 * try { await client.request("tools/list", {}); } catch (error) {
 *   if (error instanceof TransportError) {
 *     switch (error.code) {
 *       case "timeout": console.log(`gave up after ${error.timeoutMs} ms`); break;
 *       case "process_exited": console.log(error.exitCode, error.stderrTail); break;
 *     }
 *   }
 * }
 * ```
 * @module
 */

import { quotePeerText } from "./quote_peer_text.ts";

/** The stable codes of {@linkcode TransportError}: one subclass each. */
export type TransportErrorCode =
  | "closed"
  | "timeout"
  | "output_full"
  | "message_too_large"
  | "parse"
  | "invalid_utf8"
  | "write_failed"
  | "read_failed"
  | "process_exited"
  | "invalid_option"
  | "protocol"
  | "cancelled"
  | "negotiation_failed";

/** What every error constructor accepts besides its message. */
export interface TransportErrorOptions {
  /** The error that caused this one. */
  cause?: unknown;
}

/** Instances carry this key; its value is the code of the subclass that built them ("" for the base). */
const BRAND: unique symbol = Symbol.for("onemodelcontext.error") as never;
const JSON_RPC_BRAND: unique symbol = Symbol.for("onemodelcontext.jsonRpcError") as never;
const ordinaryInstanceOf = Function.prototype[Symbol.hasInstance];

function brandOf(value: unknown): unknown {
  return typeof value === "object" && value !== null ? (value as { [BRAND]?: unknown })[BRAND] : undefined;
}

function mark(error: Error, code: TransportErrorCode | ""): void {
  Object.defineProperty(error, BRAND, {
    value: code,
    configurable: true,
    enumerable: false,
    writable: false,
  });
}

/**
 * `instanceof` for one of our classes: the brand and the code decide, so a copy from another load of
 * the package answers too. A user's own subclass (`this` is not `owner`) gets the ordinary prototype check.
 */
// deno-lint-ignore ban-types
function isCoded(owner: Function, self: Function, code: TransportErrorCode, value: unknown): boolean {
  if (self !== owner) return ordinaryInstanceOf.call(self, value);
  return brandOf(value) === code && (value as { code?: unknown }).code === code;
}

/**
 * Base of every error raised by onemodelcontext; `code` is stable and safe to branch on. Construct a
 * subclass; `instanceof TransportError` narrows to {@linkcode AnyTransportError}.
 */
export class TransportError extends Error {
  /** Stable and safe to branch on; each subclass narrows it to one literal. */
  readonly code: TransportErrorCode;
  protected constructor(code: TransportErrorCode, message: string, options?: TransportErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = "TransportError";
    mark(this, "");
  }

  /** True for every error of onemodelcontext, from this copy of the package or another. */
  static override [Symbol.hasInstance](value: unknown): value is AnyTransportError {
    if (this !== TransportError) return ordinaryInstanceOf.call(this, value);
    const brand = brandOf(value);
    return typeof brand === "string" || brand === true; // true: the brand of copies before 0.2
  }
}

/** The stream or connection is closed; nothing more can be sent or received on it. */
export class ClosedError extends TransportError {
  declare readonly code: "closed";
  declare readonly name: "ClosedError";
  constructor(message = "The connection is closed", options?: TransportErrorOptions) {
    super("closed", message, options);
    this.name = "ClosedError";
    mark(this, "closed");
  }
  static override [Symbol.hasInstance](value: unknown): value is ClosedError {
    return isCoded(ClosedError, this, "closed", value);
  }
}

/** A bounded wait ran out. `timeoutMs` names the bound that was hit. */
export class TimeoutError extends TransportError {
  declare readonly code: "timeout";
  declare readonly name: "TimeoutError";
  /** The bound, in milliseconds, that ran out. */
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, options?: TransportErrorOptions) {
    super("timeout", message, options);
    this.name = "TimeoutError";
    this.timeoutMs = timeoutMs;
    mark(this, "timeout");
  }
  static override [Symbol.hasInstance](value: unknown): value is TimeoutError {
    return isCoded(TimeoutError, this, "timeout", value);
  }
}

/** The output queue had no room for a message that had to be sent without waiting. */
export class OutputFullError extends TransportError {
  declare readonly code: "output_full";
  declare readonly name: "OutputFullError";
  /** The output bound (`maxQueuedOutputBytes`) that was full. */
  readonly limitBytes: number;
  constructor(limitBytes: number, options?: TransportErrorOptions) {
    super("output_full", `Output queue is full (maxQueuedOutputBytes ${limitBytes} bytes)`, options);
    this.name = "OutputFullError";
    this.limitBytes = limitBytes;
    mark(this, "output_full");
  }
  static override [Symbol.hasInstance](value: unknown): value is OutputFullError {
    return isCoded(OutputFullError, this, "output_full", value);
  }
}

/** What {@linkcode MessageTooLargeError} accepts besides the limit. */
export interface MessageTooLargeErrorOptions extends TransportErrorOptions {
  /** Bytes of the line read when the limit was crossed: a lower bound of its size. */
  sizeBytes?: number;
  /** The id of the request the discarded line answered, when it could be read from the line's head or tail. */
  requestId?: string | number;
}

/**
 * An input line was longer than `maxMessageBytes`; it was discarded without being buffered whole.
 * When the line was a reply, the request it answered rejects with this error (`requestId` set).
 */
export class MessageTooLargeError extends TransportError {
  declare readonly code: "message_too_large";
  declare readonly name: "MessageTooLargeError";
  /** The `maxMessageBytes` bound the line exceeded. */
  readonly limitBytes: number;
  /** Bytes of the line read when the limit was crossed (a lower bound of its size), when known. */
  readonly sizeBytes: number | undefined;
  /** The id of the request the line answered, when known. */
  readonly requestId: string | number | undefined;
  constructor(limitBytes: number, options?: MessageTooLargeErrorOptions) {
    const size = options?.sizeBytes === undefined
      ? "Message"
      : `Message of at least ${options.sizeBytes} bytes`;
    const reply = options?.requestId === undefined
      ? ""
      : ` (the reply to request ${quotePeerText(options.requestId)})`;
    super(
      "message_too_large",
      `${size}${reply} exceeds maxMessageBytes (${limitBytes} bytes): the line was discarded`,
      options,
    );
    this.name = "MessageTooLargeError";
    this.limitBytes = limitBytes;
    this.sizeBytes = options?.sizeBytes;
    this.requestId = options?.requestId;
    mark(this, "message_too_large");
  }
  static override [Symbol.hasInstance](value: unknown): value is MessageTooLargeError {
    return isCoded(MessageTooLargeError, this, "message_too_large", value);
  }
}

/** An input line was not valid JSON. `line` holds at most its first 200 characters. */
export class ParseError extends TransportError {
  declare readonly code: "parse";
  declare readonly name: "ParseError";
  /** The first 200 characters of the line. */
  readonly line: string;
  constructor(line: string, options?: TransportErrorOptions) {
    super("parse", `Invalid JSON on input: ${quotePeerText(line, 200)}`, options);
    this.name = "ParseError";
    this.line = line.slice(0, 200);
    mark(this, "parse");
  }
  static override [Symbol.hasInstance](value: unknown): value is ParseError {
    return isCoded(ParseError, this, "parse", value);
  }
}

/** An input line held bytes that are not UTF-8. */
export class InvalidUtf8Error extends TransportError {
  declare readonly code: "invalid_utf8";
  declare readonly name: "InvalidUtf8Error";
  constructor(options?: TransportErrorOptions) {
    super("invalid_utf8", "Input line is not valid UTF-8: the line was discarded", options);
    this.name = "InvalidUtf8Error";
    mark(this, "invalid_utf8");
  }
  static override [Symbol.hasInstance](value: unknown): value is InvalidUtf8Error {
    return isCoded(InvalidUtf8Error, this, "invalid_utf8", value);
  }
}

/** Writing to the underlying stream failed; the output side is closed and nothing more is written. */
export class WriteFailedError extends TransportError {
  declare readonly code: "write_failed";
  declare readonly name: "WriteFailedError";
  constructor(options?: TransportErrorOptions) {
    super("write_failed", "Writing to the output stream failed: output is closed", options);
    this.name = "WriteFailedError";
    mark(this, "write_failed");
  }
  static override [Symbol.hasInstance](value: unknown): value is WriteFailedError {
    return isCoded(WriteFailedError, this, "write_failed", value);
  }
}

/** Reading from the underlying stream failed (not a clean end of input): input is closed, and the failure is the `cause`. */
export class ReadFailedError extends TransportError {
  declare readonly code: "read_failed";
  declare readonly name: "ReadFailedError";
  constructor(options?: TransportErrorOptions) {
    super("read_failed", "Reading from the input stream failed: input is closed", options);
    this.name = "ReadFailedError";
    mark(this, "read_failed");
  }
  static override [Symbol.hasInstance](value: unknown): value is ReadFailedError {
    return isCoded(ReadFailedError, this, "read_failed", value);
  }
}

/** A spawned server process exited; carries its exit code, signal and the tail of its stderr. */
export class ProcessExitedError extends TransportError {
  declare readonly code: "process_exited";
  declare readonly name: "ProcessExitedError";
  /** The exit code, or null when a signal ended the process. */
  readonly exitCode: number | null;
  /** The signal that ended the process, or null. */
  readonly signal: string | null;
  /** The last lines the process wrote to stderr ("" when none were kept). */
  readonly stderrTail: string;
  constructor(
    exitCode: number | null,
    signal: string | null,
    stderrTail: string,
    options?: TransportErrorOptions,
  ) {
    const how = signal ? `signal ${signal}` : `exit code ${exitCode}`;
    const tail = stderrTail ? `; stderr tail:\n${stderrTail}` : "";
    super("process_exited", `Server process exited (${how})${tail}`, options);
    this.name = "ProcessExitedError";
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderrTail = stderrTail;
    mark(this, "process_exited");
  }
  static override [Symbol.hasInstance](value: unknown): value is ProcessExitedError {
    return isCoded(ProcessExitedError, this, "process_exited", value);
  }
}

/** An option was negative, not a number, or otherwise out of range; the message names it. */
export class InvalidOptionError extends TransportError {
  declare readonly code: "invalid_option";
  declare readonly name: "InvalidOptionError";
  constructor(message: string, options?: TransportErrorOptions) {
    super("invalid_option", message, options);
    this.name = "InvalidOptionError";
    mark(this, "invalid_option");
  }
  static override [Symbol.hasInstance](value: unknown): value is InvalidOptionError {
    return isCoded(InvalidOptionError, this, "invalid_option", value);
  }
}

/** The peer broke the protocol (a bad message, a reused id, a reply nobody asked for), or a store failed. */
export class ProtocolError extends TransportError {
  declare readonly code: "protocol";
  declare readonly name: "ProtocolError";
  constructor(message: string, options?: TransportErrorOptions) {
    super("protocol", message, options);
    this.name = "ProtocolError";
    mark(this, "protocol");
  }
  static override [Symbol.hasInstance](value: unknown): value is ProtocolError {
    return isCoded(ProtocolError, this, "protocol", value);
  }
}

/** A request was cancelled (by the peer's `notifications/cancelled`, or by the caller's signal). */
export class CancelledError extends TransportError {
  declare readonly code: "cancelled";
  declare readonly name: "CancelledError";
  constructor(message: string, options?: TransportErrorOptions) {
    super("cancelled", message, options);
    this.name = "CancelledError";
    mark(this, "cancelled");
  }
  static override [Symbol.hasInstance](value: unknown): value is CancelledError {
    return isCoded(CancelledError, this, "cancelled", value);
  }
}

/** The client could not agree on a protocol era and version with the server; the message says what it answered. */
export class NegotiationFailedError extends TransportError {
  declare readonly code: "negotiation_failed";
  declare readonly name: "NegotiationFailedError";
  constructor(message: string, options?: TransportErrorOptions) {
    super("negotiation_failed", message, options);
    this.name = "NegotiationFailedError";
    mark(this, "negotiation_failed");
  }
  static override [Symbol.hasInstance](value: unknown): value is NegotiationFailedError {
    return isCoded(NegotiationFailedError, this, "negotiation_failed", value);
  }
}

/** Every {@linkcode TransportError} subclass: `switch (error.code)` narrows to one of them. */
export type AnyTransportError =
  | ClosedError
  | TimeoutError
  | OutputFullError
  | MessageTooLargeError
  | ParseError
  | InvalidUtf8Error
  | WriteFailedError
  | ReadFailedError
  | ProcessExitedError
  | InvalidOptionError
  | ProtocolError
  | CancelledError
  | NegotiationFailedError;

/** A JSON-RPC error object, received from the peer or to be sent to it (thrown from a handler). */
export class JsonRpcError extends Error {
  /** The JSON-RPC error code (see {@linkcode ErrorCodes}). */
  readonly code: number;
  /** The error object's `data`, when it had one. */
  readonly data?: unknown;
  declare readonly name: "JsonRpcError";
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
    if (data !== undefined) this.data = data;
    Object.defineProperty(this, JSON_RPC_BRAND, {
      value: true,
      configurable: true,
      enumerable: false,
      writable: false,
    });
  }
  /** True for a JSON-RPC error from any copy of the package; `instanceof` a subclass narrows to it. */
  static override [Symbol.hasInstance]<T>(this: new (...a: never[]) => T, value: unknown): value is T {
    if ((this as unknown) !== JsonRpcError) return ordinaryInstanceOf.call(this, value);
    return typeof value === "object" && value !== null &&
      (value as { [JSON_RPC_BRAND]?: unknown })[JSON_RPC_BRAND] === true;
  }
}

/** Standard JSON-RPC and MCP error codes. */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** True for any error raised by onemodelcontext, also across duplicate copies of the package (= `instanceof TransportError`). */
export function isTransportError(value: unknown): value is AnyTransportError {
  return value instanceof TransportError;
}

/** `value` itself when it is an `Error`; otherwise an `Error` whose message is `String(value)` and whose `cause` is `value`. */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value), { cause: value });
}
