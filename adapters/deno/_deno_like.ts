/**
 * The members of the `Deno` namespace the Deno adapter uses, typed structurally so tests may pass fakes.
 * @module
 */

/** The few members of `Deno.ChildProcess` this adapter uses. */
export interface DenoChildProcessLike {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ code: number; signal: string | null }>;
  kill(signal?: string): void;
}

/** The few members of the value `Deno.serve` returns that `serve` uses. */
export interface DenoHttpServerLike {
  readonly addr: { hostname: string; port: number };
  shutdown(): Promise<void>;
}

/** The few members of the `Deno` namespace this adapter uses (structural, so tests may pass fakes). */
export interface DenoLike {
  Command: new (command: string, options: Record<string, unknown>) => { spawn(): DenoChildProcessLike };
  kill(pid: number, signal: string): void;
  cwd(): string;
  build: { os: string };
  version?: { deno: string };
  readDirSync?(path: string): Iterable<{ name: string }>;
  readTextFileSync?(path: string): string;
  statSync?(path: string): unknown;
  permissions?: { querySync?(descriptor: { name: "read"; path: string }): { state: string } };
  stdin: { readable: ReadableStream<Uint8Array> };
  stdout: { writable: WritableStream<Uint8Array> };
  /** This process's id; with the two signal members, for `stdio()`'s `gracefulSignals`. */
  pid?: number;
  addSignalListener?(signal: string, handler: () => void): void;
  removeSignalListener?(signal: string, handler: () => void): void;
  /** `Deno.serve`, for `serve()`. */
  serve?(
    options: {
      port: number;
      hostname: string;
      onListen?: (addr: { hostname: string; port: number }) => void;
    },
    handler: (request: Request) => Response | Promise<Response>,
  ): DenoHttpServerLike;
}

/** The global `Deno` namespace: every function of this adapter takes another as its `deno` option. */
export const globalDeno = (): DenoLike => (globalThis as unknown as { Deno: DenoLike }).Deno;
