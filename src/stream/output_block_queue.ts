/**
 * The output queue of {@linkcode NewlineChannel} and its single writer: encoded messages waiting for
 * the stream, cut into or gathered into blocks of at most a given size, counted in UTF-8 bytes, and
 * written one block at a time.
 * @module
 */
import { JsonText } from "../wire/json_text.ts";
import { LargeTextLine } from "./large_text_line.ts";
import { jsonParts } from "./json_parts.ts";

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();
const NEWLINE = 0x0a;
// deno-lint-ignore no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
/**
 * Longest JSON text queued as a short line (a string, or encoded at once); a longer one is queued as
 * a {@linkcode LargeTextLine} and encoded block by block.
 */
const MAX_TEXT_LINE = 64 * 1024;

/**
 * One message as queued: its UTF-8 line; or, for a short pure-ASCII message (the common case), its
 * JSON text with the `\n` implied, whose length is then its byte count; or, for a long message, a
 * {@linkcode LargeTextLine}. Text is encoded straight into the block it is written in: no array per
 * message, no second copy, and no single array the size of a large message.
 */
export type QueuedLine = Uint8Array | string | LargeTextLine;

/** One message as a line for the queue; a `TypeError` when JSON has no text for it (or `JSON.stringify` throws). */
export function encodeLine(message: unknown): QueuedLine {
  let json: string | undefined;
  if (message instanceof JsonText) {
    json = message.text;
  } else {
    // A long string is escaped and encoded as it is written, never stringified whole.
    const parts = jsonParts(message);
    if (parts !== undefined) return new LargeTextLine(parts);
    json = JSON.stringify(message);
  }
  if (typeof json !== "string") {
    throw new TypeError(
      `Cannot send ${
        typeof message === "symbol" ? "a symbol" : String(message)
      }: JSON has no representation for it`,
    );
  }
  if (json.length >= MAX_TEXT_LINE) return new LargeTextLine(json);
  return ASCII.test(json) ? json : encoder.encode(json + "\n");
}

/** The UTF-8 bytes of a queued line, its `\n` included. */
export function lineBytes(line: QueuedLine): number {
  return typeof line === "string"
    ? line.length + 1
    : line instanceof LargeTextLine
    ? line.bytes
    : line.byteLength;
}

/** Copies bytes `[from, from + n)` of a short `line` into `block` at `at`. */
function copyLine(line: Uint8Array | string, from: number, n: number, block: Uint8Array, at: number): void {
  if (typeof line !== "string") {
    block.set(line.subarray(from, from + n), at);
    return;
  }
  const textEnd = Math.min(from + n, line.length);
  if (textEnd > from) {
    encoder.encodeInto(
      from === 0 && textEnd === line.length ? line : line.slice(from, textEnd),
      block.subarray(at, at + textEnd - from),
    );
  }
  if (from + n > line.length) block[at + n - 1] = NEWLINE;
}

/** Where {@linkcode OutputBlockQueue.pump} writes, and whom it tells. */
export interface BlockSink {
  readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Largest block handed to the writer at once. */
  readonly blockBytes: number;
  /** True once output failed or was torn down: nothing more is written. */
  stopped(): boolean;
  /** A block write completed. */
  written(): void;
  /** A block write failed. */
  failed(cause: unknown): void;
}

/**
 * A FIFO of encoded messages. Its byte count includes the block in flight until {@linkcode written}
 * is called for it. It is a FIFO of its own rather than a `WritableStream`'s internal queue because
 * the single writer gathers small messages queued during a write into one block, which needs to see
 * the whole queue; a `ByteLengthQueuingStrategy` sizes chunks and holds the high-water mark.
 */
export class OutputBlockQueue {
  readonly #strategy: ByteLengthQueuingStrategy;
  /** Encoded messages not yet handed out, oldest first from `#head`; the first may be partly taken. */
  #segments: QueuedLine[] = [];
  #head = 0;
  #headOffset = 0;
  #bytes = 0;
  #pumping = false;

  constructor(highWaterMark: number) {
    this.#strategy = new ByteLengthQueuingStrategy({ highWaterMark });
  }

  /** Bytes accepted and not yet written: queued segments plus the block in flight. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Room left below the high-water mark (negative when one large message overfills it). */
  get room(): number {
    return this.#strategy.highWaterMark - this.#bytes;
  }

  /** True when bytes wait to be handed out as a block. */
  get hasBlock(): boolean {
    return this.#head < this.#segments.length;
  }

  /** A message fits when the queue has room for all of it, or when the queue is empty. */
  fits(line: QueuedLine): boolean {
    return lineBytes(line) <= this.room || this.#bytes === 0;
  }

  push(line: QueuedLine): void {
    this.#segments.push(line);
    this.#bytes += line instanceof Uint8Array ? this.#strategy.size(line) : lineBytes(line);
  }

  /** The size of a block as the queue counts it; measure before writing (a transport may detach it). */
  size(block: Uint8Array): number {
    return this.#strategy.size(block);
  }

  /** A block of `size` bytes was written: it leaves the count. */
  written(size: number): void {
    this.#bytes -= size;
  }

  /**
   * The only writer of the stream: while blocks wait, writes one at a time, each at most
   * `blockBytes`, cut from a large message or gathered from small ones queued while the last write
   * ran. A second call while one runs returns at once, with no promise made (it is called on every
   * message); the first returns a promise that settles when the queue has no block left to write.
   */
  pump(sink: BlockSink): Promise<void> | undefined {
    if (this.#pumping) return undefined;
    this.#pumping = true;
    return this.#writeAll(sink);
  }

  async #writeAll(sink: BlockSink): Promise<void> {
    try {
      while (this.hasBlock && !sink.stopped()) {
        const block = this.take(sink.blockBytes);
        const size = this.size(block); // before the write: a transport may transfer the buffer
        try {
          await sink.writer.write(block);
        } catch (cause) {
          return sink.failed(cause);
        }
        if (sink.stopped()) return;
        this.#bytes -= size;
        sink.written();
      }
    } finally {
      this.#pumping = false;
    }
  }

  /** Drops everything (output was torn down). */
  clear(): void {
    this.#segments = [];
    this.#head = 0;
    this.#headOffset = 0;
    this.#bytes = 0;
  }

  /**
   * The next block of at most `limit` bytes: a view into a large encoded message, the next block of
   * a {@linkcode LargeTextLine}, or short lines gathered (and text encoded) into a new one. A large
   * text line is never gathered with others: its blocks are its own.
   */
  take(limit: number): Uint8Array {
    const first = this.#segments[this.#head]!;
    if (first instanceof LargeTextLine) {
      const block = first.take(limit);
      this.#consume(block.byteLength);
      return block;
    }
    const available = lineBytes(first) - this.#headOffset;
    if (typeof first !== "string" && (available >= limit || this.#head === this.#segments.length - 1)) {
      const n = Math.min(available, limit);
      const block = first.subarray(this.#headOffset, this.#headOffset + n);
      this.#consume(n);
      return block;
    }
    let size = available;
    for (let i = this.#head + 1; i < this.#segments.length && size < limit; i++) {
      const segment = this.#segments[i]!;
      if (segment instanceof LargeTextLine) break;
      size += lineBytes(segment);
    }
    const block = new Uint8Array(Math.min(size, limit));
    for (let at = 0; at < block.byteLength;) {
      const segment = this.#segments[this.#head] as Uint8Array | string;
      const n = Math.min(lineBytes(segment) - this.#headOffset, block.byteLength - at);
      copyLine(segment, this.#headOffset, n, block, at);
      at += n;
      this.#consume(n);
    }
    return block;
  }

  #consume(n: number): void {
    this.#headOffset += n;
    if (this.#headOffset < lineBytes(this.#segments[this.#head]!)) return;
    this.#segments[this.#head++] = EMPTY;
    this.#headOffset = 0;
    if (this.#head === this.#segments.length) {
      this.#segments = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#segments.length) {
      this.#segments = this.#segments.slice(this.#head);
      this.#head = 0;
    }
  }
}
