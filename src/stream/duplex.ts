/**
 * The shape every transport is built on.
 * @module
 */

/** A readable and a writable byte stream: one side of a connection. */
export interface Duplex {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}
