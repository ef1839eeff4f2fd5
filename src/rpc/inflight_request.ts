/**
 * One request from the peer being handled, with its cancellation state.
 * @module
 */

/** How many handlers of a connection still owe their reply: started, result not yet produced. */
export interface OwedReplies {
  count: number;
}

/** A request being handled. Its `AbortController` is made only when someone asks for the signal. */
export class InflightRequest {
  cancelledByPeer = false;
  done = false;
  readonly #owed: OwedReplies | undefined;
  #controller: AbortController | undefined;
  #abortedWith: { reason: unknown } | undefined;

  /** Counts itself in `owed` until {@linkcode answered}. */
  constructor(owed?: OwedReplies) {
    this.#owed = owed;
    if (owed) owed.count++;
  }

  /** The handler produced its result (or failed): the reply is the output queue's to count from now on. */
  answered(): void {
    if (this.done) return;
    this.done = true;
    if (this.#owed) this.#owed.count--;
  }

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
