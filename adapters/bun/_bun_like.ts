/**
 * The members of the `Bun` global the Bun adapter uses, typed structurally so tests may pass fakes.
 * @module
 */

/** The members of Bun's `FileSink` this adapter uses. */
export interface FileSinkLike {
  write(chunk: Uint8Array): number | Promise<number>;
  flush(): number | Promise<number> | undefined;
  end(error?: Error): number | Promise<number> | undefined;
  unref?(): void;
}

/** The members of a `Bun.spawn` subprocess this adapter uses. */
export interface BunSubprocessLike {
  readonly pid: number;
  readonly stdin: FileSinkLike;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array> | number | undefined | null;
  readonly exited: Promise<number>;
  readonly exitCode: number | null;
  readonly signalCode: string | number | null;
  kill(signal?: string | number): void;
}

/** The members of the value `Bun.serve` returns that `serve` uses. */
export interface BunHttpServerLike {
  readonly port: number;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}

/** The members of the `Bun` global this adapter uses. */
export interface BunLike {
  spawn(command: string[], options: Record<string, unknown>): BunSubprocessLike;
  spawnSync?(command: string[], options?: Record<string, unknown>): unknown;
  stdin: { stream(): ReadableStream<Uint8Array> };
  stdout: { writer(): FileSinkLike };
  /** `Bun.serve`, for `serve()`. */
  serve?(options: {
    port: number;
    hostname: string;
    idleTimeout?: number;
    fetch: (request: Request) => Response | Promise<Response>;
  }): BunHttpServerLike;
}

/** The global `Bun`: every function of this adapter takes another as its `bun` option. */
export const globalBun = (): BunLike => (globalThis as unknown as { Bun: BunLike }).Bun;
