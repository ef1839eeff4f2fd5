/**
 * `onemodelcontext/bun`: spawned servers on `Bun.spawn`, and Bun's stdin/stdout for servers.
 *
 * The close sequence, process groups and exit hook are {@linkcode defineProcessAdapter}'s. On POSIX
 * the server is spawned with `detached: true` (Bun calls `setsid()`), so it leads its own process
 * group; an `'exit'` hook SIGTERMs the groups of servers still running when this process exits. On
 * Windows both signal steps run `taskkill /T /F /PID <pid>`.
 *
 * Backpressure: the child's stdin is a `FileSink`, which buffers what the pipe cannot take yet and
 * then returns a promise from `write()`; every write awaits that promise and the flush, so a write is
 * done only once its bytes reached the pipe. stdout is read only when pulled (Bun reads ahead a
 * bounded amount, about 0.7 MiB measured on 1.4.5).
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import type { BunLike } from "./_bun_like.ts";
import { fileSinkWriter } from "./_file_sink.ts";
import {
  defineProcessAdapter,
  type ProcessAdapter,
  type ProcessRuntime,
  type ProcessTransport,
  type SpawnOptions,
} from "../_process/define_process_adapter.ts";

export type { ProcessTransport } from "../_process/define_process_adapter.ts";
export type { ProcessConnection, StderrMode } from "../_process/process_connection.ts";
export type { ExitStatus } from "../_process/shutdown_process.ts";
export type { BunLike, BunSubprocessLike, FileSinkLike } from "./_bun_like.ts";
export { type FetchHandler, type HttpServer, serve, type ServeOptions } from "./_serve.ts";
// The Streamable HTTP client transport: ContextClient.connect(httpTransport(url, options)).
export {
  type HttpTransport,
  httpTransport,
  type HttpTransportOptions,
} from "../../src/http/client/http_client_transport.ts";
export type { FetchLike, HeadersSource } from "../../src/http/client/http_endpoint.ts";
export type { ReconnectOptions } from "../../src/http/client/legacy_http_client_session.ts";
export {
  HttpStatusError,
  StreamBrokenError,
  StreamNotResumedError,
} from "../../src/http/client/http_client_errors.ts";

/** Options of {@linkcode spawnProcess}. Every timeout is in milliseconds. */
export interface SpawnProcessOptions extends SpawnOptions {
  /** The `Bun` global to use. Default: the global one. */
  bun?: BunLike;
}

const global = (): BunLike => (globalThis as unknown as { Bun: BunLike }).Bun;
const windows = process.platform === "win32";

function bunRuntime(b: BunLike): ProcessRuntime {
  return {
    os: windows ? "windows" : process.platform,
    cwd: () => process.cwd(),
    spawn(command, args, options) {
      const child = b.spawn([command, ...args], {
        ...options,
        stdin: "pipe",
        stdout: "pipe",
        detached: !windows,
        windowsHide: true,
      });
      const exited = child.exited.then(
        () => ({
          exitCode: child.signalCode ? null : child.exitCode,
          signal: child.signalCode === null ? null : String(child.signalCode),
        }),
        () => ({ exitCode: child.exitCode, signal: null }),
      );
      const stderr = child.stderr instanceof ReadableStream ? child.stderr : undefined;
      return {
        pid: child.pid,
        stdin: fileSinkWriter(child.stdin),
        stdout: child.stdout,
        stderr,
        exited,
        kill: (signal) => child.kill(signal),
      };
    },
    kill: (pid, signal) => void process.kill(pid, signal),
    killTree: (pid) =>
      void b.spawnSync?.(["taskkill", "/T", "/F", "/PID", String(pid)], {
        stdout: "ignore",
        stderr: "ignore",
      }),
    onExit: (hook) => void process.once("exit", hook),
    proc: { list: () => readdirSync("/proc"), read: (path) => readFileSync(path, "utf8") },
  };
}

const adapters = new WeakMap<BunLike, ProcessAdapter>();

/**
 * A respawnable transport that runs `command` with `args` as a server, talking over its stdin/stdout.
 *
 * @example
 * ```ts
 * import { spawnProcess } from "onemodelcontext/bun";
 * const client = await ContextClient.connect(spawnProcess("bun", ["server.ts"]), { era: "auto" });
 * ```
 */
export function spawnProcess(
  command: string,
  args: readonly string[] = [],
  options: SpawnProcessOptions = {},
): ProcessTransport {
  const b = options.bun ?? global();
  if (!adapters.has(b)) adapters.set(b, defineProcessAdapter(bunRuntime(b)));
  return adapters.get(b)!.spawnProcess(command, args, options);
}

export { fileSinkWritable } from "./_file_sink.ts";
export { stdio, type StdioOptions } from "./_stdio.ts";
