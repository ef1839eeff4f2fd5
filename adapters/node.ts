/**
 * `onemodelcontext/node`: spawned servers on `node:child_process`, and this process's stdio for servers.
 *
 * The close sequence, process groups and exit hook are {@linkcode defineProcessAdapter}'s. On POSIX
 * the server is spawned with `detached: true`, so it leads its own process group and `npx`-style
 * grandchildren are signalled with it; a terminal's Ctrl+C then no longer reaches it directly, and the
 * `'exit'` hook SIGTERMs the groups of servers still running (a parent killed by a signal cannot run
 * it: its servers see stdin EOF). On Windows both signal steps run `taskkill /T /F /PID <pid>`.
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import type { TransportConnection } from "../src/rpc/transport.ts";
import { defineProcessAdapter, type ProcessRuntime, type ProcessTransport, type SpawnOptions } from "./process/define_process_adapter.ts";
import type { ExitStatus } from "./process/shutdown_process.ts";
import { nodeReadable, nodeWritable } from "./node_streams.ts";
import { endOnSignals, type SignalRuntime } from "./end_on_signals.ts";

export type { ProcessTransport } from "./process/define_process_adapter.ts";
export type { ProcessConnection, StderrMode } from "./process/process_connection.ts";
export type { ExitStatus } from "./process/shutdown_process.ts";
export { nodeReadable, nodeWritable } from "./node_streams.ts";
export { serve, type FetchHandler, type HttpServer, type ServeOptions } from "./http/node.ts";

/** Options of {@linkcode spawnProcess}. Every timeout is in milliseconds. */
export type SpawnProcessOptions = SpawnOptions;

/** Node's process primitives. */
const nodeRuntime: ProcessRuntime = {
  os: process.platform === "win32" ? "windows" : process.platform,
  cwd: () => process.cwd(),
  async spawn(command, args, options) {
    const { cwd, env } = options;
    const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", options.stderr], detached: process.platform !== "win32", windowsHide: true });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    child.removeAllListeners("error");
    child.on("error", () => {}); // kill() failures surface as 'error'; the exit status tells the story
    const exited = new Promise<ExitStatus>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve({ exitCode: child.exitCode, signal: child.signalCode });
      child.once("exit", (exitCode, signal) => resolve({ exitCode, signal }));
    });
    return {
      pid: child.pid!,
      stdin: nodeWritable(child.stdin!),
      stdout: nodeReadable(child.stdout!),
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
    const result = spawnSync("taskkill", ["/T", "/F", "/PID", String(pid)], { windowsHide: true, stdio: "ignore" });
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
export function spawnProcess(command: string, args: readonly string[] = [], options: SpawnProcessOptions = {}): ProcessTransport {
  return adapter.spawnProcess(command, args, options);
}
const adapter = defineProcessAdapter(nodeRuntime);

/** Options of {@linkcode stdio}. */
export interface StdioOptions {
  /** Input stream. Default `process.stdin`. */
  stdin?: Readable;
  /** Output stream. Default `process.stdout`. */
  stdout?: Writable;
  /**
   * Signals that end input like an EOF instead of killing the process at once: running handlers
   * finish within the EOF bounds (`endOfStreamTimeout` + `shutdownTimeout`), their replies are
   * written, then the process ends by the signal. A second signal, or one after input already ended,
   * ends it at once. Default `["SIGTERM"]` on `process.stdin`, `[]` when `stdin` is given; `[]` turns
   * it off (for a process that handles its signals itself).
   */
  gracefulSignals?: readonly NodeJS.Signals[];
}

/** Node's signal primitives, for {@linkcode endOnSignals}. */
const nodeSignals: SignalRuntime = {
  listen: (signal, handler) => void process.on(signal as NodeJS.Signals, handler),
  unlisten: (signal, handler) => void process.off(signal as NodeJS.Signals, handler),
  raise: (signal) => void process.kill(process.pid, signal),
};

/**
 * This process's stdin and stdout as a duplex, for a server: stdin is read only when pulled; a write
 * resolves once Node handed its bytes to the OS, so `serve()` resolves only when every reply left.
 * Closing the writable does not end `process.stdout` (Node forbids it). `destroy()` lets go of both,
 * closing stdout's pipe handle so that writes a stalled client never read cannot keep the process alive.
 * SIGTERM ends input like an EOF, so a request in flight is still answered (see `gracefulSignals`).
 *
 * @example
 * ```ts
 * import { stdio } from "onemodelcontext/node";
 * await server.serve(stdio());
 * ```
 */
export function stdio(options: StdioOptions = {}): TransportConnection {
  const input = options.stdin ?? process.stdin;
  const output = options.stdout ?? process.stdout;
  const signals = options.gracefulSignals ?? (options.stdin === undefined ? ["SIGTERM"] : []);
  return endOnSignals({
    readable: nodeReadable(input),
    writable: nodeWritable(output, { endOnClose: output !== process.stdout }),
    destroy() {
      input.destroy();
      output.destroy();
      // process.stdout's destroy() leaves its pipe handle open, and a write the client never reads
      // keeps the event loop alive: close the handle so pending writes fail with ECANCELED.
      (output as unknown as { _handle?: { close?(): void } })._handle?.close?.();
    },
    async close() {
      input.pause();
      input.destroy();
    },
  }, signals, nodeSignals);
}
