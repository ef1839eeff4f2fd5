/**
 * `ListenSignals`: what every listen stream of a client waits for besides its own events: the end of
 * the connection (one watch on it for all streams) and resyncs (the session may have lost messages).
 * @module
 */

/** The connection-wide signals of listen streams; closed streams leave nothing behind. */
export class ListenSignals {
  readonly #closed: () => Promise<unknown>;
  readonly #onClosed = new Set<() => void>();
  readonly #onResync = new Set<() => void>();
  #watchingClose = false;

  /** @param closed Resolves when the connection has ended. */
  constructor(closed: () => Promise<unknown>) {
    this.#closed = closed;
  }

  /** Calls `onClosed` once when the connection ends; returns the function that forgets it. */
  watchClose(onClosed: () => void): () => void {
    this.#onClosed.add(onClosed);
    if (!this.#watchingClose) {
      this.#watchingClose = true;
      void this.#closed().then(() => {
        for (const callback of [...this.#onClosed]) callback();
        this.#onClosed.clear();
      });
    }
    return () => this.#onClosed.delete(onClosed);
  }

  /** Calls `onResync` at every {@linkcode ListenSignals.resync}; returns the function that forgets it. */
  watchResync(onResync: () => void): () => void {
    this.#onResync.add(onResync);
    return () => this.#onResync.delete(onResync);
  }

  /** Tells every resync watcher. */
  resync(): void {
    for (const callback of [...this.#onResync]) callback();
  }
}
