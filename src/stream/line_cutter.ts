/**
 * `LineCutter`: the framing state of one input stream, synchronous: bytes in, the events of each
 * chunk out. {@linkcode LineSplitter} wraps it in a `TransformStream`; {@linkcode LineReader} calls it
 * directly on each chunk it reads, which spares a stream pipe (and its promises) per chunk.
 * @module
 */
import { InvalidUtf8Error, MessageTooLargeError } from "../wire/errors.ts";
import { type MessageHead, scanMessageHead } from "../wire/scan_message_head.ts";

/**
 * One event of the input: a line's text with its size in UTF-8 bytes, or a typed error that stands in
 * for a discarded line. An oversize line's error comes with what its first {@linkcode HEAD_BYTES}
 * bytes say (its id, whether it is a reply), so the request it answers can fail instead of waiting.
 */
export type InputLine =
  | { kind: "line"; text: string; bytes: number }
  | { kind: "error"; error: MessageTooLargeError; head: MessageHead }
  | { kind: "error"; error: InvalidUtf8Error; head?: undefined };

/** How much of an oversize line is kept to read its id from: the first 4 KiB. */
export const HEAD_BYTES = 4096;

/** Options of {@linkcode LineCutter} (and of the splitters built on it). */
export interface LineSplitterOptions {
  /**
   * Longest accepted line in UTF-8 bytes, without its `\n` (or `\r\n`).
   * @default 16_777_216 (16 MiB, `DEFAULT_MAX_MESSAGE_BYTES`)
   */
  maxMessageBytes?: number;
}

/** 16 MiB: above the 10 MiB the MCP TypeScript SDK reads, so anything it sends fits. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const CR = 0x0d;
const EMPTY = new Uint8Array(0);
/** The line buffer starts at this size, and is kept at up to this size whatever lines come. */
const SMALL_BUFFER = 64 * 1024;
/** Lines in a row that each fill less than a quarter of a larger line buffer before it is let go. */
const SMALL_LINES_BEFORE_RELEASE = 16;

/**
 * Cuts bytes on `\n`, caps each line at `maxMessageBytes` while the line arrives (an oversize line is
 * dropped as it streams in, never buffered whole), keeps the unfinished line of a chunk for the next
 * one (so a line or a code point split across chunks is reassembled), strips one `\r` before `\n`,
 * skips blank lines, and decodes each complete line with a fatal UTF-8 decoder. A bad line becomes a
 * typed error in its place.
 *
 * Memory: the unfinished line is held up to `maxMessageBytes` + 1 bytes (the extra byte may be the
 * `\r` of a `\r\n`); past that the line is reported at once as a {@linkcode MessageTooLargeError}
 * and its remaining bytes are skipped up to its newline. A line cut across chunks is copied into one
 * buffer that grows (doubling, never past `maxMessageBytes` + 1) and is kept for the next lines, so a
 * stream of large lines reuses memory already in place rather than allocating (and faulting in)
 * fresh pages for every line; a buffer over 64 KiB is let go after 16 lines in a row that each fill
 * less than a quarter of it.
 *
 * @example
 * ```ts ignore (LineCutter is internal: the package does not export it)
 * const cutter = new LineCutter({ maxMessageBytes: 1024 });
 * const events = [...cutter.push(new TextEncoder().encode('{"a":1}\n{"b"')), ...cutter.end()];
 * ```
 */
export class LineCutter {
  readonly #max: number;
  // The first line keeps the decoder's default of dropping a byte order mark (the stream's start);
  // later lines keep every character they hold.
  readonly #firstDecoder = new TextDecoder("utf-8", { fatal: true });
  readonly #decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  readonly #headDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #firstLine = true;
  /** The unfinished line carried over from earlier chunks: a copy, in `#buffer[0, #held)`. */
  #buffer: Uint8Array = EMPTY;
  #held = 0;
  /** Lines in a row that filled less than a quarter of a buffer larger than `SMALL_BUFFER`. */
  #smallLines = 0;
  #lineBytes = 0;
  #discarding = false;
  #batch: InputLine[] = [];

  constructor(options: LineSplitterOptions = {}) {
    this.#max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  /**
   * The events of the lines `chunk` completes, in order (often none). The chunk is not kept: its
   * unfinished rest is copied, since the source may reuse its buffer.
   */
  push(chunk: Uint8Array): InputLine[] {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      this.#endLine(chunk, start, nl);
      start = nl + 1;
    }
    if (start < chunk.byteLength && this.#fits(chunk, start, chunk.byteLength)) {
      this.#hold(chunk, start, chunk.byteLength);
    }
    return this.#take();
  }

  /** The end of input: the event of an unfinished last line, if any. */
  end(): InputLine[] {
    if (this.#held > 0) this.#endLine(EMPTY, 0, 0);
    return this.#take();
  }

  /** Copies `chunk[start, end)` after the held bytes, growing the buffer (within the limit, which `#fits` checked). */
  #hold(chunk: Uint8Array, start: number, end: number): void {
    const needed = this.#held + end - start;
    if (needed > this.#buffer.byteLength) {
      const size = Math.min(this.#max + 1, Math.max(needed, SMALL_BUFFER, this.#buffer.byteLength * 2));
      const grown = new Uint8Array(size);
      grown.set(this.#buffer.subarray(0, this.#held));
      this.#buffer = grown;
    }
    this.#buffer.set(chunk.subarray(start, end), this.#held);
    this.#held = needed;
  }

  /** After a line of `bytes`: lets a large buffer go once lines have long been much smaller than it. */
  #keepOrRelease(bytes: number): void {
    const size = this.#buffer.byteLength;
    if (size <= SMALL_BUFFER) return;
    if (bytes * 4 >= size) {
      this.#smallLines = 0;
    } else if (++this.#smallLines >= SMALL_LINES_BEFORE_RELEASE) {
      this.#buffer = EMPTY;
      this.#smallLines = 0;
    }
  }

  #take(): InputLine[] {
    const batch = this.#batch;
    if (batch.length > 0) this.#batch = [];
    return batch;
  }

  /** Discards the current line, whose bytes so far are the held ones and then `chunk[start, end)`. */
  #tooLarge(chunk: Uint8Array, start: number, end: number): void {
    this.#discarding = true;
    const pieces = [this.#buffer.subarray(0, this.#held), chunk.subarray(start, end)];
    this.#held = 0;
    const headBytes = new Uint8Array(Math.min(HEAD_BYTES, this.#lineBytes));
    let at = 0;
    for (const piece of pieces) {
      if (at >= headBytes.byteLength) break;
      const take = piece.subarray(0, headBytes.byteLength - at);
      headBytes.set(take, at);
      at += take.byteLength;
    }
    const head = scanMessageHead(this.#headDecoder.decode(headBytes));
    this.#batch.push({
      kind: "error",
      error: new MessageTooLargeError(this.#max, { sizeBytes: this.#lineBytes }),
      head,
    });
  }

  /** Checks the bound on `chunk[start, end)` joining the current line; false once it is oversize. */
  #fits(chunk: Uint8Array, start: number, end: number): boolean {
    if (this.#discarding) return false;
    if (end === start) return true;
    this.#lineBytes += end - start;
    const max = this.#max;
    // One byte over is still fine while it is a `\r` that a `\n` may end.
    if (this.#lineBytes > max + 1 || (this.#lineBytes === max + 1 && chunk[end - 1] !== CR)) {
      this.#tooLarge(chunk, start, end);
      return false;
    }
    return true;
  }

  /** Ends the current line, whose last piece is `chunk[start, end)`. */
  #endLine(chunk: Uint8Array, start: number, end: number): void {
    if (this.#fits(chunk, start, end)) {
      let bytes: Uint8Array;
      if (this.#held === 0) {
        bytes = chunk.subarray(start, end);
      } else {
        this.#hold(chunk, start, end);
        bytes = this.#buffer.subarray(0, this.#held);
      }
      this.#emitLine(bytes);
    }
    this.#held = 0;
    this.#keepOrRelease(this.#lineBytes);
    this.#lineBytes = 0;
    this.#discarding = false;
    this.#firstLine = false;
  }

  #emitLine(bytes: Uint8Array): void {
    let n = bytes.byteLength;
    if (n > 0 && bytes[n - 1] === CR) n--;
    if (n > this.#max) return this.#tooLarge(bytes, 0, 0); // cannot happen: `#fits` allows the extra byte only for a `\r`
    if (n === 0) return;
    let text: string;
    try {
      text = (this.#firstLine ? this.#firstDecoder : this.#decoder).decode(
        n === bytes.byteLength ? bytes : bytes.subarray(0, n),
      );
    } catch {
      // The fatal decoder's TypeError says only "invalid data": the typed error below replaces it.
      this.#batch.push({ kind: "error", error: new InvalidUtf8Error() });
      return;
    }
    if (!isBlank(text)) this.#batch.push({ kind: "line", text, bytes: n });
  }
}

function isBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  // Only lines that start with white space can be blank; JSON messages start with `{` or `[`.
  if (first !== 0x20 && first !== 0x09 && first !== 0x0d) return false;
  return text.trim().length === 0;
}
