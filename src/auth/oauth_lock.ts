/**
 * One refresh at a time: the lock an {@linkcode OAuthStore} may carry, so that two holders of one
 * rotating refresh token (two clients, two processes, two replicas) never spend it twice.
 * @module
 */

/**
 * A named mutual exclusion. The OAuth client refreshes under `withLock("refresh <server URL>")`,
 * reads the tokens again inside, and uses the tokens another holder saved meanwhile instead of
 * spending the refresh token a second time. In-memory, file (`onemodelcontext/node`) and Redis
 * (`onemodelcontext/redis`) implementations are provided.
 */
export interface OAuthLock {
  /** Runs `critical` while holding the lock `key`; releases it when `critical` settles. */
  withLock<T>(key: string, critical: () => Promise<T>): Promise<T>;
}

/** A lock within one process or page: waiters for a key run one after the other, in arrival order. */
export class InMemoryOAuthLock implements OAuthLock {
  #tails = new Map<string, Promise<void>>();

  async withLock<T>(key: string, critical: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await critical();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
