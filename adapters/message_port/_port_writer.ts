/**
 * `PortWriter`: the output half of a MessagePort duplex. A write sends `data` only within the credit
 * the peer granted, waiting for more when it runs out; closing sends `end`, aborting `abort`.
 * @module
 */
import { ClosedError } from "../../src/wire/errors.ts";
import { SendCredit } from "./_credit_window.ts";
import { describe, type Post } from "./_wire.ts";

/** The output half: a writable whose writes wait for credit, so the peer's window bounds the bytes in flight. */
export class PortWriter {
  readonly writable: WritableStream<Uint8Array>;
  readonly #credit = new SendCredit();
  readonly #post: Post;
  readonly #transfer: boolean;
  readonly #onDone: () => void;
  #controller!: WritableStreamDefaultController;
  #writing = false;
  #done = false;
  #error: Error | undefined;
  #sentBytes = 0;
  #copiedBytes = 0;

  constructor(post: Post, options: { transfer: boolean; onDone(): void }) {
    this.#post = post;
    this.#transfer = options.transfer;
    this.#onDone = options.onDone;
    this.writable = new WritableStream<Uint8Array>({
      start: (controller) => void (this.#controller = controller),
      write: (chunk, controller) => this.#write(chunk, controller.signal),
      close: () => this.#end("end"),
      abort: (reason) => this.#end("abort", reason),
    });
  }

  /** True once output is over: ended, aborted or failed. */
  get done(): boolean {
    return this.#done;
  }

  get bytesInTransit(): number {
    return this.#credit.bytesInTransit;
  }

  get maxBytesInTransit(): number {
    return this.#credit.maxBytesInTransit;
  }

  get sentBytes(): number {
    return this.#sentBytes;
  }

  get copiedBytes(): number {
    return this.#copiedBytes;
  }

  /** The peer handed back `bytes` of credit. */
  grant(bytes: number): void {
    if (!this.#done) this.#credit.grant(bytes);
  }

  /** Fails pending and later writes with `error` (the peer stopped reading, or the port went away). */
  fail(error: Error): void {
    if (this.#done && this.#error) return;
    this.#done = true;
    this.#error = error;
    try {
      this.#controller.error(error);
    } catch {
      // The writable ended already: later writes fail on their own.
    }
    this.#credit.fail(error);
  }

  /** Ends output for the owner's `close()`: `end`, or `abort` when a write is cut off half sent. */
  stop(): void {
    if (this.#done) return;
    if (this.#writing) this.#post({ omc: "abort", reason: "The connection was closed during a write" });
    else this.#post({ omc: "end" });
    this.fail(new ClosedError("The MessagePort connection is closed"));
  }

  /** Ends output for the owner's `destroy()`: tells the peer why, and fails the writable. */
  destroy(error: Error): void {
    if (this.#done) return;
    this.#post({ omc: "abort", reason: describe(error) });
    this.fail(error);
  }

  async #write(chunk: Uint8Array, signal: AbortSignal): Promise<void> {
    if (!(chunk instanceof Uint8Array)) {
      throw new TypeError("A MessagePort duplex writes Uint8Array chunks only");
    }
    this.#writing = true;
    try {
      let at = 0;
      while (at < chunk.byteLength) {
        await this.#credit.wait(signal);
        const n = this.#credit.take(chunk.byteLength - at);
        const piece = at === 0 && n === chunk.byteLength ? chunk : chunk.subarray(at, at + n);
        at += n;
        this.#send(piece);
      }
    } finally {
      this.#writing = false;
    }
  }

  #send(piece: Uint8Array): void {
    if (this.#error) throw this.#error;
    const size = piece.byteLength; // read before a transfer detaches it
    const buffer = piece.buffer;
    if (
      this.#transfer && buffer instanceof ArrayBuffer && piece.byteOffset === 0 && size === buffer.byteLength
    ) {
      try {
        this.#post({ omc: "data", bytes: buffer }, [buffer]);
        this.#sentBytes += size;
        return;
      } catch {
        // Not transferable here (a host-owned buffer): it is copied below instead.
      }
    }
    const copy = new Uint8Array(piece).buffer; // one copy, into a buffer handed over without a second one
    this.#post({ omc: "data", bytes: copy }, [copy]);
    this.#copiedBytes += size;
    this.#sentBytes += size;
  }

  #end(kind: "end" | "abort", reason?: unknown): void {
    if (this.#done) return;
    this.#post(
      kind === "end" ? { omc: "end" } : { omc: "abort", reason: describe(reason ?? "The writer aborted") },
    );
    this.#done = true;
    this.#credit.fail(new ClosedError("Output is closed"));
    this.#onDone();
  }
}
