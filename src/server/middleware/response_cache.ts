/**
 * `responseCache()`: a middleware that answers repeated list requests (`tools/list`, `prompts/list`,
 * `resources/list`, `resources/templates/list`) from memory for as long as their `ttlMs` says.
 * @module
 */
import { integerOption, numberOption } from "../../stream/options.ts";
import type { TimeProvider } from "../../stream/time_provider.ts";
import { systemTimeProvider } from "../../stream/time_provider.ts";
import { JsonText } from "../../wire/json_text.ts";
import type { Middleware, MiddlewareContext } from "../middleware.ts";

/** Options of {@linkcode responseCache}. */
export interface ResponseCacheOptions {
  /**
   * Methods cached. Default the four list methods.
   * @default the four list methods
   */
  methods?: readonly string[];
  /**
   * How long a result without a `ttlMs` of its own (legacy results) is kept, in ms; 0 keeps none.
   * A modern result's `ttlMs` always wins. Default 0.
   * @default 0
   */
  ttlMs?: number;
  /**
   * Results kept at once; the oldest goes first. Default 256.
   * @default 256
   */
  maxEntries?: number;
  /**
   * The clock of expiry. Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
  /**
   * The cache key's client part. Default `ctx.clientKey` (results may differ per principal).
   * @default ctx.clientKey
   */
  key?: (context: MiddlewareContext) => string;
}

const LIST_METHODS = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"];

/** The `ttlMs` a result carries (modern results do), else `undefined`. */
function ttlOf(result: unknown): number | undefined {
  if (result instanceof JsonText) {
    const match = /"ttlMs":(\d+)/.exec(result.text);
    return match === null ? undefined : Number(match[1]);
  }
  const ttl = (result as { ttlMs?: unknown } | undefined)?.ttlMs;
  return typeof ttl === "number" ? ttl : undefined;
}

/** Everything of the params but `_meta`, as a key. */
function paramsKey(params: unknown): string {
  if (typeof params !== "object" || params === null) return "";
  const { _meta: _ignored, ...rest } = params as Record<string, unknown>;
  return JSON.stringify(rest);
}

/**
 * Caches list results per method, era, params (the cursor) and client for their `ttlMs`.
 *
 * @example
 * ```ts ignore
 * server.use(responseCache({ ttlMs: 5_000 }));
 * ```
 */
export function responseCache(options: ResponseCacheOptions = {}): Middleware {
  const methods = new Set(options.methods ?? LIST_METHODS);
  const fallbackTtl = numberOption("ttlMs", options.ttlMs, 0);
  const maxEntries = integerOption("maxEntries", options.maxEntries, 256, 1);
  const time = options.timeProvider ?? systemTimeProvider;
  const clientOf = options.key ?? ((context: MiddlewareContext) => context.clientKey);
  const entries = new Map<string, { result: unknown; expires: number }>();
  return async (context, next) => {
    if (!methods.has(context.method)) return await next();
    const key = `${context.method}\u0000${context.era}\u0000${clientOf(context)}\u0000${
      paramsKey(context.params)
    }`;
    const hit = entries.get(key);
    if (hit !== undefined) {
      if (hit.expires > time.now()) return hit.result;
      entries.delete(key);
    }
    const result = await next();
    const ttl = ttlOf(result) ?? fallbackTtl;
    if (ttl > 0) {
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { result, expires: time.now() + ttl });
    }
    return result;
  };
}
