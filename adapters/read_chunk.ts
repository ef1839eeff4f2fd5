/**
 * `readChunk`: one read from a runtime's stream, where a failure is a typed value, never an end.
 * @module
 */
import { ReadFailedError } from "../src/wire/errors.ts";

/** Reads one chunk; a failed read comes back as a `ReadFailedError` carrying the cause, not thrown. */
export async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<{ done: boolean; value?: Uint8Array } | ReadFailedError> {
  try {
    return await reader.read();
  } catch (cause) {
    return new ReadFailedError({ cause });
  }
}
