/**
 * `quotePeerText`: the one way peer-controlled text (a method, an id, a line) enters an error message
 * or a report: a bounded prefix, JSON-escaped, so a 10 MB method costs a few hundred bytes of report
 * and a newline in it never starts a new line of a log.
 * @module
 */

/** How many characters of peer text a message quotes by default. */
export const PEER_TEXT_QUOTE_CHARS = 128;

// JSON.stringify escapes C0 controls, `"` and `\`; these are the other characters that can break or
// steer a line of output: DEL, the C1 controls (NEL among them) and the Unicode line separators.
const OTHER_BREAKERS = /[\u007f-\u009f\u2028\u2029]/g;

/**
 * Quotes `value` for an error message or a report: a string becomes a JSON string literal of at most
 * `max` characters (longer ones are cut and say their length), with every control character and
 * line separator escaped; a number, boolean or null is written as is; anything else is named by its
 * type only (never serialized, so its size cannot matter).
 *
 * @example
 * ```ts
 * quotePeerText("tools/call\nFAKE LOG LINE"); // "\"tools/call\\nFAKE LOG LINE\""
 * quotePeerText("x".repeat(1e7), 8);         // "\"xxxxxxxx\"… (10000000 characters)"
 * ```
 */
export function quotePeerText(value: unknown, max: number = PEER_TEXT_QUOTE_CHARS): string {
  switch (typeof value) {
    case "string": {
      const cut = value.length > max;
      const quoted = JSON.stringify(cut ? value.slice(0, max) : value).replace(OTHER_BREAKERS, escapeChar);
      return cut ? `${quoted}… (${value.length} characters)` : quoted;
    }
    case "number":
    case "boolean":
      return String(value);
    default:
      return value === null ? "null" : `(${Array.isArray(value) ? "array" : typeof value})`;
  }
}

function escapeChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
