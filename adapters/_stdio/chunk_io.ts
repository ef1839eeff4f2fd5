/**
 * `ChunkReader` and `ChunkWriter`: the smallest byte source and sink an adapter hands the process
 * connection, so a runtime stream is wrapped in one web stream, not two. A web stream's reader and
 * writer fit them; so do the Node ones of `node_streams.ts`, which make one promise per read or write.
 * @module
 */

/** One read's outcome, spelled out (the DOM lib and `@types/node` name the web type differently). */
export type ChunkReadResult = { done: false; value: Uint8Array } | {
  done: true;
  value?: Uint8Array | undefined;
};

/** Reads one chunk at a time: a read resolves with the next chunk or the end, and rejects on failure. */
export interface ChunkReader {
  read(): Promise<ChunkReadResult>;
  /** Stops reading and lets go of the source. Never rejects for an already broken source. */
  cancel(reason?: unknown): Promise<void>;
}

/** Writes one chunk at a time: a write resolves once its bytes were handed to the OS. */
export interface ChunkWriter {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
  abort(reason?: unknown): Promise<void>;
}

/** The reader of a web stream, or the chunk reader itself. */
export function chunkReaderOf(source: ReadableStream<Uint8Array> | ChunkReader): ChunkReader {
  return "getReader" in source ? source.getReader() : source;
}

/** The writer of a web stream (its `closed` rejection left to the write that meets it), or the chunk writer itself. */
export function chunkWriterOf(sink: WritableStream<Uint8Array> | ChunkWriter): ChunkWriter {
  if (!("getWriter" in sink)) return sink;
  const writer = sink.getWriter();
  writer.closed.catch(() => {}); // a broken sink shows in the write that meets it
  return writer;
}
