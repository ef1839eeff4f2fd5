/**
 * The errors of the client feature API: one class with a stable literal `code`, and the
 * `structuredContent` mismatch with the tool, the issues and the result that failed.
 * @module
 */
import type { SchemaIssue } from "../../schema/schema_validator.ts";

/** The stable codes of {@linkcode ClientFeatureError}. */
export type ClientFeatureErrorCode =
  /** A list had more pages than `maxPages` or more items than `maxItems`. */
  | "list_too_long"
  /** A server handed out a cursor it had handed out before in the same listing (a loop). */
  | "repeated_cursor"
  /** A result did not have the shape its method requires (e.g. `tools` is not an array). */
  | "invalid_result"
  /** A tool's `structuredContent` is missing or does not match its output schema. */
  | "structured_content_invalid"
  /** A tool's output schema could not be compiled, so its results cannot be checked. */
  | "output_schema_invalid"
  /** The server asked for input (modern `input_required`) and nothing could answer it. */
  | "input_required"
  /** The method does not exist in the negotiated era (e.g. `resources/subscribe` in the modern era). */
  | "unsupported_in_era"
  /** A legacy listen stream broke off because the connection closed. */
  | "listen_ended";

/** Instances carry this key, valued with their class name, so `instanceof` works across copies of the package. */
const BRAND: unique symbol = Symbol.for("onemodelcontext.clientFeatureError") as never;
const ordinaryInstanceOf = Function.prototype[Symbol.hasInstance];

function mark(error: Error, name: string): void {
  Object.defineProperty(error, BRAND, {
    value: name,
    configurable: true,
    enumerable: false,
    writable: false,
  });
}

function brandOf(value: unknown): unknown {
  return typeof value === "object" && value !== null ? (value as { [BRAND]?: unknown })[BRAND] : undefined;
}

/** An error of the client feature API (`listTools`, `callTool`, `listen`…); `code` is stable. */
export class ClientFeatureError extends Error {
  /** Stable and safe to branch on. */
  readonly code: ClientFeatureErrorCode;
  constructor(code: ClientFeatureErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = "ClientFeatureError";
    mark(this, "ClientFeatureError");
  }
  /** True for a feature error from this copy of the package or another; narrows to {@linkcode AnyClientFeatureError}. */
  static override [Symbol.hasInstance](value: unknown): value is AnyClientFeatureError {
    if (this !== ClientFeatureError) return ordinaryInstanceOf.call(this, value);
    return typeof brandOf(value) === "string";
  }
}

/**
 * A tool result whose `structuredContent` is missing or does not match the tool's output schema (as
 * the last `tools/list` gave it). `result` is the whole result, for a caller that wants it anyway.
 */
export class StructuredContentError extends ClientFeatureError {
  declare readonly code: "structured_content_invalid";
  readonly tool: string;
  readonly issues: readonly SchemaIssue[];
  readonly result: unknown;
  constructor(tool: string, issues: readonly SchemaIssue[], result: unknown) {
    const first = issues[0];
    const where = first ? ` at ${JSON.stringify(first.path)}: ${first.message}` : "";
    super(
      "structured_content_invalid",
      `Tool ${JSON.stringify(tool)} returned structuredContent that does not match its output schema${where}`,
    );
    this.name = "StructuredContentError";
    this.tool = tool;
    this.issues = issues;
    this.result = result;
    mark(this, "StructuredContentError");
  }
  static override [Symbol.hasInstance](value: unknown): value is StructuredContentError {
    if (this !== StructuredContentError) return ordinaryInstanceOf.call(this, value);
    return brandOf(value) === "StructuredContentError";
  }
}

/**
 * A modern request answered `input_required` that the client could not fulfil (no handler for a
 * requested method, or too many rounds). `result` is the server's `InputRequiredResult`, for a caller
 * that answers it by hand (retry with `inputResponses` and the same `requestState`).
 */
export class InputRequiredError extends ClientFeatureError {
  declare readonly code: "input_required";
  readonly method: string;
  readonly result: unknown;
  constructor(method: string, result: unknown, reason: string) {
    super("input_required", `Request ${JSON.stringify(method)} needs input from the client: ${reason}`);
    this.name = "InputRequiredError";
    this.method = method;
    this.result = result;
    mark(this, "InputRequiredError");
  }
  static override [Symbol.hasInstance](value: unknown): value is InputRequiredError {
    if (this !== InputRequiredError) return ordinaryInstanceOf.call(this, value);
    return brandOf(value) === "InputRequiredError";
  }
}

/**
 * Every feature error: `switch (error.code)` after `error instanceof ClientFeatureError` narrows to
 * {@linkcode StructuredContentError} or {@linkcode InputRequiredError} and their fields.
 */
export type AnyClientFeatureError =
  | StructuredContentError
  | InputRequiredError
  | (ClientFeatureError & {
    readonly code: Exclude<ClientFeatureErrorCode, "structured_content_invalid" | "input_required">;
  });
