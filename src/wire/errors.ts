/**
 * Every error the library raises: one base class with a stable literal `code`, and the JSON-RPC error.
 * @module
 */

/** The stable codes of {@linkcode TransportError}. */
export type TransportErrorCode =
  | "closed"
  | "timeout"
  | "output_full"
  | "message_too_large"
  | "parse"
  | "invalid_utf8"
  | "write_failed"
  | "process_exited"
  | "invalid_option"
  | "protocol"
  | "cancelled"
  | "negotiation_failed";

const BRAND = Symbol.for("onemodelcontext.error");

/** Base of every error raised by onemodelcontext; `code` is stable and safe to branch on. */
export class TransportError extends Error {
  readonly code: TransportErrorCode;
  constructor(code: TransportErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = "TransportError";
    (this as unknown as Record<symbol, boolean>)[BRAND] = true;
  }
}

/** The stream or connection is closed; nothing more can be sent or received on it. */
export class ClosedError extends TransportError {
  constructor(message = "The connection is closed", options?: { cause?: unknown }) {
    super("closed", message, options);
    this.name = "ClosedError";
  }
}

/** A bounded wait ran out. `timeoutMs` names the bound that was hit. */
export class TimeoutError extends TransportError {
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, options?: { cause?: unknown }) {
    super("timeout", message, options);
    this.name = "TimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/** An input line was longer than `maxMessageBytes`; it was discarded without being buffered whole. */
export class MessageTooLargeError extends TransportError {
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super("message_too_large", `Message exceeds maxMessageBytes (${limitBytes} bytes): the line was discarded`);
    this.name = "MessageTooLargeError";
    this.limitBytes = limitBytes;
  }
}

/** An input line was not valid JSON. `line` holds at most its first 200 characters. */
export class ParseError extends TransportError {
  readonly line: string;
  constructor(line: string, options?: { cause?: unknown }) {
    super("parse", `Invalid JSON on input: ${JSON.stringify(line.slice(0, 200))}`, options);
    this.name = "ParseError";
    this.line = line.slice(0, 200);
  }
}

/** An input line held bytes that are not UTF-8. */
export class InvalidUtf8Error extends TransportError {
  constructor() {
    super("invalid_utf8", "Input line is not valid UTF-8: the line was discarded");
    this.name = "InvalidUtf8Error";
  }
}

/** Writing to the underlying stream failed; the output side is closed and nothing more is written. */
export class WriteFailedError extends TransportError {
  constructor(options?: { cause?: unknown }) {
    super("write_failed", "Writing to the output stream failed: output is closed", options);
    this.name = "WriteFailedError";
  }
}

/** An option was negative, not a number, or otherwise out of range. */
export class InvalidOptionError extends TransportError {
  constructor(message: string) {
    super("invalid_option", message);
    this.name = "InvalidOptionError";
  }
}

/** A spawned server process exited; carries its exit code, signal and the tail of its stderr. */
export class ProcessExitedError extends TransportError {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stderrTail: string;
  constructor(exitCode: number | null, signal: string | null, stderrTail: string, options?: { cause?: unknown }) {
    const how = signal ? `signal ${signal}` : `exit code ${exitCode}`;
    const tail = stderrTail ? `; stderr tail:\n${stderrTail}` : "";
    super("process_exited", `Server process exited (${how})${tail}`, options);
    this.name = "ProcessExitedError";
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderrTail = stderrTail;
  }
}

/** A JSON-RPC error object, received from the peer or to be sent to it. */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
    if (data !== undefined) this.data = data;
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

/** True for any error raised by onemodelcontext, also across duplicate copies of the package. */
export function isTransportError(value: unknown): value is TransportError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
