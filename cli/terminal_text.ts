/**
 * Text from a server made inert before it reaches the user's terminal.
 *
 * A server controls tool names, descriptions, results, error messages and its stderr. Printed raw, an
 * ESC sequence in any of them can move the cursor, clear the screen, change the window title (OSC),
 * rewrite the clipboard (OSC 52) or ring the bell; a Unicode bidi override can make text read
 * differently from what it is. Everything the CLI prints that came from a server goes through
 * {@linkcode terminalText} (or {@linkcode terminalJson} for `--json`), which shows each such character
 * as a visible escape instead:
 *
 * - C0 controls U+0000–U+001F (ESC, BEL, BS, CR, …) and DEL U+007F as `\x1B`; a tab and a line feed
 *   are kept in multi-line text only (`multiline: true`), and CR LF becomes LF there;
 * - C1 controls U+0080–U+009F (8-bit CSI U+009B, OSC U+009D, …) as `\x9B`;
 * - bidi embeddings, overrides, isolates and marks (U+061C, U+200E, U+200F, U+202A–U+202E,
 *   U+2066–U+2069) and the line and paragraph separators (U+2028, U+2029) as `\u202E`.
 *
 * Nothing else changes, so ordinary text (accents, CJK, emoji) prints as it is.
 * @module
 */

/** Every character {@linkcode terminalText} escapes (besides tab and LF on single lines). */
const UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_SINGLE_LINE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Options of {@linkcode terminalText}. */
export interface TerminalTextOptions {
  /** Keep line feeds and tabs (text bodies, stderr); otherwise they are escaped too (names, one-line fields). */
  multiline?: boolean;
}

function visible(char: string): string {
  const code = char.charCodeAt(0);
  const hex = code.toString(16).toUpperCase();
  return code <= 0xff ? `\\x${hex.padStart(2, "0")}` : `\\u${hex.padStart(4, "0")}`;
}

/** `value` as text that cannot control the terminal (non-strings are converted with `String`). */
export function terminalText(value: unknown, options: TerminalTextOptions = {}): string {
  const text = typeof value === "string" ? value : String(value);
  if (options.multiline) return text.replace(/\r\n/g, "\n").replace(UNSAFE, visible);
  return text.replace(UNSAFE_SINGLE_LINE, visible);
}

/**
 * `JSON.stringify(value, null, indent)` for a terminal: JSON already escapes C0 controls, and this also
 * writes DEL, C1 controls and the bidi characters as `\uXXXX`, so the document parses to the same value.
 */
export function terminalJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(
    UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
