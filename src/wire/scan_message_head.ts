/**
 * `scanMessageHead`: what the start of a JSON-RPC line says about it without parsing it whole: the
 * source text of its top-level `id` and which top-level members it has. Used where a line cannot or
 * should not be parsed: an oversize line being discarded (only its head is kept), and an id whose
 * number JSON.parse cannot hold exactly.
 * @module
 */

/** What {@linkcode scanMessageHead} found in the part of a line it read. */
export interface MessageHead {
  /** The top-level `id` member's source text (a JSON string or number literal), when it was read whole. */
  idLiteral?: string;
  /** Top-level members seen: `method` (a request or notification), `result` or `error` (a reply). */
  hasMethod: boolean;
  hasResult: boolean;
  hasError: boolean;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Walks the top-level members of the JSON object at the start of `text`, reading no further than
 * `limit` characters, skipping nested values without building them. Stops quietly at the limit or at
 * anything that is not JSON; what it read by then is the answer. Keys are compared as written (an
 * escaped key such as `"\u0069d"` is not recognized).
 *
 * @example
 * ```ts
 * scanMessageHead('{"jsonrpc":"2.0","id":9007199254740993,"result":{}}').idLiteral; // "9007199254740993"
 * ```
 */
export function scanMessageHead(text: string, limit: number = text.length): MessageHead {
  const head: MessageHead = { hasMethod: false, hasResult: false, hasError: false };
  walkMembers(text, 0, Math.min(limit, text.length), (key, start, end) => {
    if (key === "method") head.hasMethod = true;
    else if (key === "result") head.hasResult = true;
    else if (key === "error") head.hasError = true;
    else if (key === "id" && end >= 0) {
      const literal = text.slice(start, end);
      if (isStringOrNumber(literal)) head.idLiteral = literal;
    }
    return true;
  });
  return head;
}

/**
 * The source text of the string or number member `inner` of the object member `outer` of the JSON
 * object `text` (say `params.requestId` of a `notifications/cancelled`), or `undefined`.
 */
export function nestedMemberLiteral(text: string, outer: string, inner: string): string | undefined {
  let found: string | undefined;
  walkMembers(text, 0, text.length, (key, start) => {
    if (key !== outer) return true;
    if (text.charCodeAt(start) !== 0x7b /* { */) return false;
    walkMembers(text, start, text.length, (innerKey, innerStart, innerEnd) => {
      if (innerKey !== inner) return true;
      if (innerEnd < 0) return false;
      const literal = text.slice(innerStart, innerEnd);
      if (isStringOrNumber(literal)) found = literal;
      return false;
    });
    return false;
  });
  return found;
}

function isStringOrNumber(literal: string): boolean {
  const first = literal.charCodeAt(0);
  return first === 0x22 || first === 0x2d || (first >= 0x30 && first <= 0x39);
}

/**
 * Walks the members of the JSON object starting at `from` (after whitespace), calling `visit` with
 * each key and its value's bounds (`end` -1 when the value does not end before `end`) until it
 * returns false; stops quietly at `end` or at anything that
 * is not JSON.
 */
function walkMembers(
  text: string,
  from: number,
  end: number,
  visit: (key: string, start: number, end: number) => boolean,
): void {
  let i = skipWs(text, from, end);
  if (text.charCodeAt(i) !== 0x7b /* { */) return;
  i++;
  for (;;) {
    i = skipWs(text, i, end);
    if (i >= end || text.charCodeAt(i) !== 0x22 /* " */) return;
    const keyEnd = stringEnd(text, i, end);
    if (keyEnd < 0) return;
    const key = text.slice(i + 1, keyEnd - 1);
    i = skipWs(text, keyEnd, end);
    if (text.charCodeAt(i) !== 0x3a /* : */) return;
    i = skipWs(text, i + 1, end);
    const valueEnd = skipValue(text, i, end);
    // Visited even when the value runs past the limit (-1): an oversize line's head still has a method.
    if (!visit(key, i, valueEnd) || valueEnd < 0) return;
    i = skipWs(text, valueEnd, end);
    const c = text.charCodeAt(i);
    if (c === 0x2c /* , */) i++;
    else return; // `}` or the limit: done either way
  }
}

function skipWs(text: string, i: number, end: number): number {
  while (i < end && WS.has(text.charCodeAt(i))) i++;
  return i;
}

/** The index after the string starting at `i` (a `"`), or -1 when it does not end before `end`. */
function stringEnd(text: string, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c /* \ */) j++;
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

/** The index after the value starting at `i`, or -1 when it does not end before `end`. */
function skipValue(text: string, i: number, end: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i, end);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < end; j++) {
      const d = text.charCodeAt(j);
      if (d === 0x22) {
        j = stringEnd(text, j, end) - 1;
        if (j < 0) return -1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter, which must be inside the limit.
  let j = i;
  while (j < end) {
    const d = text.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x5d || WS.has(d)) return j === i ? -1 : j;
    j++;
  }
  return -1;
}
