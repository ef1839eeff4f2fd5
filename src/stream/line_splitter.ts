/**
 * Input framing: bytes in, one event per line out.
 *
 * `bytes → Utf8LineGuard → TextDecoderStream → LineSplitter`. The guard bounds each line in bytes and
 * finds invalid UTF-8; the `TextDecoderStream` reassembles code points split across chunks; the
 * splitter cuts on `\n`, strips a trailing `\r`, skips blank lines and turns what the guard found into
 * typed errors, in line order.
 * @module
 */
import { InvalidUtf8Error, MessageTooLargeError } from "../wire/errors.ts";
import { LineLedger, Utf8LineGuard } from "./utf8_line_guard.ts";

/** One event of the input: a line's text, or a typed error that stands in for a discarded line. */
export type InputLine =
  | { kind: "line"; text: string }
  | { kind: "error"; error: MessageTooLargeError | InvalidUtf8Error };

/** Options of {@linkcode splitLines}. */
export interface LineSplitterOptions {
  /** Longest accepted line in UTF-8 bytes, without its `\n`. Default {@linkcode DEFAULT_MAX_MESSAGE_BYTES}. */
  maxMessageBytes?: number;
}

/** 16 MiB: above the 10 MiB the MCP TypeScript SDK reads, so anything it sends fits. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * Cuts decoded text into lines: the logic shared by {@linkcode LineSplitter} (one event per line)
 * and {@linkcode LineBatchSplitter} (the events of one chunk at once).
 */
function lineCutter(ledger: LineLedger, maxMessageBytes: number, emit: (event: InputLine) => void): { cut(chunk: string): void; end(): void } {
  let line = 0;
  let parts: string[] = [];
  let discarding = false;

  const finishLine = (last: string): void => {
    const verdict = ledger.take(line);
    if (discarding) {
      // Already reported when the discard began.
    } else if (verdict === "oversize") {
      emit({ kind: "error", error: new MessageTooLargeError(maxMessageBytes) });
    } else if (verdict === "invalid_utf8") {
      emit({ kind: "error", error: new InvalidUtf8Error() });
    } else {
      let text = parts.length === 0 ? last : (parts.push(last), parts.join(""));
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (text.length !== 0 && !isBlank(text)) emit({ kind: "line", text });
    }
    parts = [];
    discarding = false;
    line++;
  };

  const startDiscardIfFlagged = (): void => {
    if (!discarding && ledger.peek(line) === "oversize") {
      discarding = true;
      parts = [];
      emit({ kind: "error", error: new MessageTooLargeError(maxMessageBytes) });
    }
  };

  return {
    cut(chunk) {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf("\n", start);
        if (nl === -1) {
          startDiscardIfFlagged();
          if (!discarding && start < chunk.length) parts.push(start === 0 ? chunk : chunk.slice(start));
          return;
        }
        finishLine(chunk.slice(start, nl));
        start = nl + 1;
      }
    },
    end() {
      if (parts.length || discarding || ledger.peek(line) !== undefined) finishLine("");
    },
  };
}

/** The text stage: a `TransformStream` of decoded text to {@linkcode InputLine}s, one per line. */
export class LineSplitter extends TransformStream<string, InputLine> {
  constructor(ledger: LineLedger, maxMessageBytes: number) {
    let cutter!: ReturnType<typeof lineCutter>;
    super({
      start(controller) {
        cutter = lineCutter(ledger, maxMessageBytes, (event) => controller.enqueue(event));
      },
      transform(chunk) {
        cutter.cut(chunk);
      },
      flush() {
        cutter.end();
      },
    });
  }
}

/**
 * The text stage in batches: every event cut from one chunk of text is enqueued as one array, so a
 * chunk holding many small messages costs one stream operation instead of one per line.
 */
export class LineBatchSplitter extends TransformStream<string, InputLine[]> {
  constructor(ledger: LineLedger, maxMessageBytes: number) {
    let batch: InputLine[] = [];
    const cutter = lineCutter(ledger, maxMessageBytes, (event) => batch.push(event));
    const emit = (controller: TransformStreamDefaultController<InputLine[]>): void => {
      if (batch.length === 0) return;
      controller.enqueue(batch);
      batch = [];
    };
    super({
      transform(chunk, controller) {
        cutter.cut(chunk);
        emit(controller);
      },
      flush(controller) {
        cutter.end();
        emit(controller);
      },
    });
  }
}

function isBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  // Only lines that start with white space can be blank; JSON messages start with `{` or `[`.
  if (first !== 0x20 && first !== 0x09 && first !== 0x0d) return false;
  return text.trim().length === 0;
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
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const ledger = new LineLedger();
  return decodeText(readable, ledger, maxMessageBytes).pipeThrough(new LineSplitter(ledger, maxMessageBytes));
}

/** Like {@linkcode splitLines}, but yields the events of each chunk as one array (never empty). */
export function splitLineBatches(readable: ReadableStream<Uint8Array>, options: LineSplitterOptions = {}): ReadableStream<InputLine[]> {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const ledger = new LineLedger();
  return decodeText(readable, ledger, maxMessageBytes).pipeThrough(new LineBatchSplitter(ledger, maxMessageBytes));
}

function decodeText(readable: ReadableStream<Uint8Array>, ledger: LineLedger, maxMessageBytes: number): ReadableStream<string> {
  return readable
    .pipeThrough(new Utf8LineGuard({ maxMessageBytes, ledger }))
    .pipeThrough(new TextDecoderStream("utf-8") as unknown as TransformStream<Uint8Array, string>);
}
