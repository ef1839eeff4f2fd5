/**
 * `readChunk`: one read from a runtime's stream, where a failure is a typed value, never an end.
 * @module
 */
import { ReadFailedError } from "../../src/wire/errors.ts";
import type { ChunkReader } from "./chunk_io.ts";

/** Reads one chunk; a failed read comes back as a `ReadFailedError` carrying the cause, not thrown. */
export function readChunk(
  reader: ChunkReader,
): Promise<{ done: boolean; value?: Uint8Array } | ReadFailedError> {
  // One promise per read, not an async function around an await (this runs once per chunk).
  return reader.read().then(undefined, (cause: unknown) => new ReadFailedError({ cause }));
}
