/**
 * Credit-based flow control for transports without backpressure (a `MessagePort`): the reader grants a
 * window of bytes and hands credit back as its consumer pulls; the writer sends only what it holds
 * credit for. Pure bookkeeping: no I/O, no timers.
 * @module
 */
import { type Deferred, deferred } from "../../src/stream/deferred.ts";
import { InvalidOptionError } from "../../src/wire/errors.ts";
import { integerOption } from "../../src/stream/options.ts";

/**
 * The writer's side: credit granted by the peer and not yet used. The first grant is taken as the
 * peer's window, so {@linkcode SendCredit.bytesInTransit} (sent and not yet handed back) is known.
 *
 * @example
 * ```ts
 * declare const signal: AbortSignal, chunk: Uint8Array;
 * const credit = new SendCredit();
 * credit.grant(262_144);                 // the peer's window arrives
 * await credit.wait(signal);             // resolves while credit > 0
 * const n = credit.take(chunk.byteLength); // send n bytes now
 * ```
 */
export class SendCredit {
  #available = 0;
  #window: number | undefined;
  #maxInTransit = 0;
  #failure: Error | undefined;
  #waiter: Deferred | undefined;

  /** Bytes that may be sent now. */
  get available(): number {
    return this.#available;
  }

  /** Bytes sent that the peer has not handed back yet: in the port or in its buffer. At most its window. */
  get bytesInTransit(): number {
    return this.#window === undefined ? 0 : this.#window - this.#available;
  }

  /** The highest {@linkcode bytesInTransit} so far. */
  get maxBytesInTransit(): number {
    return this.#maxInTransit;
  }

  /** The error that ended sending, if any. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Adds `bytes` of credit from the peer and wakes a waiting writer. Throws on a count that is not a positive safe integer. */
  grant(bytes: number): void {
    if (!Number.isSafeInteger(bytes) || bytes <= 0) {
      throw new InvalidOptionError(`A credit grant must be a positive integer, got ${String(bytes)}`);
    }
    if (this.#failure) return;
    this.#window ??= bytes;
    this.#available += bytes;
    this.#wake();
  }

  /** Uses up to `wanted` bytes of credit; returns how many may be sent now (0 when none). */
  take(wanted: number): number {
    const n = Math.max(0, Math.min(this.#available, wanted));
    this.#available -= n;
    this.#maxInTransit = Math.max(this.#maxInTransit, this.bytesInTransit);
    return n;
  }

  /** Resolves once credit is available; rejects with the failure, or with the signal's reason if it aborts first. */
  async wait(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (this.#failure) throw this.#failure;
      signal?.throwIfAborted();
      if (this.#available > 0) return;
      this.#waiter ??= deferred();
      const next = this.#waiter.promise;
      if (!signal) {
        await next;
        continue;
      }
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        void next.then(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    }
  }

  /** Ends sending: every waiting and later {@linkcode wait} rejects with `error`. The first failure wins. */
  fail(error: Error): void {
    this.#failure ??= error;
    this.#wake();
  }

  #wake(): void {
    const current = this.#waiter;
    this.#waiter = undefined;
    current?.resolve();
  }
}

/**
 * The reader's side: how much the peer may still send, and when to hand credit back. Credit returns
 * in batches of a quarter window, so a writer whose reader keeps up always holds at least three
 * quarters of a window, and a reader whose buffer is empty has always handed back enough to unblock it.
 *
 * @example
 * ```ts
 * declare function post(message: { credit: number }): void;
 * declare const data: Uint8Array, chunk: Uint8Array;
 * const window = new ReceiveCredit(262_144);
 * post({ credit: window.initialGrant() });
 * if (!window.accept(data.byteLength)) throw new Error("peer overran its credit");
 * const back = window.consumed(chunk.byteLength); // after the consumer pulled a chunk
 * if (back > 0) post({ credit: back });
 * ```
 */
export class ReceiveCredit {
  /** The window: the most bytes the peer may have sent and this side's consumer not yet pulled. */
  readonly windowBytes: number;
  /** Bytes pulled since the last hand-back at which credit is handed back. */
  readonly batchBytes: number;
  #outstanding = 0;
  #consumed = 0;

  constructor(windowBytes: number) {
    this.windowBytes = integerOption("receiveWindowBytes", windowBytes, windowBytes, 1);
    if (!Number.isSafeInteger(this.windowBytes)) {
      throw new InvalidOptionError(
        `Option receiveWindowBytes must be a finite integer, got ${this.windowBytes}`,
      );
    }
    this.batchBytes = Math.max(1, Math.floor(this.windowBytes / 4));
  }

  /** Credit granted to the peer and not yet used by it. */
  get outstanding(): number {
    return this.#outstanding;
  }

  /** The first grant: the whole window. Call once, when the connection starts. */
  initialGrant(): number {
    this.#outstanding += this.windowBytes;
    return this.windowBytes;
  }

  /** Records `bytes` arriving; returns false (and records nothing) when the peer had less credit than that. */
  accept(bytes: number): boolean {
    if (bytes > this.#outstanding) return false;
    this.#outstanding -= bytes;
    return true;
  }

  /** Records `bytes` pulled by the consumer; returns the credit to hand back now (0 until a batch is due). */
  consumed(bytes: number): number {
    this.#consumed += bytes;
    if (this.#consumed < this.batchBytes) return 0;
    const back = this.#consumed;
    this.#consumed = 0;
    this.#outstanding += back;
    return back;
  }
}
