/**
 * `notifierOf`: a request context's `notify` as a function that holds only the transport, not the
 * context (which holds the request: its params and envelope). Whatever outlives its request and
 * only sends notifications (a listen stream) keeps this, so an idle stream keeps no request.
 * @module
 */

/** Sends one notification related to a request. */
export type Notify = (method: string, params?: unknown) => Promise<void>;

/** A context method (`ServerContext` has it) returning its detached {@linkcode Notify}. */
export const DETACHED_NOTIFY: unique symbol = Symbol("onemodelcontext.server.detachedNotify");

/** What {@linkcode notifierOf} reads: a context's `notify`, and its detached form when it has one. */
export interface NotifyingContext {
  notify(method: string, params?: unknown): Promise<void>;
  [DETACHED_NOTIFY]?: () => Notify;
}

/** `context`'s detached notifier; a context without one (a test double) is bound as it is. */
export function notifierOf(context: NotifyingContext): Notify {
  return context[DETACHED_NOTIFY]?.() ?? ((method, params) => context.notify(method, params));
}
