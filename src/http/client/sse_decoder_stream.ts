/**
 * Server-sent events in: bytes of a `text/event-stream` body to events, by the WHATWG
 * event-stream interpretation rules, with a per-event byte cap. Built on `eventsource-parser`.
 * @module
 */
import { createParser, type EventSourceParser } from "eventsource-parser";
import { integerOption } from "../../stream/options.ts";
import { EventTooLargeError } from "../errors.ts";

/** One dispatched event, as an `EventSource` would deliver it. */
export interface SseEvent {
  /** The event type: the last `event:` field of the block, or `message`. */
  type: string;
  /** The `data:` lines of the block joined with LF. */
  data: string;
  /** The last event ID string after this block: the last `id:` seen so far in the stream, `""` before any. */
  lastEventId: string;
}

/** The default {@linkcode SseDecoderStreamOptions.maxEventBytes}: 4 MiB, like the request body cap. */
export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** Options of {@linkcode SseDecoderStream}. */
export interface SseDecoderStreamOptions {
  /**
   * Largest event accepted: the UTF-8 size of its data. A bigger one errors the stream with
   * {@linkcode EventTooLargeError}; while lines and events arrive across chunks, no more than about
   * this much is held (a line that cannot matter, such as a comment without `onComment`, is skipped,
   * not held). Default 4 MiB.
   * @default 4 MiB
   */
  maxEventBytes?: number;
  /** Called with each valid `retry:` value (milliseconds). */
  onRetry?: (retryMs: number) => void;
  /** Called with the text of each comment line (after `:` and one optional space). */
  onComment?: (text: string) => void;
}

/** Characters a line's field name and separator (`data: `) add to the parser's buffer on top of the data. */
const LINE_OVERHEAD = 16;

/**
 * A `TransformStream<Uint8Array, SseEvent>`: pipe a response body through it.
 *
 * Exact to the WHATWG rules: UTF-8 decoding with U+FFFD for bad bytes, one leading BOM ignored (a
 * second one is part of the first line), lines ended by CRLF, CR or LF (also when CR and LF land in
 * different chunks), chunks split anywhere (inside a line, a field name or a code point), comments
 * ignored, field names case-sensitive, `data` lines joined with LF, an empty `event` meaning
 * `message`, an `id` containing NUL ignored, the last event ID kept across events (and updated by a
 * block without data), `retry` taken only when all digits, a block without `data` dispatching
 * nothing, and an unfinished event at the end of the stream discarded.
 *
 * @example
 * ```ts
 * const response = await fetch("https://mcp.example.com/mcp", { headers: { accept: "text/event-stream" } });
 * const events = response.body!.pipeThrough(new SseDecoderStream({ maxEventBytes: 1 << 20 }));
 * for await (const event of events) console.log(event.type, JSON.parse(event.data));
 * ```
 */
export class SseDecoderStream implements TransformStream<Uint8Array, SseEvent> {
  readonly readable: ReadableStream<SseEvent>;
  readonly writable: WritableStream<Uint8Array>;
  readonly maxEventBytes: number;
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  readonly #parser: EventSourceParser;
  #controller!: TransformStreamDefaultController<SseEvent>;
  #lastEventId = "";
  #retry: number | undefined;
  #bomChecked = false;
  #tooLarge = false;

  constructor(options: SseDecoderStreamOptions = {}) {
    this.maxEventBytes = integerOption("maxEventBytes", options.maxEventBytes, DEFAULT_MAX_EVENT_BYTES, 1);
    const { onRetry, onComment } = options;
    this.#parser = createParser({
      maxBufferSize: this.maxEventBytes + LINE_OVERHEAD,
      onId: (id) => {
        this.#lastEventId = id;
      },
      onEvent: (message) => {
        if (this.#tooLarge) return;
        if (message.data.length > this.maxEventBytes / 3 && utf8Length(message.data) > this.maxEventBytes) {
          this.#tooLarge = true;
          return;
        }
        this.#controller.enqueue({
          type: message.event || "message",
          data: message.data,
          lastEventId: this.#lastEventId,
        });
      },
      onRetry: (retry) => {
        this.#retry = retry;
        onRetry?.(retry);
      },
      ...(onComment ? { onComment } : {}),
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded") this.#tooLarge = true;
        // 'invalid-retry' and 'unknown-field': the WHATWG rules ignore such lines.
      },
    });
    // The parser strips a leading BOM itself, but also a leading "ï»¿" (a BOM decoded as Latin-1),
    // which WHATWG does not. A first blank line ends its BOM check at no cost (it dispatches nothing);
    // the one real BOM is stripped below.
    this.#parser.feed("\n");
    const transform = new TransformStream<Uint8Array, SseEvent>({
      start: (controller) => {
        this.#controller = controller;
      },
      transform: (chunk) => this.#feed(this.#decoder.decode(chunk, { stream: true })),
      flush: () => this.#feed(this.#decoder.decode()),
    });
    this.readable = transform.readable;
    this.writable = transform.writable;
  }

  /** The last event ID string so far (the value for a `Last-Event-ID` header on reconnection). */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** The last valid `retry:` value in milliseconds, if the stream sent one. */
  get retry(): number | undefined {
    return this.#retry;
  }

  #feed(text: string): void {
    if (!this.#bomChecked && text.length > 0) {
      this.#bomChecked = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.length > 0) this.#parser.feed(text);
    if (this.#tooLarge) throw new EventTooLargeError(this.maxEventBytes);
  }
}

/** UTF-8 byte length of `text` (a lone surrogate counts 3, as U+FFFD). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (
      c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    ) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
