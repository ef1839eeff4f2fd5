/**
 * `LargeTextLine`: a long JSON text queued as text and encoded to UTF-8 one block at a time, so a
 * large message never exists as one encoded copy (and the process never allocates, page-faults and
 * frees one array of the message's whole size).
 * @module
 */

const encoder = new TextEncoder();
const NEWLINE = 0x0a;
/** What {@linkcode utf8Length} encodes into, chunk by chunk, to count. */
const scratch = new Uint8Array(64 * 1024);
/** Where one code point that does not fit the rest of a block is encoded, to be split across two blocks. */
const pointBytes = new Uint8Array(4);

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

/**
 * One long message as queued: its JSON text, its exact size in UTF-8 bytes (the `\n` included), and
 * a cursor. {@linkcode take} encodes the next block straight from the text; a code point that does not
 * fit the end of a block is split across it and the next, so every block but the last has exactly
 * the size asked for.
 */
export class LargeTextLine {
  readonly text: string;
  /** UTF-8 bytes of the text plus its `\n`. */
  readonly bytes: number;
  /** The next UTF-16 unit of `text` to encode. */
  #next = 0;
  /** Bytes handed out so far. */
  #taken = 0;
  /** Bytes of a code point split by the end of the last block, still owed: `pointBytes[#carryFrom, #carryTo)`. */
  #carryFrom = 0;
  #carryTo = 0;

  constructor(text: string) {
    this.text = text;
    this.bytes = utf8Length(text) + 1;
  }

  /** The next block, `min(limit, bytes not yet taken)` bytes long (`limit` ≥ 1). */
  take(limit: number): Uint8Array {
    const text = this.text;
    const size = Math.min(limit, this.bytes - this.#taken);
    const block = new Uint8Array(size);
    let at = 0;
    while (this.#carryFrom < this.#carryTo && at < size) block[at++] = pointBytes[this.#carryFrom++]!;
    if (at < size && this.#next < text.length) {
      const space = size - at;
      const { read, written } = encoder.encodeInto(
        text.slice(this.#next, this.#next + space + 1), // see utf8Length: one unit more than fits
        block.subarray(at),
      );
      this.#next += read;
      at += written;
      if (at < size && this.#next < text.length) {
        // The next code point is longer than the space left: its first bytes end this block.
        const first = text.charCodeAt(this.#next);
        const units = first >= 0xd800 && first <= 0xdbff && isLowSurrogate(text.charCodeAt(this.#next + 1))
          ? 2
          : 1;
        const point = encoder.encodeInto(text.slice(this.#next, this.#next + units), pointBytes);
        this.#next += units;
        const n = size - at;
        block.set(pointBytes.subarray(0, n), at);
        at += n;
        this.#carryFrom = n;
        this.#carryTo = point.written;
      }
    }
    if (at < size) block[at++] = NEWLINE; // the text is all out: the block ends the line
    this.#taken += size;
    return block;
  }
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
