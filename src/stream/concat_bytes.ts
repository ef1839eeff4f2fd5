/**
 * `concatBytes`: byte chunks joined into one array (a line cut across chunks, a request body read
 * in pieces).
 * @module
 */

/** `parts` copied one after the other into a new array of `total` bytes (their summed length). */
export function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
