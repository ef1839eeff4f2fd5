/**
 * A `WritableStream` that records every chunk written to it and completes writes when told to.
 * @module
 */

/** Options of {@linkcode RecordingWritable}. */
export interface RecordingWritableOptions {
  /** Complete each write at once (`true`, default) or only on `completeNext`/`completeAll`. */
  autoComplete?: boolean;
}

/**
 * Records block sizes and contents. With `autoComplete: false` a write stays in flight until the
 * test completes or fails it, which makes a slow, stalled or broken reader easy to stage.
 */
export class RecordingWritable {
  readonly writable: WritableStream<Uint8Array>;
  /** Every chunk whose write started, in order (copies). */
  readonly chunks: Uint8Array[] = [];
  closed = false;
  aborted: unknown = undefined;
  #autoComplete: boolean;
  #pending: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  #failNext: unknown = undefined;
  #waiters: Array<() => void> = [];

  constructor(options: RecordingWritableOptions = {}) {
    this.#autoComplete = options.autoComplete ?? true;
    this.writable = new WritableStream<Uint8Array>({
      write: (chunk) => {
        this.chunks.push(chunk.slice());
        for (const w of this.#waiters.splice(0)) w();
        if (this.#failNext !== undefined) {
          const error = this.#failNext;
          this.#failNext = undefined;
          return Promise.reject(error);
        }
        if (this.#autoComplete) return;
        return new Promise<void>((resolve, reject) => (this.#pending = { resolve, reject }));
      },
      close: () => {
        this.closed = true;
      },
      abort: (reason) => {
        this.aborted = reason ?? true;
      },
    });
  }

  /** The sizes of every chunk written so far. */
  get sizes(): number[] {
    return this.chunks.map((c) => c.byteLength);
  }

  /** Total bytes written so far. */
  get totalBytes(): number {
    return this.chunks.reduce((n, c) => n + c.byteLength, 0);
  }

  /** Everything written, decoded as UTF-8. */
  text(): string {
    const all = new Uint8Array(this.totalBytes);
    let at = 0;
    for (const c of this.chunks) {
      all.set(c, at);
      at += c.byteLength;
    }
    return new TextDecoder().decode(all);
  }

  /** True while a write has started and not been completed. */
  get inFlight(): boolean {
    return this.#pending !== undefined;
  }

  /** Completes the write in flight, if any. Returns whether there was one. */
  completeNext(): boolean {
    const p = this.#pending;
    this.#pending = undefined;
    p?.resolve();
    return p !== undefined;
  }

  /** Fails the write in flight, or the next write when none is in flight. */
  fail(error: unknown = new Error("Simulated write failure")): void {
    const p = this.#pending;
    this.#pending = undefined;
    if (p) p.reject(error);
    else this.#failNext = error;
  }

  /** Switches between completing writes at once and on demand. */
  setAutoComplete(on: boolean): void {
    this.#autoComplete = on;
    if (on) this.completeNext();
  }

  /** Resolves when the next write starts (at once when one is already in flight). */
  nextWrite(): Promise<void> {
    if (this.#pending) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
