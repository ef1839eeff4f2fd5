/**
 * One request from the peer being handled, with its cancellation state.
 * @module
 */

/** A request being handled. Its `AbortController` is made only when someone asks for the signal. */
export class InflightRequest {
  cancelledByPeer = false;
  done = false;
  #controller: AbortController | undefined;
  #abortedWith: { reason: unknown } | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#abortedWith) this.#controller.abort(this.#abortedWith.reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#abortedWith !== undefined;
  }

  abort(reason: unknown): void {
    if (this.#abortedWith) return;
    this.#abortedWith = { reason };
    this.#controller?.abort(reason);
  }
}
