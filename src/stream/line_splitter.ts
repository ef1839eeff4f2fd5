/**
 * Input framing: bytes in, one event per line out, in one stage. The framing itself is
 * {@linkcode LineCutter}'s; this module offers it as a `TransformStream`, as a stream of lines, and as
 * a pull reader ({@linkcode LineReader}, what {@linkcode NewlineChannel} reads with).
 * @module
 */
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  HEAD_BYTES,
  type InputLine,
  LineCutter,
  type LineSplitterOptions,
} from "./line_cutter.ts";

export { DEFAULT_MAX_MESSAGE_BYTES, HEAD_BYTES, type InputLine, type LineSplitterOptions };

/**
 * A `TransformStream` of bytes to the events of each chunk, as one array per chunk (never empty), so
 * a chunk holding many small messages costs one stream operation instead of one per line. Framing and
 * memory bounds are {@linkcode LineCutter}'s: within `maxMessageBytes` plus one chunk.
 */
export class LineSplitter extends TransformStream<Uint8Array, InputLine[]> {
  constructor(options: LineSplitterOptions = {}) {
    const cutter = new LineCutter(options);
    super({
      transform(chunk, controller) {
        const events = cutter.push(chunk);
        if (events.length > 0) controller.enqueue(events);
      },
      flush(controller) {
        const events = cutter.end();
        if (events.length > 0) controller.enqueue(events);
      },
    });
  }
}

/**
 * Splits a byte stream into lines, bounded by `maxMessageBytes`. Memory stays within the limit plus
 * one chunk, also for a peer that sends gigabytes without a newline.
 *
 * @example
 * ```ts
 * declare const bytes: ReadableStream<Uint8Array>;
 * for await (const event of splitLines(bytes)) {
 *   if (event.kind === "line") console.log(JSON.parse(event.text));
 * }
 * ```
 */
export function splitLines(
  readable: ReadableStream<Uint8Array>,
  options: LineSplitterOptions = {},
): ReadableStream<InputLine> {
  return splitLineBatches(readable, options).pipeThrough(
    new TransformStream<InputLine[], InputLine>({
      transform(events, controller) {
        for (const event of events) controller.enqueue(event);
      },
    }),
  );
}

/** Like {@linkcode splitLines}, but yields the events of each chunk as one array (never empty). */
export function splitLineBatches(
  readable: ReadableStream<Uint8Array>,
  options: LineSplitterOptions = {},
): ReadableStream<InputLine[]> {
  return readable.pipeThrough(new LineSplitter(options));
}

/**
 * Reads a byte stream one line event at a time, holding at most one chunk's events. It reads the
 * bytes itself, only when asked for a line and none is left, and cuts each chunk synchronously (no
 * stream pipe in between).
 *
 * @example
 * ```ts ignore (LineReader is internal: the package does not export it)
 * const lines = new LineReader(bytes);
 * for (let event = await lines.read(); event; event = await lines.read()) console.log(event);
 * ```
 */
export class LineReader {
  readonly #input: ReadableStreamDefaultReader<Uint8Array>;
  readonly #cutter: LineCutter;
  #lines: InputLine[] = [];
  #at = 0;
  #ended = false;

  constructor(readable: ReadableStream<Uint8Array>, options: LineSplitterOptions = {}) {
    this.#input = readable.getReader();
    this.#cutter = new LineCutter(options);
  }

  /** The next line, a typed error standing in for a bad line, or `undefined` at end of input. */
  read(): Promise<InputLine | undefined> {
    if (this.#at < this.#lines.length) return Promise.resolve(this.#next());
    if (this.#ended) return Promise.resolve(undefined);
    return this.#fill();
  }

  /** Stops reading and releases the byte stream. */
  cancel(reason?: unknown): Promise<void> {
    this.#ended = true;
    this.#lines = [];
    this.#at = 0;
    return this.#input.cancel(reason);
  }

  async #fill(): Promise<InputLine | undefined> {
    for (;;) {
      const { done, value } = await this.#input.read();
      if (this.#ended) return undefined; // cancelled meanwhile: an unfinished line is not an event
      const events = done ? this.#cutter.end() : this.#cutter.push(value);
      if (done) this.#ended = true;
      if (events.length > 0) {
        this.#lines = events;
        this.#at = 0;
        return this.#next();
      }
      if (done) return undefined;
    }
  }

  #next(): InputLine {
    const line = this.#lines[this.#at]!;
    this.#lines[this.#at++] = undefined as unknown as InputLine; // let a taken line be collected
    return line;
  }
}
