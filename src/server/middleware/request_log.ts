/**
 * `logRequests()`: a middleware that times each request and hands one entry per request to a sink.
 * @module
 */
import type { TimeProvider } from "../../stream/time_provider.ts";
import { systemTimeProvider } from "../../stream/time_provider.ts";
import { JsonRpcError } from "../../wire/errors.ts";
import type { Middleware } from "../middleware.ts";

/** One request as {@linkcode logRequests} reports it. */
export interface RequestLogEntry {
  method: string;
  era: "modern" | "legacy";
  principal: string | undefined;
  /** Milliseconds from entering this middleware to the result or error. */
  durationMs: number;
  outcome: "ok" | "error";
  /** The JSON-RPC error code, when the outcome is an error that has one. */
  errorCode?: number;
}

/** Options of {@linkcode logRequests}. */
export interface RequestLogOptions {
  /**
   * The clock of `durationMs`. Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
}

/**
 * Calls `log` once per request, after it is answered. A throwing `log` is ignored: logging never
 * changes an answer.
 *
 * @example
 * ```ts ignore
 * server.use(logRequests((e) => console.error(`${e.method} ${e.outcome} ${e.durationMs.toFixed(1)} ms`)));
 * ```
 */
export function logRequests(
  log: (entry: RequestLogEntry) => void,
  options: RequestLogOptions = {},
): Middleware {
  const time = options.timeProvider ?? systemTimeProvider;
  const write = (entry: RequestLogEntry) => {
    try {
      log(entry);
    } catch {
      // A failing sink must not change the request's answer.
    }
  };
  return async (context, next) => {
    const start = time.now();
    const base = { method: context.method, era: context.era, principal: context.principal };
    try {
      const result = await next();
      write({ ...base, durationMs: time.now() - start, outcome: "ok" });
      return result;
    } catch (error) {
      write({
        ...base,
        durationMs: time.now() - start,
        outcome: "error",
        ...(error instanceof JsonRpcError ? { errorCode: error.code } : {}),
      });
      throw error;
    }
  };
}
