/**
 * Test helpers: a fake clock, in-memory duplex pairs and a recording writable stream.
 * @module
 */
export { FakeTimeProvider, type FakeTimeProviderOptions, flushMicrotasks } from "./fake_time_provider.ts";
export { createDuplexPair, createPipe, type Duplex, type DuplexPairOptions } from "./duplex_pair.ts";
export { RecordingWritable, type RecordingWritableOptions } from "./recording_writable.ts";
