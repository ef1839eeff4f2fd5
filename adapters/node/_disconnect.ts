/**
 * `Disconnect`: what aborts the signal of a request `serve()` on Node hands its handler (the
 * response closed before it finished). Most requests end without anyone reading that signal: its
 * AbortController is made only when it is.
 * @module
 */

/**
 * What aborts a `NodeRequest`'s signal: the response closed before it finished. Its
 * AbortController is made only when the signal is read; one made after the abort starts aborted.
 *
 * @example
 * ```ts
 * import type { ServerResponse } from "node:http";
 * declare const res: ServerResponse;
 * const disconnect = new Disconnect();
 * res.once("close", () => void (res.writableFinished || disconnect.abort(new ClosedError("Gone"))));
 * ```
 */
export class Disconnect {
  #controller: AbortController | undefined;
  #reason: Error | undefined;
  #watcher: DisconnectWatcher | undefined;

  /** Aborted once the client went away; made on first read. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** The client went away: the signal (now or when made) aborts with `reason`, and the watcher is told. */
  abort(reason: Error): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.#watcher?.disconnected(reason);
  }

  /**
   * Tells `watcher` when the client goes away (at once if it went already): a response writer
   * (an SSE stream's) watches this way, with no listener, closure or signal of its own. One watcher.
   */
  watch(watcher: DisconnectWatcher): void {
    this.#watcher = watcher;
    if (this.#reason) watcher.disconnected(this.#reason);
  }
}

/** What {@linkcode Disconnect.watch} tells. */
export interface DisconnectWatcher {
  disconnected(reason: Error): void;
}
