/**
 * {@linkcode FileOAuthLock}: one refresh at a time among the processes of one machine (CLI tools,
 * editors' MCP hosts) sharing a token file.
 * @module
 */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { open, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { AuthError } from "../../src/auth/errors.ts";
import type { OAuthLock } from "../../src/auth/oauth_lock.ts";
import { integerOption } from "../../src/stream/options.ts";
import { systemTimeProvider, type TimeProvider } from "../../src/stream/time_provider.ts";

/** Options of {@linkcode FileOAuthLock}. Times in milliseconds. */
export interface FileOAuthLockOptions {
  /**
   * How long to wait for the lock before rejecting with `AuthError` code `lock_timeout`. Default 30 000.
   * @default 30000
   */
  acquireTimeout?: number;
  /**
   * How often a waiter looks at the lock file again. Default 20.
   * @default 20
   */
  pollInterval?: number;
  /**
   * The clock of both. Default: the system clock.
   * @default the system clock
   */
  time?: TimeProvider;
}

/**
 * A lock file per key in `directory` (created when missing), made with `O_EXCL` and holding the
 * holder's process id. A lock file whose process is gone (a crashed holder) is taken over at once;
 * a live holder is waited for, up to `acquireTimeout`.
 *
 * @example
 * ```ts
 * declare const fileStorage: StorageLike; // a Storage-like object kept in a file
 * const store = new WebStorageOAuthStore(fileStorage, { lock: new FileOAuthLock("/home/me/.cache/mcp/locks") });
 * ```
 */
export class FileOAuthLock implements OAuthLock {
  readonly directory: string;
  #acquireTimeout: number;
  #pollInterval: number;
  #time: TimeProvider;

  constructor(directory: string, options: FileOAuthLockOptions = {}) {
    this.directory = directory;
    this.#acquireTimeout = integerOption("acquireTimeout", options.acquireTimeout, 30_000, 0);
    this.#pollInterval = integerOption("pollInterval", options.pollInterval, 20, 1);
    this.#time = options.time ?? systemTimeProvider;
    mkdirSync(directory, { recursive: true });
  }

  /** The lock file of `key`. */
  pathOf(key: string): string {
    return join(this.directory, `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.lock`);
  }

  async withLock<T>(key: string, critical: () => Promise<T>): Promise<T> {
    const path = this.pathOf(key);
    const owner = `${process.pid} ${crypto.randomUUID()}`;
    await this.#acquire(path, owner, key);
    try {
      return await critical();
    } finally {
      if ((await readFile(path, "utf8").catch(() => "")) === owner) await unlink(path).catch(() => {});
    }
  }

  async #acquire(path: string, owner: string, key: string): Promise<void> {
    const deadline = this.#time.now() + this.#acquireTimeout;
    for (;;) {
      try {
        const file = await open(path, "wx", 0o600);
        try {
          await file.writeFile(owner);
        } finally {
          await file.close();
        }
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = await readFile(path, "utf8").catch(() => undefined);
      if (holder !== undefined && holder !== "" && !alive(Number(holder.split(" ")[0]))) {
        await unlink(path).catch(() => {}); // the holder crashed while holding it
        continue;
      }
      if (this.#time.now() >= deadline) {
        throw new AuthError(
          "lock_timeout",
          `The OAuth lock for ${
            JSON.stringify(key)
          } (${path}) was still held after ${this.#acquireTimeout} ms`,
        );
      }
      await new Promise<void>((resolve) => this.#time.setTimer(resolve, this.#pollInterval));
    }
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return true; // a file being written: not yet readable
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
