/**
 * `whenCancelled`: runs a callback once a request's work is cancelled, without making its
 * `AbortSignal` when the context can tell it another way. An `AbortSignal` (an `AbortController`
 * with an `EventTarget`, two maps and a listener) is most of what an idle listen stream's wait
 * costs; a context of the HTTP handler keeps one callback instead.
 * @module
 */

/** A context method: calls the callback once when the request is cancelled (at once if it is). */
export const WHEN_CANCELLED: unique symbol = Symbol("onemodelcontext.server.whenCancelled");

/** What {@linkcode whenCancelled} reads: a context's signal, and its cheaper hook when it has one. */
export interface CancellableContext {
  readonly signal: AbortSignal;
  [WHEN_CANCELLED]?: (callback: () => void) => void;
}

/**
 * Calls `callback` once when `context`'s work is cancelled, at once if it already is: through the
 * context's {@linkcode WHEN_CANCELLED} hook when it has one, else with a listener on its signal.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * whenCancelled({ signal: controller.signal }, () => console.log("cancelled"));
 * controller.abort(); // logs "cancelled"
 * ```
 */
export function whenCancelled(context: CancellableContext, callback: () => void): void {
  const hook = context[WHEN_CANCELLED];
  if (hook !== undefined) return hook.call(context, callback);
  const signal = context.signal;
  if (signal.aborted) callback();
  else signal.addEventListener("abort", callback, { once: true });
}
