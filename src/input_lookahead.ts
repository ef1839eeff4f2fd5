/**
 * Bounded read-ahead of input lines, so that a connection paused for output room still learns when
 * its input has ended.
 * @module
 */
import type { InputLine } from "./line_splitter.ts";

/** Bytes counted for an item besides its text, so that many tiny items still fill the budget. */
const ITEM_OVERHEAD = 64;

function sizeOf(item: InputLine): number {
  return ITEM_OVERHEAD + (item.kind === "line" ? item.text.length : 0);
}

/**
 * Wraps a `read()` of input lines. {@linkcode InputLookahead.next} returns them in order. While
 * {@linkcode InputLookahead.prefetch} is on, it keeps reading into a buffer of at most `limitBytes`
 * (plus one item), and {@linkcode InputLookahead.endSeen} resolves as soon as the end of input is
 * read, even with items still buffered before it.
 */
export class InputLookahead {
  readonly #read: () => Promise<InputLine | undefined>;
  readonly #limit: number;
  readonly #items: InputLine[] = [];
  #bytes = 0;
  #ended = false;
  #error: { value: unknown } | undefined;
  #reading = false;
  #prefetching = false;
  #waiting = 0;
  #changed = wakeUp();
  #endSeen: () => void = () => {};
  /** Resolves once the end of input (or a read error) has been read. */
  readonly endSeen: Promise<void>;

  constructor(read: () => Promise<InputLine | undefined>, limitBytes: number) {
    this.#read = read;
    this.#limit = limitBytes;
    this.endSeen = new Promise((resolve) => (this.#endSeen = resolve));
  }

  /** True once the end of input has been read (buffered items may remain). */
  get ended(): boolean {
    return this.#ended || this.#error !== undefined;
  }

  /** Items read ahead and not yet taken. */
  get buffered(): number {
    return this.#items.length;
  }

  /** Bytes (approximate: characters plus a per-item overhead) read ahead and not yet taken. */
  get bufferedBytes(): number {
    return this.#bytes;
  }

  /** The next item in input order, `undefined` at the end; rethrows a read error after the items before it. */
  async next(): Promise<InputLine | undefined> {
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) {
        this.#bytes -= sizeOf(item);
        this.#pump();
        return item;
      }
      if (this.#error) throw this.#error.value;
      if (this.#ended) return undefined;
      this.#waiting++;
      const changed = this.#changed.wait();
      this.#pump();
      await changed;
      this.#waiting--;
    }
  }

  /** Turns read-ahead on (while the consumer is paused) or off. */
  prefetch(on: boolean): void {
    this.#prefetching = on;
    this.#pump();
  }

  #wantsRead(): boolean {
    if (this.ended || this.#reading) return false;
    if (this.#items.length === 0 && this.#waiting > 0) return true;
    return this.#prefetching && this.#bytes < this.#limit;
  }

  #pump(): void {
    if (!this.#wantsRead()) return;
    this.#reading = true;
    this.#read().then(
      (item) => {
        if (item === undefined) {
          this.#ended = true;
          this.#endSeen();
        } else {
          this.#items.push(item);
          this.#bytes += sizeOf(item);
        }
      },
      (error: unknown) => {
        this.#error = { value: error };
        this.#endSeen();
      },
    ).finally(() => {
      this.#reading = false;
      this.#changed.fire();
      this.#pump();
    });
  }
}

function wakeUp(): { wait(): Promise<void>; fire(): void } {
  let resolve!: () => void;
  let promise = new Promise<void>((r) => (resolve = r));
  return {
    wait: () => promise,
    fire: () => {
      const fired = resolve;
      promise = new Promise<void>((r) => (resolve = r));
      fired();
    },
  };
}
