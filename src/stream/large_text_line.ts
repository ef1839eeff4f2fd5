/**
 * `LargeTextLine`: a long message queued as JSON text (or as {@linkcode jsonParts}, its long strings
 * still raw) and encoded to UTF-8 as it is written, a window of blocks at a time. A large message
 * never exists as one encoded copy, so the process does not allocate, page-fault and free one array
 * of its whole size per message.
 * @module
 */
import { escapedPieces, type JsonPart, LongString, needsNoEscape } from "./json_parts.ts";

const encoder = new TextEncoder();
const NEWLINE = 0x0a;
/** What {@linkcode utf8Length} encodes into, chunk by chunk, to count. */
const scratch = new Uint8Array(64 * 1024);
/** Where one code point that does not fit the rest of a window is encoded, to be split across two. */
const pointBytes = new Uint8Array(4);
/** Bytes encoded at once (rounded down to whole blocks); blocks are views into them. */
const WINDOW_BYTES = 256 * 1024;

/**
 * The UTF-8 length of `text` as `TextEncoder` encodes it (a lone surrogate counts as the 3 bytes of
 * U+FFFD), counted by encoding it in chunks into a small scratch array: no copy of the whole text.
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let at = 0; at < text.length;) {
    // One unit more than the scratch holds: encoding stops at a full scratch before it reaches the
    // last unit, so a surrogate pair cut by the slice is never encoded as two lone halves.
    const { read, written } = encoder.encodeInto(text.slice(at, at + scratch.byteLength + 1), scratch);
    at += read;
    bytes += written;
  }
  return bytes;
}

/** UTF-8 bytes of a part as written. */
function partBytes(part: JsonPart): number {
  if (typeof part === "string") return utf8Length(part);
  if (needsNoEscape(part.value)) return part.value.length + 2;
  let bytes = 0;
  for (const piece of escapedPieces(part.value)) bytes += utf8Length(piece);
  return bytes;
}

/** The text pieces of `parts` in order: JSON text as is, long strings escaped a piece at a time. */
function* textPieces(parts: readonly JsonPart[]): Generator<string> {
  for (const part of parts) {
    if (part instanceof LongString) yield* escapedPieces(part.value);
    else yield part;
  }
}

/**
 * One long message as queued: its JSON text or parts, its exact size in UTF-8 bytes (the `\n`
 * included), and a cursor. {@linkcode take} hands out views into a window encoded straight from the
 * text; a code point that does not fit the end of a window is split across it and the next, so every
 * block but the last has exactly the size asked for.
 */
export class LargeTextLine {
  /** UTF-8 bytes of the text plus its `\n`. */
  readonly bytes: number;
  readonly #pieces: Iterator<string>;
  /** The piece being encoded, and the next UTF-16 unit of it to encode. */
  #piece = "";
  #next = 0;
  #piecesDone = false;
  /** Bytes encoded so far (into windows). */
  #encoded = 0;
  /** Bytes of a code point split by the end of the last window, still owed: `pointBytes[#carryFrom, #carryTo)`. */
  #carryFrom = 0;
  #carryTo = 0;
  #window = new Uint8Array(0);
  #windowAt = 0;

  /** `text`: JSON text; or the parts of one from {@linkcode jsonParts}. */
  constructor(text: string | readonly JsonPart[]) {
    const parts = typeof text === "string" ? [text] : text;
    let bytes = 1;
    for (const part of parts) bytes += partBytes(part);
    this.bytes = bytes;
    this.#pieces = textPieces(parts);
  }

  /** The next block, `min(limit, bytes not yet taken)` bytes long (`limit` ≥ 1). */
  take(limit: number): Uint8Array {
    if (this.#windowAt === this.#window.byteLength) {
      const left = this.bytes - this.#encoded;
      const size = Math.min(left, limit * Math.max(1, Math.floor(WINDOW_BYTES / limit)));
      this.#window = new Uint8Array(size);
      this.#windowAt = 0;
      this.#fill(this.#window);
      this.#encoded += size;
    }
    const end = Math.min(this.#windowAt + limit, this.#window.byteLength);
    const block = this.#window.subarray(this.#windowAt, end);
    this.#windowAt = end;
    return block;
  }

  /** Encodes the next `target.byteLength` bytes of the line into `target`. */
  #fill(target: Uint8Array): void {
    const size = target.byteLength;
    let at = 0;
    while (this.#carryFrom < this.#carryTo && at < size) target[at++] = pointBytes[this.#carryFrom++]!;
    while (at < size) {
      if (this.#next === this.#piece.length && !this.#nextPiece()) {
        target[at++] = NEWLINE; // the text is all out: this byte ends the line
        continue;
      }
      const piece = this.#piece;
      const space = size - at;
      const { read, written } = encoder.encodeInto(
        piece.slice(this.#next, this.#next + space + 1), // see utf8Length: one unit more than fits
        target.subarray(at),
      );
      this.#next += read;
      at += written;
      if (at < size && this.#next < piece.length) {
        // The next code point is longer than the space left: its first bytes end this window.
        const first = piece.charCodeAt(this.#next);
        const units = first >= 0xd800 && first <= 0xdbff && isLowSurrogate(piece.charCodeAt(this.#next + 1))
          ? 2
          : 1;
        const point = encoder.encodeInto(piece.slice(this.#next, this.#next + units), pointBytes);
        this.#next += units;
        const n = Math.min(size - at, point.written);
        target.set(pointBytes.subarray(0, n), at);
        at += n;
        this.#carryFrom = n;
        this.#carryTo = point.written;
      }
    }
  }

  #nextPiece(): boolean {
    if (this.#piecesDone) return false;
    const next = this.#pieces.next();
    if (next.done) {
      this.#piecesDone = true;
      this.#piece = "";
      this.#next = 0;
      return false;
    }
    this.#piece = next.value;
    this.#next = 0;
    return true;
  }
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
