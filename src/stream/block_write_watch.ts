/**
 * `watchBlockWrites`: how the owner of a `NewlineChannel` hears of each block write as it
 * completes or fails (the connection's no-progress deadline and fault detection), without wrapping the
 * transport's writable in a second stream. Not part of the public surface.
 * @module
 */
/**
 * What a watch is keyed on: a channel that writes its output queue in blocks (`NewlineChannel` is
 * one). Declared here so this module need not import the channel that asks it.
 */
export interface BlockWritingChannel {
  /** The size of one block write, in bytes. */
  readonly writeBlockBytes: number;
}

/** Told of each completed and each failed block write the moment it happens (see {@linkcode watchBlockWrites}). */
export interface BlockWriteWatcher {
  /** A block write completed. */
  progress(): void;
  /** A block write failed (output is failed by then). */
  failed(cause: unknown): void;
}

const watchers = new WeakMap<object, BlockWriteWatcher>();

/**
 * Makes `watcher` hear of every completed and every failed block write of `channel`, as it happens
 * rather than at the next send. One watcher per channel; a later call replaces it.
 */
export function watchBlockWrites(channel: BlockWritingChannel, watcher: BlockWriteWatcher): void {
  watchers.set(channel, watcher);
}

/** The watcher of `channel`, if any (the channel asks at each block write). */
export function blockWatcherOf(channel: BlockWritingChannel): BlockWriteWatcher | undefined {
  return watchers.get(channel);
}
