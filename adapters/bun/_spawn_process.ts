/**
 * `spawnProcess` on `Bun.spawn`: the `Bun` global (or a given one) mapped onto
 * {@linkcode defineProcessAdapter}'s `ProcessRuntime`.
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { type BunLike, globalBun } from "./_bun_like.ts";
import { fileSinkWriter } from "./_file_sink.ts";
import {
  defineProcessAdapter,
  type ProcessAdapter,
  type ProcessRuntime,
  type ProcessTransport,
  type SpawnOptions,
} from "../_process/define_process_adapter.ts";

/** Options of {@linkcode spawnProcess}. Every timeout is in milliseconds. */
export interface SpawnProcessOptions extends SpawnOptions {
  /**
   * The `Bun` global to use. Default: the global one.
   * @default the global one
   */
  bun?: BunLike;
}

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
  const b = options.bun ?? globalBun();
  if (!adapters.has(b)) adapters.set(b, defineProcessAdapter(bunRuntime(b)));
  return adapters.get(b)!.spawnProcess(command, args, options);
}
