/**
 * Input framing: bytes in, one event per line out, in one stage.
 *
 * {@linkcode LineSplitter} works on bytes: it cuts on `\n`, caps each line at `maxMessageBytes` while
 * the line arrives (an oversize line is dropped as it streams in, never buffered whole), keeps the
 * unfinished line of a chunk for the next one (so a line or a code point split across chunks is
 * reassembled), strips one `\r` before `\n`, skips blank lines, and decodes each complete line with
 * a fatal UTF-8 decoder. A bad line becomes a typed error in its place, and the next line is read.
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

/** Options of {@linkcode splitLines} and {@linkcode LineSplitter}. */
export interface LineSplitterOptions {
  /** Longest accepted line in UTF-8 bytes, without its `\n` (or `\r\n`). Default {@linkcode DEFAULT_MAX_MESSAGE_BYTES}. */
  maxMessageBytes?: number;
}

/** 16 MiB: above the 10 MiB the MCP TypeScript SDK reads, so anything it sends fits. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * A `TransformStream` of bytes to the events of each chunk, as one array per chunk (never empty), so
 * a chunk holding many small messages costs one stream operation instead of one per line.
 *
 * Memory: the unfinished line is held up to `maxMessageBytes` + 1 bytes (the extra byte may be the
 * `\r` of a `\r\n`); past that the line is reported at once as a {@linkcode MessageTooLargeError}
 * and its remaining bytes are skipped up to its newline. So memory stays within the limit plus one
 * chunk, whatever the peer sends.
 */
export class LineSplitter extends TransformStream<Uint8Array, InputLine[]> {
  constructor(options: LineSplitterOptions = {}) {
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    // The first line keeps the decoder's default of dropping a byte order mark (the stream's start);
    // later lines keep every character they hold.
    const firstDecoder = new TextDecoder("utf-8", { fatal: true });
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    let firstLine = true;
    /** Pieces of the unfinished line carried over from earlier chunks (copies, not views). */
    let parts: Uint8Array[] = [];
    let lineBytes = 0;
    let discarding = false;
    let batch: InputLine[] = [];

    const headDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
    /** Discards the current line, whose bytes so far are `parts` and then `chunk[start, end)`. */
    const tooLarge = (chunk: Uint8Array, start: number, end: number): void => {
      discarding = true;
      const pieces = [...parts, chunk.subarray(start, end)];
      parts = [];
      const headBytes = new Uint8Array(Math.min(HEAD_BYTES, lineBytes));
      let at = 0;
      for (const piece of pieces) {
        if (at >= headBytes.byteLength) break;
        const take = piece.subarray(0, headBytes.byteLength - at);
        headBytes.set(take, at);
        at += take.byteLength;
      }
      const head = scanMessageHead(headDecoder.decode(headBytes));
      batch.push({ kind: "error", error: new MessageTooLargeError(max, { sizeBytes: lineBytes }), head });
    };

    /** Checks the bound on `chunk[start, end)` joining the current line; false once it is oversize. */
    const fits = (chunk: Uint8Array, start: number, end: number): boolean => {
      if (discarding) return false;
      if (end === start) return true;
      lineBytes += end - start;
      // One byte over is still fine while it is a `\r` that a `\n` may end.
      if (lineBytes > max + 1 || (lineBytes === max + 1 && chunk[end - 1] !== CR)) {
        tooLarge(chunk, start, end);
        return false;
      }
      return true;
    };

    /** Ends the current line, whose last piece is `chunk[start, end)`. */
    const endLine = (chunk: Uint8Array, start: number, end: number): void => {
      if (fits(chunk, start, end)) {
        let bytes: Uint8Array;
        if (parts.length === 0) {
          bytes = chunk.subarray(start, end);
        } else {
          parts.push(chunk.subarray(start, end));
          bytes = concatAll(parts, lineBytes);
        }
        emitLine(bytes);
      }
      parts = [];
      lineBytes = 0;
      discarding = false;
      firstLine = false;
    };

    const emitLine = (bytes: Uint8Array): void => {
      let n = bytes.byteLength;
      if (n > 0 && bytes[n - 1] === CR) n--;
      if (n > max) return tooLarge(bytes, 0, 0); // cannot happen: `fits` allows the extra byte only for a `\r`
      if (n === 0) return;
      let text: string;
      try {
        text = (firstLine ? firstDecoder : decoder).decode(n === bytes.byteLength ? bytes : bytes.subarray(0, n));
      } catch {
        // The fatal decoder's TypeError says only "invalid data": the typed error below replaces it.
        batch.push({ kind: "error", error: new InvalidUtf8Error() });
        return;
      }
      if (!isBlank(text)) batch.push({ kind: "line", text, bytes: n });
    };

    const emitBatch = (controller: TransformStreamDefaultController<InputLine[]>): void => {
      if (batch.length === 0) return;
      controller.enqueue(batch);
      batch = [];
    };

    super({
      transform(chunk, controller) {
        let start = 0;
        for (;;) {
          const nl = chunk.indexOf(NEWLINE, start);
          if (nl === -1) break;
          endLine(chunk, start, nl);
          start = nl + 1;
        }
        // The unfinished rest is copied: the source may reuse the chunk's buffer.
        if (start < chunk.byteLength && fits(chunk, start, chunk.byteLength)) parts.push(chunk.slice(start));
        emitBatch(controller);
      },
      flush(controller) {
        if (parts.length > 0) endLine(EMPTY, 0, 0);
        emitBatch(controller);
      },
    });
  }
}

const EMPTY = new Uint8Array(0);

function isBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  // Only lines that start with white space can be blank; JSON messages start with `{` or `[`.
  if (first !== 0x20 && first !== 0x09 && first !== 0x0d) return false;
  return text.trim().length === 0;
}

function concatAll(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * Splits a byte stream into lines, bounded by `maxMessageBytes`. Memory stays within the limit plus
 * one chunk, also for a peer that sends gigabytes without a newline.
 *
 * @example
 * ```ts
 * for await (const event of splitLines(bytes)) {
 *   if (event.kind === "line") console.log(JSON.parse(event.text));
 * }
 * ```
 */
export function splitLines(readable: ReadableStream<Uint8Array>, options: LineSplitterOptions = {}): ReadableStream<InputLine> {
  return splitLineBatches(readable, options).pipeThrough(
    new TransformStream<InputLine[], InputLine>({
      transform(events, controller) {
        for (const event of events) controller.enqueue(event);
      },
    }),
  );
}

/** Like {@linkcode splitLines}, but yields the events of each chunk as one array (never empty). */
export function splitLineBatches(readable: ReadableStream<Uint8Array>, options: LineSplitterOptions = {}): ReadableStream<InputLine[]> {
  return readable.pipeThrough(new LineSplitter(options));
}

/**
 * Reads {@linkcode splitLineBatches} one event at a time, holding at most one chunk's events.
 *
 * @example
 * ```ts
 * const lines = new LineReader(bytes);
 * for (let event = await lines.read(); event; event = await lines.read()) console.log(event);
 * ```
 */
export class LineReader {
  readonly #input: ReadableStreamDefaultReader<InputLine[]>;
  #lines: InputLine[] = [];
  #at = 0;

  constructor(readable: ReadableStream<Uint8Array>, options: LineSplitterOptions = {}) {
    this.#input = splitLineBatches(readable, options).getReader();
  }

  /** The next line, a typed error standing in for a bad line, or `undefined` at end of input. */
  read(): Promise<InputLine | undefined> {
    if (this.#at < this.#lines.length) return Promise.resolve(this.#next());
    return this.#input.read().then(({ done, value }) => {
      if (done) return undefined;
      this.#lines = value;
      this.#at = 0;
      return this.#next();
    });
  }

  /** Stops reading and releases the byte stream. */
  cancel(reason?: unknown): Promise<void> {
    return this.#input.cancel(reason);
  }

  #next(): InputLine {
    const line = this.#lines[this.#at]!;
    this.#lines[this.#at++] = undefined as unknown as InputLine; // let a taken line be collected
    return line;
  }
}
