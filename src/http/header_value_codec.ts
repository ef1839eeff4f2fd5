/**
 * The `=?base64?…?=` header value encoding of the 2026-07-28 Streamable HTTP transport, both ways,
 * and the comparison of a decoded header value with the body value it mirrors.
 * @module
 */

const PREFIX = "=?base64?";
const SUFFIX = "?=";
/** Canonical padded base64 (RFC 4648 §4): whole quads, then an optional `xx==` or `xxx=` quad. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** An integer or decimal as JSON writes it, with an optional exponent: `42`, `-7`, `42.0`, `4.2e1`. */
const NUMERIC = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The default bound of {@linkcode decodeHeaderValue} on the raw header value, in characters. */
export const DEFAULT_MAX_HEADER_VALUE_LENGTH = 8192;

/** The outcome of {@linkcode decodeHeaderValue}. */
export type HeaderDecoding = { ok: true; value: string } | { ok: false; reason: string };

/** Options of {@linkcode decodeHeaderValue}. */
export interface DecodeHeaderValueOptions {
  /**
   * Longest raw value accepted, in characters, before any decoding. Default 8192.
   * @default 8192
   */
  maxLength?: number;
}

/** True when `text` starts with `=?base64?` and ends with `?=` (the sentinel pattern). */
export function isBase64Sentinel(text: string): boolean {
  return text.length >= PREFIX.length + SUFFIX.length && text.startsWith(PREFIX) && text.endsWith(SUFFIX);
}

/** True when `text` can travel as a plain header value: visible ASCII and inner spaces only, no sentinel look-alike. */
export function isPlainHeaderSafe(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  if (text.length > 0 && (text.charCodeAt(0) === 0x20 || text.charCodeAt(text.length - 1) === 0x20)) {
    return false;
  }
  return !isBase64Sentinel(text);
}

/**
 * The header form of `text`: `text` itself when it is plain-header safe, else `=?base64?…?=` around
 * the base64 of its UTF-8 bytes (non-ASCII, control characters including tab, leading or trailing
 * whitespace, or a plain value that looks like the sentinel). A lone surrogate is sent as U+FFFD.
 *
 * @example
 * ```ts
 * encodeHeaderValue("us-west1");    // "us-west1"
 * encodeHeaderValue("Hello, 世界"); // "=?base64?SGVsbG8sIOS4lueVjA==?="
 * ```
 */
export function encodeHeaderValue(text: string): string {
  if (isPlainHeaderSafe(text)) return text;
  return `${PREFIX}${bytesToBase64(new TextEncoder().encode(text))}${SUFFIX}`;
}

/**
 * Decodes a received header value, strictly. Optional whitespace around the value is removed first
 * (RFC 9110 §5.5). A value in the sentinel pattern must hold canonical padded base64 of valid UTF-8;
 * any other value is taken literally and must consist of visible ASCII, spaces and tabs. Values longer
 * than `maxLength` are refused before decoding. Never throws.
 *
 * @example
 * ```ts
 * decodeHeaderValue("=?base64?SGVsbG8=?="); // { ok: true, value: "Hello" }
 * decodeHeaderValue("=?base64?SGVsbG8?=");  // { ok: false, reason: "…padding…" }
 * ```
 */
export function decodeHeaderValue(raw: string, options: DecodeHeaderValueOptions = {}): HeaderDecoding {
  const maxLength = options.maxLength ?? DEFAULT_MAX_HEADER_VALUE_LENGTH;
  if (raw.length > maxLength) {
    return {
      ok: false,
      reason: `Header value is ${raw.length} characters long, over the limit of ${maxLength}`,
    };
  }
  const value = trimOptionalWhitespace(raw);
  if (!isBase64Sentinel(value)) {
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if ((c < 0x20 && c !== 0x09) || c > 0x7e) {
        return {
          ok: false,
          reason: `Header value holds the invalid character U+${
            c.toString(16).toUpperCase().padStart(4, "0")
          } at index ${i}`,
        };
      }
    }
    return { ok: true, value };
  }
  const body = value.slice(PREFIX.length, value.length - SUFFIX.length);
  if (body.length % 4 !== 0 || !BASE64.test(body)) {
    return {
      ok: false,
      reason: `Header value ${JSON.stringify(value.slice(0, 80))} is not canonical padded base64`,
    };
  }
  const bytes = base64ToBytes(body);
  if (bytesToBase64(bytes) !== body) {
    return {
      ok: false,
      reason: `Header value ${
        JSON.stringify(value.slice(0, 80))
      } has non-zero padding bits (not canonical base64)`,
    };
  }
  try {
    return { ok: true, value: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return {
      ok: false,
      reason: `Header value ${JSON.stringify(value.slice(0, 80))} decodes to bytes that are not UTF-8`,
    };
  }
}

/**
 * The text a body value is mirrored as (the spec's type conversion): a string as-is, an integer in
 * decimal, a boolean as `true`/`false`. `undefined` for `null`, `undefined` and anything else (the
 * header is then omitted). Numbers that are not safe integers give `undefined`: only integers
 * within ±(2^53 − 1) may be mirrored.
 */
export function headerTextOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/**
 * True when a decoded header value mirrors `bodyValue`: strings compare exactly (case-sensitive),
 * booleans as lowercase `true`/`false`, integers numerically (`42`, `42.0` and `4.2e1` all match 42).
 * A body value of any other type never matches.
 */
export function headerValueMatches(decoded: string, bodyValue: unknown): boolean {
  if (typeof bodyValue === "string") return decoded === bodyValue;
  if (typeof bodyValue === "boolean") return decoded === (bodyValue ? "true" : "false");
  if (typeof bodyValue === "number" && Number.isSafeInteger(bodyValue)) {
    return NUMERIC.test(decoded) && Number(decoded) === bodyValue;
  }
  return false;
}

function trimOptionalWhitespace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isOws(text.charCodeAt(start))) start++;
  while (end > start && isOws(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function isOws(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
