/**
 * Input framing: bytes in, one event per line out.
 *
 * `bytes → Utf8LineGuard → TextDecoderStream → LineSplitter`. The guard bounds each line in bytes and
 * finds invalid UTF-8; the `TextDecoderStream` reassembles code points split across chunks; the
 * splitter cuts on `\n`, strips a trailing `\r`, skips blank lines and turns what the guard found into
 * typed errors, in line order.
 * @module
 */
import { InvalidUtf8Error, MessageTooLargeError } from "./errors.ts";
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

/** The text stage: a `TransformStream` of decoded text to {@linkcode InputLine}s. */
export class LineSplitter extends TransformStream<string, InputLine> {
  constructor(ledger: LineLedger, maxMessageBytes: number) {
    let line = 0;
    let parts: string[] = [];
    let discarding = false;

    const finishLine = (controller: TransformStreamDefaultController<InputLine>, last: string): void => {
      const verdict = ledger.take(line);
      if (discarding) {
        // Already reported when the discard began.
      } else if (verdict === "oversize") {
        controller.enqueue({ kind: "error", error: new MessageTooLargeError(maxMessageBytes) });
      } else if (verdict === "invalid_utf8") {
        controller.enqueue({ kind: "error", error: new InvalidUtf8Error() });
      } else {
        let text = parts.length === 0 ? last : (parts.push(last), parts.join(""));
        if (text.endsWith("\r")) text = text.slice(0, -1);
        if (text.length !== 0 && !isBlank(text)) controller.enqueue({ kind: "line", text });
      }
      parts = [];
      discarding = false;
      line++;
    };

    const startDiscardIfFlagged = (controller: TransformStreamDefaultController<InputLine>): void => {
      if (!discarding && ledger.peek(line) === "oversize") {
        discarding = true;
        parts = [];
        controller.enqueue({ kind: "error", error: new MessageTooLargeError(maxMessageBytes) });
      }
    };

    super({
      transform(chunk, controller) {
        let start = 0;
        for (;;) {
          const nl = chunk.indexOf("\n", start);
          if (nl === -1) {
            startDiscardIfFlagged(controller);
            if (!discarding && start < chunk.length) parts.push(start === 0 ? chunk : chunk.slice(start));
            return;
          }
          finishLine(controller, chunk.slice(start, nl));
          start = nl + 1;
        }
      },
      flush(controller) {
        if (parts.length || discarding || ledger.peek(line) !== undefined) finishLine(controller, "");
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
  return readable
    .pipeThrough(new Utf8LineGuard({ maxMessageBytes, ledger }))
    .pipeThrough(new TextDecoderStream("utf-8") as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new LineSplitter(ledger, maxMessageBytes));
}
