/**
 * `RequestCancel`: the cancel signal of one HTTP request's work, made only when something reads it.
 * Most requests end with a JSON reply and nobody observes their signal: neither an AbortController
 * nor a listener on the request's own signal is made for them.
 * @module
 */
import { CancelledError } from "../../wire/errors.ts";

/**
 * Aborts when {@linkcode RequestCancel.abort} is called or the request's own `signal` aborts (the
 * client went away), whichever comes first; the reason of a disconnect is a `CancelledError`
 * with `message` and the request signal's reason as its cause.
 *
 * @example
 * ```ts
 * declare const request: Request;
 * const cancel = new RequestCancel(request, "The client closed the response (HTTP disconnect)");
 * const context = { get signal() { return cancel.signal; } };
 * ```
 */
export class RequestCancel {
  /** Dropped once its signal is read: a long stream keeps no request (a web `Request` may hold its body's source). */
  #request: { readonly signal: AbortSignal } | undefined;
  readonly #message: string;
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  /** Callbacks of {@linkcode RequestCancel.whenAborted} taken while no signal exists: one, or a list. */
  #callbacks: (() => void) | (() => void)[] | undefined;

  constructor(request: { readonly signal: AbortSignal }, message: string) {
    this.#request = request;
    this.#message = message;
  }

  /** The signal of the work: made, and linked to the request's signal, on first read. */
  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    if (this.#aborted) {
      controller.abort(this.#reason);
    } else if (this.#request) {
      const signal = this.#request.signal;
      this.#request = undefined;
      const abort = (): void => this.abort(this.#disconnected(signal));
      if (signal.aborted) abort();
      else signal.addEventListener("abort", abort, { once: true });
    }
    return controller.signal;
  }

  /**
   * Calls `callback` once the work is cancelled (at once if it is). While the request's own signal
   * is not watched (see {@linkcode RequestCancel.watchStreamOnly}) and no signal was made, it is
   * kept as it is: no AbortController, no listener.
   */
  whenAborted(callback: () => void): void {
    if (this.#aborted) return callback();
    if (this.#controller || this.#request) {
      this.signal.addEventListener("abort", callback, { once: true });
      return;
    }
    const callbacks = this.#callbacks;
    this.#callbacks = callbacks === undefined
      ? callback
      : typeof callbacks === "function"
      ? [callbacks, callback]
      : [...callbacks, callback];
  }

  /**
   * The response's stream reports the client leaving by itself (serve() on Node cancels a
   * `StreamReply`'s stream when its connection closes): the request's own signal is not watched, so
   * a long stream holds no listener and no AbortController of the request's.
   */
  watchStreamOnly(): void {
    if (!this.#controller) this.#request = undefined;
  }

  /** Cancels the work with `reason` (once; a disconnect that came first wins, as if it had been observed then). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    if (!this.#controller) {
      // Nobody listened to the request's signal yet: a disconnect that already happened came first.
      const signal = this.#request?.signal;
      if (signal?.aborted) reason = this.#disconnected(signal);
    }
    this.#request = undefined;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const callbacks = this.#callbacks;
    this.#callbacks = undefined;
    if (typeof callbacks === "function") callbacks();
    else if (callbacks !== undefined) { for (const callback of callbacks) callback(); }
  }

  #disconnected(signal: AbortSignal): CancelledError {
    return new CancelledError(this.#message, { cause: signal.reason });
  }
}

/** The reason's message when the client's disconnect cancels a request. */
export const DISCONNECTED = "The client closed the response (HTTP disconnect)";

/** A ResponseChannel's onCancel that aborts `controller`: the client stopped reading the response stream. */
export function stoppedReading(controller: Pick<AbortController, "abort">): (reason: unknown) => void {
  return (reason) =>
    controller.abort(new CancelledError("The client stopped reading the response stream", { cause: reason }));
}
