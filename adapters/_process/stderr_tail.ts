/**
 * `StderrTail`: keeps the last lines a process wrote to stderr, in bounded memory, for error messages.
 * @module
 */
import { integerOption } from "../../src/stream/options.ts";

/** Options of {@linkcode StderrTail}. */
export interface StderrTailOptions {
  /**
   * Most lines kept. Default 20.
   * @default 20
   */
  maxLines?: number;
  /**
   * Most UTF-16 code units kept over all kept lines (about bytes for ASCII). Default 8 192.
   * @default 8192
   */
  maxChars?: number;
  /**
   * Called with each complete line (without its `\n` / `\r\n`). A line longer than 64 KiB is handed
   * over in 64 KiB pieces so a stderr without newlines cannot grow memory.
   */
  onLine?: (line: string) => void;
}

const MAX_PENDING_CHARS = 64 * 1024;

/**
 * A ring of the last `maxLines` stderr lines (at most `maxChars` in all). Feed it raw chunks with
 * {@linkcode StderrTail.push}; read the tail with {@linkcode StderrTail.text}. Memory stays bounded
 * however much is written: one partial line of at most 64 KiB plus the kept lines.
 *
 * @example
 * ```ts
 * declare const child: { stderr: ReadableStream<Uint8Array> };
 * const tail = new StderrTail();
 * await tail.drain(child.stderr); // reads until EOF, never stalls the writer
 * console.log(tail.text());
 * ```
 */
export class StderrTail {
  readonly maxLines: number;
  readonly maxChars: number;
  readonly #onLine: ((line: string) => void) | undefined;
  readonly #decoder = new TextDecoder("utf-8", { fatal: false });
  #lines: string[] = [];
  #chars = 0;
  #pending = "";
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Total bytes pushed so far. */
  bytesSeen = 0;

  constructor(options: StderrTailOptions = {}) {
    this.maxLines = integerOption("maxLines", options.maxLines, 20, 0);
    this.maxChars = integerOption("maxChars", options.maxChars, 8192, 0);
    this.#onLine = options.onLine;
  }

  /** Adds a chunk of raw stderr bytes. */
  push(chunk: Uint8Array): void {
    this.bytesSeen += chunk.byteLength;
    this.#take(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Flushes a final line that had no newline. Call once at EOF. */
  end(): void {
    this.#take(this.#decoder.decode());
    if (this.#pending !== "") {
      const last = this.#pending;
      this.#pending = "";
      this.#keep(last);
    }
  }

  /** The kept lines joined with `\n`, including a trailing partial line. */
  text(): string {
    const lines = this.#pending === "" ? this.#lines : [...this.#lines, this.#pending];
    const joined = lines.join("\n");
    return joined.length > this.maxChars ? joined.slice(joined.length - this.maxChars) : joined;
  }

  /** Reads `stream` to its end (or {@linkcode StderrTail.stop}), feeding every chunk; never rejects (a read error just ends it). */
  async drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#reader = reader;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.push(value);
      }
    } catch {
      // The pipe broke (the process was killed): stderr only feeds error messages, and what was read is kept.
    } finally {
      this.end();
      reader.releaseLock();
    }
  }

  /** Stops a running {@linkcode StderrTail.drain}: the stream is cancelled, what was read is kept. */
  stop(): void {
    this.#reader?.cancel().catch(() => {}); // the pipe may be gone already
  }

  #take(text: string): void {
    let from = 0;
    for (;;) {
      const nl = text.indexOf("\n", from);
      if (nl < 0) break;
      let line = this.#pending + text.slice(from, nl);
      this.#pending = "";
      if (line.endsWith("\r")) line = line.slice(0, -1);
      this.#keep(line);
      from = nl + 1;
    }
    const rest = from === 0 ? text : text.slice(from);
    if (this.#pending.length + rest.length <= MAX_PENDING_CHARS) {
      this.#pending += rest;
      return;
    }
    const combined = this.#pending + rest;
    let at = 0;
    for (; combined.length - at > MAX_PENDING_CHARS; at += MAX_PENDING_CHARS) {
      this.#keep(combined.slice(at, at + MAX_PENDING_CHARS));
    }
    this.#pending = combined.slice(at);
  }

  #keep(line: string): void {
    this.#onLine?.(line);
    if (this.maxLines === 0 || this.maxChars === 0) return;
    const kept = line.length > this.maxChars ? line.slice(line.length - this.maxChars) : line;
    this.#lines.push(kept);
    this.#chars += kept.length;
    while (this.#lines.length > this.maxLines || (this.#chars > this.maxChars && this.#lines.length > 1)) {
      this.#chars -= this.#lines.shift()!.length;
    }
  }
}
