/**
 * `spawnProcess` on `node:child_process`: Node's process primitives mapped onto
 * {@linkcode defineProcessAdapter}'s `ProcessRuntime`.
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import {
  defineProcessAdapter,
  type ProcessRuntime,
  type ProcessTransport,
  type SpawnOptions,
} from "../_process/define_process_adapter.ts";
import type { ExitStatus } from "../_process/shutdown_process.ts";
import { nodeChunkReader, nodeChunkWriter, nodeReadable } from "./_node_streams.ts";

/** Options of {@linkcode spawnProcess}. Every timeout is in milliseconds. */
export type SpawnProcessOptions = SpawnOptions;

/** Node's process primitives. */
const nodeRuntime: ProcessRuntime = {
  os: process.platform === "win32" ? "windows" : process.platform,
  cwd: () => process.cwd(),
  async spawn(command, args, options) {
    const { cwd, env } = options;
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: ["pipe", "pipe", options.stderr],
      detached: process.platform !== "win32",
      windowsHide: true,
    });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    child.removeAllListeners("error");
    child.on("error", () => {}); // kill() failures surface as 'error'; the exit status tells the story
    const exited = new Promise<ExitStatus>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve({ exitCode: child.exitCode, signal: child.signalCode });
      }
      child.once("exit", (exitCode, signal) => resolve({ exitCode, signal }));
    });
    return {
      pid: child.pid!,
      stdin: nodeChunkWriter(child.stdin!),
      stdout: nodeChunkReader(child.stdout!),
      stderr: child.stderr ? nodeReadable(child.stderr) : undefined,
      exited,
      kill: (signal) => void child.kill(signal),
      release() {
        child.stdin?.destroy();
        child.stdout?.destroy();
        child.stderr?.destroy();
      },
    };
  },
  kill: (pid, signal) => void process.kill(pid, signal),
  killTree(pid) {
    const result = spawnSync("taskkill", ["/T", "/F", "/PID", String(pid)], {
      windowsHide: true,
      stdio: "ignore",
    });
    if (result.status !== 0) throw new Error(`Taskkill exited with ${result.status} for pid ${pid}`);
  },
  onExit: (hook) => void process.once("exit", hook),
  proc: { list: () => readdirSync("/proc"), read: (path) => readFileSync(path, "utf8") },
};

/**
 * A respawnable transport that runs `command` with `args` as a server, talking over its stdin/stdout.
 *
 * @example
 * ```ts
 * import { spawnProcess } from "onemodelcontext/node";
 * const client = await ContextClient.connect(spawnProcess("node", ["server.js"]), { era: "auto" });
 * ```
 */
export function spawnProcess(
  command: string,
  args: readonly string[] = [],
  options: SpawnProcessOptions = {},
): ProcessTransport {
  return adapter.spawnProcess(command, args, options);
}
const adapter = defineProcessAdapter(nodeRuntime);
