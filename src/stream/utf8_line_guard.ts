/**
 * The byte stage of input framing: counts each line's UTF-8 bytes, drops what lies beyond
 * `maxMessageBytes`, and finds lines that are not valid UTF-8. It tells the text stage what it found
 * through a shared {@linkcode LineLedger}, keyed by line number (the count of `\n` bytes before it).
 * @module
 */

/** What the byte stage learned about a line, for the text stage to act on. */
export type LineVerdict = "oversize" | "invalid_utf8";

/** Shared between the two stages; entries are removed as the text stage passes each line. */
export class LineLedger {
  readonly verdicts = new Map<number, LineVerdict>();
  mark(line: number, verdict: LineVerdict): void {
    if (this.verdicts.get(line) !== "oversize") this.verdicts.set(line, verdict);
  }
  take(line: number): LineVerdict | undefined {
    const v = this.verdicts.get(line);
    if (v !== undefined) this.verdicts.delete(line);
    return v;
  }
  peek(line: number): LineVerdict | undefined {
    return this.verdicts.get(line);
  }
}

const NEWLINE = 0x0a;
const CR = 0x0d;
/** A byte placed in a discarded line so that the text stage hears of the discard at once. */
const DISCARD_MARK = new Uint8Array([0x20]);

/**
 * Validates UTF-8 in JavaScript, byte by byte, following the WHATWG decoder. It runs only on a chunk
 * the host's native fatal decoder rejected, to find which lines hold the bad bytes.
 */
class Utf8Scanner {
  needed = 0;
  seen = 0;
  lower = 0x80;
  upper = 0xbf;

  /** Feeds one byte; returns false when the byte (or the sequence it breaks) is invalid. */
  push(byte: number): boolean {
    if (this.needed === 0) {
      if (byte <= 0x7f) return true;
      if (byte >= 0xc2 && byte <= 0xdf) {
        this.needed = 1;
      } else if (byte >= 0xe0 && byte <= 0xef) {
        if (byte === 0xe0) this.lower = 0xa0;
        if (byte === 0xed) this.upper = 0x9f;
        this.needed = 2;
      } else if (byte >= 0xf0 && byte <= 0xf4) {
        if (byte === 0xf0) this.lower = 0x90;
        if (byte === 0xf4) this.upper = 0x8f;
        this.needed = 3;
      } else {
        return false;
      }
      return true;
    }
    if (byte < this.lower || byte > this.upper) {
      this.reset();
      // The breaking byte starts afresh; a sequence cut short is an error either way.
      this.push(byte);
      return false;
    }
    this.lower = 0x80;
    this.upper = 0xbf;
    this.seen++;
    if (this.seen === this.needed) this.reset();
    return true;
  }

  reset(): void {
    this.needed = 0;
    this.seen = 0;
    this.lower = 0x80;
    this.upper = 0xbf;
  }
}

/** Options of {@linkcode Utf8LineGuard}. */
export interface Utf8LineGuardOptions {
  maxMessageBytes: number;
  ledger: LineLedger;
}

/**
 * A `TransformStream` of bytes to bytes. Lines within the limit pass unchanged (the chunk itself when
 * nothing is dropped); a line longer than `maxMessageBytes` (not counting the `\r` of a `\r\n`
 * terminator) is dropped from the point where it crosses the limit to its newline, in this and every
 * later chunk, so memory stays within the limit plus one chunk whatever the peer sends.
 */
export class Utf8LineGuard extends TransformStream<Uint8Array, Uint8Array> {
  constructor(options: Utf8LineGuardOptions) {
    const { maxMessageBytes, ledger } = options;
    let line = 0;
    let lineBytes = 0;
    let discarding = false;
    /** The line holds `maxMessageBytes` + 1 bytes, the last a `\r`: fine if `\n` comes next. */
    let pendingCr = false;
    let validator = new TextDecoder("utf-8", { fatal: true });
    const scanner = new Utf8Scanner();
    let scannerLine = 0;
    let tail: Uint8Array = new Uint8Array(0);

    /** Runs the JS scanner over `tail + chunk`, marking every line that holds a bad sequence. */
    const scan = (chunk: Uint8Array): void => {
      scanner.reset();
      scannerLine = line;
      const bytes = tail.byteLength ? concat(tail, chunk) : chunk;
      for (let i = 0; i < bytes.byteLength; i++) {
        const b = bytes[i]!;
        if (!scanner.push(b)) ledger.mark(scannerLine, "invalid_utf8");
        if (b === NEWLINE) scannerLine++;
      }
      // A sequence still open at the end of the chunk is kept for the next one.
      const open = scanner.needed > 0 ? scanner.seen + 1 : 0;
      tail = open ? bytes.slice(bytes.byteLength - open) : new Uint8Array(0);
      validator = new TextDecoder("utf-8", { fatal: true });
      if (tail.byteLength) validator.decode(tail, { stream: true });
    };

    const validate = (chunk: Uint8Array): void => {
      // Pure ASCII with no sequence left open is valid and leaves the decoder as it was; checking
      // that is several times cheaper than a fatal decode, and JSON traffic is mostly ASCII.
      if (tail.byteLength === 0 && isAscii(chunk)) return;
      try {
        validator.decode(chunk, { stream: true });
        tail = openTail(chunk, tail);
      } catch {
        scan(chunk);
      }
    };

    super({
      transform(chunk, controller) {
        validate(chunk);
        // `kept` stays undefined while every byte so far is kept: the chunk then passes as it is.
        let kept: Uint8Array[] | undefined;
        let start = 0;
        const drop = (): void => {
          kept ??= [chunk.subarray(0, start)];
        };
        for (;;) {
          const nl = chunk.indexOf(NEWLINE, start);
          const end = nl === -1 ? chunk.byteLength : nl;
          const length = end - start;
          if (length > 0) {
            if (discarding) {
              drop();
            } else if (pendingCr || lineBytes + length > maxMessageBytes) {
              // One byte over is still fine when it is the `\r` of a `\r\n` terminator.
              const crOnly = !pendingCr && lineBytes + length === maxMessageBytes + 1 && chunk[end - 1] === CR;
              if (crOnly && nl !== -1) {
                lineBytes += length;
                kept?.push(chunk.subarray(start, end));
              } else if (crOnly) {
                pendingCr = true;
                lineBytes += length;
                kept?.push(chunk.subarray(start, end));
              } else {
                ledger.mark(line, "oversize");
                discarding = true;
                pendingCr = false;
                drop();
                kept!.push(DISCARD_MARK);
              }
            } else {
              lineBytes += length;
              kept?.push(chunk.subarray(start, end));
            }
          }
          if (nl === -1) break;
          kept?.push(chunk.subarray(nl, nl + 1));
          line++;
          lineBytes = 0;
          discarding = false;
          pendingCr = false;
          start = nl + 1;
        }
        if (!kept) {
          controller.enqueue(chunk);
        } else {
          const out = concatAll(kept);
          if (out.byteLength) controller.enqueue(out);
        }
      },
      flush() {
        if (tail.byteLength) ledger.mark(line, "invalid_utf8");
      },
    });
  }
}

/** True when no byte of `bytes` has its high bit set; reads aligned 32-bit words where it can. */
function isAscii(bytes: Uint8Array): boolean {
  const n = bytes.byteLength;
  const offset = bytes.byteOffset;
  let i = 0;
  for (; i < n && ((offset + i) & 3) !== 0; i++) if (bytes[i]! & 0x80) return false;
  const words = (n - i) >> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, offset + i, words);
    for (let k = 0; k < words; ) {
      const end = Math.min(words, k + 1024);
      let acc = 0;
      for (; k < end; k++) acc |= view[k]!;
      if (acc & 0x80808080) return false;
    }
    i += words * 4;
  }
  for (; i < n; i++) if (bytes[i]! & 0x80) return false;
  return true;
}

/** The bytes of an unfinished UTF-8 sequence at the end of `chunk` (with `prev` when the chunk is short). */
function openTail(chunk: Uint8Array, prev: Uint8Array): Uint8Array {
  const bytes = chunk.byteLength >= 4 ? chunk : concat(prev, chunk);
  const n = bytes.byteLength;
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back]!;
    if (b < 0x80) return EMPTY;
    if (b >= 0xc0) {
      const len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return back < len ? bytes.slice(n - back) : EMPTY;
    }
  }
  return EMPTY;
}

const EMPTY = new Uint8Array(0);

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

function concatAll(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.byteLength;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
