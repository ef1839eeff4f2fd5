/**
 * `LogLevels`: which `notifications/message` a request may carry. Legacy sessions set their level with
 * `logging/setLevel` (the host keeps it per session); a modern request carries its own in `_meta` and
 * gets nothing without it.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject, LOGGING_LEVELS, type LoggingLevel } from "../../wire/meta_envelope.ts";
import type { FeatureHost, FeatureRequestContext } from "./feature_host.ts";

const RANK: Readonly<Record<string, number>> = Object.fromEntries(
  LOGGING_LEVELS.map((level, index) => [level, index]),
);

/** True when `level` is one of the eight MCP logging levels. */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === "string" && Object.hasOwn(RANK, value);
}

/** True when a message at `level` passes a minimum of `minimum`. */
export function passesLevel(level: LoggingLevel, minimum: LoggingLevel): boolean {
  return RANK[level] >= RANK[minimum];
}

/** The log level rules of both eras, and the `logging/setLevel` handler. */
export class LogLevels {
  readonly #host: FeatureHost;

  constructor(host: FeatureHost) {
    this.#host = host;
  }

  /**
   * The minimum level for messages of this request, or `undefined` when none may be sent: a modern
   * request without `_meta` log level. A legacy session that never set a level gets every message
   * (`"debug"`), as the official SDKs do.
   */
  minimumFor(context: FeatureRequestContext): LoggingLevel | undefined {
    return context.era === "modern" ? context.logLevel : (context.logLevel ?? "debug");
  }

  /** `logging/setLevel` (legacy only; removed in 2026-07-28). */
  setLevel(params: unknown, context: FeatureRequestContext): Record<string, never> {
    if (context.era === "modern") {
      throw new JsonRpcError(
        ErrorCodes.MethodNotFound,
        "Method not found: logging/setLevel (removed in 2026-07-28: set io.modelcontextprotocol/logLevel in each request's _meta)",
      );
    }
    const level = isPlainObject(params) ? params.level : undefined;
    if (!isLoggingLevel(level)) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        `Invalid params: level must be one of ${LOGGING_LEVELS.join(", ")}, got ${
          JSON.stringify(level) ?? "nothing"
        }`,
      );
    }
    // A request without a session (stateless legacy HTTP) has nothing to remember the level in.
    if (context.session !== undefined) this.#host.setLogLevel(context.session, level);
    return {};
  }
}
