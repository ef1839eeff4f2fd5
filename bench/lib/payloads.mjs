/**
 * The payloads every implementation gets, byte for byte: the echo argument of the round-trip
 * benchmark, the text of the large-message tool, and the requests of the raw clients.
 */

/** ~200 bytes of printable ASCII with a few characters JSON has to escape. */
export const ECHO_TEXT = (
  'The quick brown fox jumps over the lazy dog; "quoted" text, a tab\there, ' +
  "digits 0123456789 and a backslash \\ to escape. Lorem ipsum dolor sit amet, " +
  "consectetur adipiscing elit, sed do eiusmod."
).slice(0, 200).padEnd(200, ".");

/** Sizes of the large-message benchmark. */
export const MiB = 1024 * 1024;
export const LARGE_SIZES = [8 * MiB, 32 * MiB];

/** Message size limit given to every implementation that has one, so 32 MiB passes everywhere. */
export const MAX_MESSAGE_BYTES = 64 * MiB;

const BLOCK = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 .,;:!?-_ ".repeat(64);
const texts = new Map();

/** A cached ASCII string of exactly `bytes` bytes (no character needs a JSON escape). */
export function textOfSize(bytes) {
  let text = texts.get(bytes);
  if (text === undefined) {
    text = BLOCK.repeat(Math.ceil(bytes / BLOCK.length)).slice(0, bytes);
    // Flatten now so that the first call does not pay for it.
    text.charCodeAt(bytes >> 1);
    texts.set(bytes, text);
  }
  return text;
}

/** The legacy handshake every raw client sends first. */
export const LEGACY_VERSION = "2025-06-18";
/** The modern era's protocol version (ours and SDK 2.4 speak it; SDK 1.32 does not). */
export const MODERN_VERSION = "2026-07-28";
export function initializeRequest(id = 0) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: { name: "bench", version: "0.0.0" },
    },
  };
}
export const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

export function toolCall(id, name, args) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}
