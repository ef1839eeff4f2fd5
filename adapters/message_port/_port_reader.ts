/**
 * `PortReader`: the input half of a MessagePort duplex. It buffers `data` up to its receive window,
 * hands credit back as its consumer pulls, and ends on `end` once everything before it was delivered.
 * @module
 */
import { type Deferred, deferred } from "../../src/stream/deferred.ts";
import { ProtocolError } from "../../src/wire/errors.ts";
import { ReceiveCredit } from "./_credit_window.ts";
import { describe, type Post } from "./_wire.ts";

/** What the reader tells its duplex. */
export interface PortReaderHooks {
  /** The peer broke the protocol: tear the connection down with `error`. */
  violate(error: ProtocolError): void;
  /** Input is done (ended, cancelled or failed). */
  done(): void;
}

/** The input half: a pull-based readable fed by `data` messages, bounded by the receive window. */
export class PortReader {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #credit: ReceiveCredit;
  readonly #post: Post;
  readonly #hooks: PortReaderHooks;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #inbox: Uint8Array[] = [];
  #inboxBytes = 0;
  #ended = false; // `end` arrived
  #done = false;
  #arrival: Deferred | undefined;
  #receivedBytes = 0;

  constructor(windowBytes: number, post: Post, hooks: PortReaderHooks) {
    this.#credit = new ReceiveCredit(windowBytes);
    this.#post = post;
    this.#hooks = hooks;
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => void (this.#controller = controller),
        pull: () => this.#pull(),
        cancel: (reason) => this.#cancelled(reason),
      },
      { highWaterMark: 0 },
    );
  }

  get windowBytes(): number {
    return this.#credit.windowBytes;
  }

  /** True once input is over: ended, cancelled or failed. */
  get done(): boolean {
    return this.#done;
  }

  /** True once the peer sent `end`. */
  get ended(): boolean {
    return this.#ended;
  }

  get bufferedBytes(): number {
    return this.#inboxBytes;
  }

  get receivedBytes(): number {
    return this.#receivedBytes;
  }

  /** Sends the first credit: the whole window. */
  open(): void {
    this.#post({ omc: "credit", bytes: this.#credit.initialGrant() });
  }

  /** Takes a `data` message's payload, within the credit the peer holds. */
  receiveData(bytes: unknown): void {
    if (this.#done) return; // cancelled: the peer learns it from `cancel`
    if (!(bytes instanceof ArrayBuffer)) {
      return this.#hooks.violate(
        new ProtocolError("A data message from the MessagePort peer carried no ArrayBuffer"),
      );
    }
    if (this.#ended) {
      return this.#hooks.violate(new ProtocolError("The MessagePort peer sent data after end-of-stream"));
    }
    const credit = this.#credit.outstanding;
    if (!this.#credit.accept(bytes.byteLength)) {
      return this.#hooks.violate(
        new ProtocolError(
          `The MessagePort peer sent ${bytes.byteLength} bytes with only ${credit} bytes of credit`,
        ),
      );
    }
    if (bytes.byteLength === 0) return;
    this.#receivedBytes += bytes.byteLength;
    this.#inbox.push(new Uint8Array(bytes));
    this.#inboxBytes += bytes.byteLength;
    this.#wake();
  }

  /** The peer sent `end`: the readable ends once what came before is delivered. */
  receiveEnd(): void {
    if (this.#done) return;
    this.#ended = true;
    this.#wake();
  }

  /** Errors the readable with `error` (the peer aborted, or the port went away). */
  fail(error: Error): void {
    this.#finish();
    try {
      this.#controller.error(error);
    } catch {
      // The consumer cancelled it already: the error has no one left to reach.
    }
  }

  /** Stops reading for the owner's `close()`: tells the peer, and ends the readable cleanly. */
  stop(): void {
    if (this.#done) return;
    this.#post({ omc: "cancel", reason: "The peer closed the connection" });
    this.#finish();
    try {
      this.#controller.close();
    } catch {
      // The consumer cancelled it already: there is nothing left to end.
    }
  }

  /** Stops reading for the owner's `destroy()`: tells the peer why, and errors the readable. */
  destroy(error: Error): void {
    if (this.#done) return;
    this.#post({ omc: "cancel", reason: describe(error) });
    this.fail(error);
  }

  async #pull(): Promise<void> {
    for (;;) {
      if (this.#done) return;
      const chunk = this.#inbox.shift();
      if (chunk) {
        this.#inboxBytes -= chunk.byteLength;
        this.#controller.enqueue(chunk);
        const back = this.#credit.consumed(chunk.byteLength);
        if (back > 0) this.#post({ omc: "credit", bytes: back });
        return;
      }
      if (this.#ended) {
        this.#finish();
        this.#controller.close();
        return this.#hooks.done();
      }
      this.#arrival ??= deferred();
      await this.#arrival.promise;
    }
  }

  #cancelled(reason: unknown): void {
    if (this.#done) return;
    this.#post({ omc: "cancel", reason: describe(reason ?? "The reader cancelled") });
    this.#finish();
    this.#hooks.done();
  }

  #finish(): void {
    this.#done = true;
    this.#inbox = [];
    this.#inboxBytes = 0;
    this.#wake();
  }

  #wake(): void {
    const waiting = this.#arrival;
    this.#arrival = undefined;
    waiting?.resolve();
  }
}
