/**
 * `jsonParts`: the JSON text of a message that holds a long string, as short JSON texts with the long
 * strings left raw between them, so that neither `JSON.stringify`'s whole result (a rope of 16 KiB
 * pieces, all alive at once in the young generation) nor its flat copy is ever built: each long
 * string is escaped a piece at a time as it is written.
 * @module
 */

/** A string of at least this many UTF-16 units is a long string. */
export const LONG_STRING_UNITS = 256 * 1024;
/** UTF-16 units of a long string escaped at a time. */
const ESCAPE_PIECE_UNITS = 64 * 1024;
/** Values looked at, per message, for a long string before giving up (and stringifying it whole). */
const SEARCH_BUDGET = 32;
/** Members of an object or array written member by member at most; a larger one is stringified whole. */
const MAX_SPINE_MEMBERS = 256;

/** A long string, kept raw, that is written as a JSON string literal. */
export class LongString {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
}

/** JSON text, or a long string to write as a JSON string literal. */
export type JsonPart = string | LongString;

// deno-lint-ignore no-control-regex
const NEEDS_ESCAPE_OR_NOT_ASCII = /["\\\x00-\x1f\u007f-\uffff]/;

let budget = 0;

/**
 * The parts of `JSON.stringify(message)` when a long string sits on a path of plain objects and
 * arrays (no `toJSON`) among the first {@linkcode SEARCH_BUDGET} values; else `undefined`. Joined, the
 * parts (each long string escaped) are exactly `JSON.stringify(message)`. Everything but the long
 * strings is stringified now, so a later change to the message cannot change what is written.
 * Throws what `JSON.stringify` throws (a BigInt, a cycle: a `TypeError`).
 */
export function jsonParts(message: unknown): JsonPart[] | undefined {
  // A quick look first (this runs for every message); the careful one only when it found something.
  if (!mayHoldLongString(message)) return undefined;
  if (!isSpine(message)) return undefined;
  const parts: JsonPart[] = [];
  appendValue(message, parts, []);
  return parts;
}

/** The JSON string literal of `value` (quotes included), a piece at a time: joined, `JSON.stringify(value)`. */
export function* escapedPieces(value: string): Generator<string> {
  yield '"';
  for (let at = 0; at < value.length;) {
    let end = Math.min(at + ESCAPE_PIECE_UNITS, value.length);
    // Never cut a surrogate pair: JSON.stringify would escape its halves.
    if (
      end < value.length && isHighSurrogate(value.charCodeAt(end - 1)) &&
      isLowSurrogate(value.charCodeAt(end))
    ) {
      end--;
    }
    const escaped = JSON.stringify(value.slice(at, end));
    yield escaped.slice(1, -1);
    at = end;
  }
  yield '"';
}

/** True when `JSON.stringify(value)` is `value` in quotes and all ASCII: its UTF-8 size is then its length + 2. */
export function needsNoEscape(value: string): boolean {
  return !NEEDS_ESCAPE_OR_NOT_ASCII.test(value);
}

/**
 * Whether a long string may be among the first values of `value` (looking through any object): when
 * not, `JSON.stringify(value)` is cheap enough to build whole. About 50 ns for a tool result.
 */
export function mayHoldLongString(value: unknown): boolean {
  budget = SEARCH_BUDGET;
  return searchLongString(value);
}

function searchLongString(value: unknown): boolean {
  if (--budget < 0) return false;
  if (typeof value === "string") return value.length >= LONG_STRING_UNITS;
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (searchLongString(value[i])) return true;
    return false;
  }
  for (const key in value) if (searchLongString((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** Whether a long string is among the first values of `value`, on a path of plain containers. */
function holdsLongString(value: unknown): boolean {
  if (--budget < 0) return false;
  if (typeof value === "string") return value.length >= LONG_STRING_UNITS;
  if (!isPlainContainer(value)) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsLongString(value[i])) return true;
    return false;
  }
  for (const key in value) if (holdsLongString((value as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * A plain object or array without `toJSON`, of at most {@linkcode MAX_SPINE_MEMBERS} members: what is
 * written member by member (each other member stringified on its own), so not a long list of them.
 */
function isPlainContainer(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype || value.length > MAX_SPINE_MEMBERS) return false;
  } else {
    if (proto !== Object.prototype && proto !== null) return false;
    let members = 0;
    for (const _ in value) if (++members > MAX_SPINE_MEMBERS) return false;
  }
  return typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/** Whether to write `value` part by part: a long string, or a plain container that holds one. */
function isSpine(value: unknown): boolean {
  if (typeof value === "string") return value.length >= LONG_STRING_UNITS;
  if (!isPlainContainer(value)) return false;
  budget = SEARCH_BUDGET;
  return holdsLongString(value);
}

function appendText(parts: JsonPart[], text: string): void {
  const last = parts.length - 1;
  if (last >= 0 && typeof parts[last] === "string") parts[last] += text;
  else parts.push(text);
}

/** Appends the parts of a long string or of a plain container holding one (`ancestors`: to refuse a cycle). */
function appendValue(value: unknown, parts: JsonPart[], ancestors: object[]): void {
  if (typeof value === "string") return void parts.push(new LongString(value));
  const container = value as object;
  if (ancestors.includes(container)) throw new TypeError("Converting circular structure to JSON");
  ancestors.push(container);
  if (Array.isArray(container)) {
    appendText(parts, "[");
    for (let i = 0; i < container.length; i++) {
      if (i > 0) appendText(parts, ",");
      const item: unknown = container[i];
      if (isSpine(item)) {
        appendValue(item, parts, ancestors);
      } else {
        // Stringified as a member of its own, so that a `toJSON` gets the key JSON.stringify gives it.
        const key = String(i);
        const text = JSON.stringify({ [key]: item }) as string;
        appendText(parts, text.length === 2 ? "null" : text.slice(JSON.stringify(key).length + 2, -1));
      }
    }
    appendText(parts, "]");
  } else {
    appendText(parts, "{");
    let first = true;
    const record = container as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const member: unknown = record[key];
      if (isSpine(member)) {
        appendText(parts, `${first ? "" : ","}${JSON.stringify(key)}:`);
        appendValue(member, parts, ancestors);
        first = false;
      } else {
        const text = JSON.stringify({ [key]: member }) as string;
        if (text.length === 2) continue; // undefined, a function or a symbol: left out, as JSON.stringify does
        appendText(parts, `${first ? "" : ","}${text.slice(1, -1)}`);
        first = false;
      }
    }
    appendText(parts, "}");
  }
  ancestors.pop();
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
