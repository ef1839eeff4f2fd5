/**
 * `defineProcessAdapter`: `spawnProcess` for any runtime, from that runtime's spawn, kill and exit
 * primitives. The Node, Deno and Bun adapters are a mapping onto {@linkcode ProcessRuntime}; a test
 * passes a fake one and drives the whole close sequence.
 * @module
 */
import type { ClientTransport } from "../../src/rpc/transport.ts";
import type { ChunkReader, ChunkWriter } from "../_stdio/chunk_io.ts";
import {
  createProcessConnection,
  type ProcessConnection,
  type ProcessConnectionOptions,
  type StderrMode,
  validateProcessConnectionOptions,
} from "./process_connection.ts";
import { attempt, GroupsAtExit, groupSignaller, type ProcReader } from "./process_group.ts";
import type { ExitStatus, GroupSignal } from "./shutdown_process.ts";

/** The options every runtime's `spawnProcess` takes; adapters add only their runtime handle. */
export interface SpawnOptions extends ProcessConnectionOptions {
  /**
   * The server's whole environment. Default: this process's environment.
   * @default this process's environment
   */
  env?: Record<string, string | undefined>;
  /**
   * Working directory of the server. Default: this process's.
   * @default this process's
   */
  cwd?: string;
  /** `"pipe"` (default: drained, last lines kept), `"inherit"`, or a callback per line (also kept). */
  stderr?: StderrMode;
  /**
   * Era-cache key. Default: command, args and cwd.
   * @default command, args and cwd
   */
  cacheKey?: string;
}

/** A process transport: every `open()` starts a fresh server. */
export interface ProcessTransport extends ClientTransport {
  readonly canRespawn: true;
  readonly cacheKey: string;
  open(): Promise<ProcessConnection>;
}

/** What {@linkcode ProcessRuntime.spawn} is asked for. */
export interface RuntimeSpawnOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** `"inherit"` leaves stderr to this process's; `"pipe"` hands it over as a stream. */
  stderr: "pipe" | "inherit";
}

/** A started child, as the runtime gives it. */
export interface SpawnedProcess {
  readonly pid: number;
  /** stdin, where a write resolves once the runtime handed its bytes to the OS (a web stream or a bare chunk writer). */
  readonly stdin: WritableStream<Uint8Array> | ChunkWriter;
  /** stdout, read from the pipe only when pulled; a read failure rejects (it is not an EOF). A web stream or a bare chunk reader. */
  readonly stdout: ReadableStream<Uint8Array> | ChunkReader;
  readonly stderr?: ReadableStream<Uint8Array>;
  /** Settles once the child has exited and been reaped; never rejects. */
  readonly exited: Promise<ExitStatus>;
  /**
   * False when the child could not be made the leader of its own process group. Default true.
   * @default true
   */
  readonly grouped?: boolean;
  /** Signals the child itself (not its group); throws when it is gone. */
  kill(signal: "SIGTERM" | "SIGKILL"): void;
  /** Lets go of the stdio handles; never throws. */
  release?(): void;
}

/** A runtime's process primitives: structural, so a fake runtime can stand in. */
export interface ProcessRuntime {
  /** `"windows"`, `"linux"`, `"darwin"`…: Windows gets taskkill, Linux the `/proc` zombie check. */
  readonly os: string;
  cwd(): string;
  /**
   * Starts `command`, on POSIX as the leader of a new process group (`detached` / `setsid`).
   * Throws or rejects when it cannot start.
   */
  spawn(
    command: string,
    args: readonly string[],
    options: RuntimeSpawnOptions,
  ): SpawnedProcess | Promise<SpawnedProcess>;
  /** `kill(2)`: a negative pid names a group; signal 0 probes. Throws when no process matches. */
  kill(pid: number, signal: GroupSignal): void;
  /** Windows: ends the process tree of `pid` (`taskkill /T /F`); throws when it could not. */
  killTree?(pid: number): void;
  /** Registers `hook` to run when this process exits. */
  onExit(hook: () => void): void;
  /** `/proc` reads, where permitted (Linux). */
  readonly proc?: ProcReader;
}

/** The process adapter of one runtime. */
export interface ProcessAdapter {
  /** A respawnable transport that runs `command` with `args` as a server, talking over its stdin/stdout. */
  spawnProcess(command: string, args?: readonly string[], options?: SpawnOptions): ProcessTransport;
}

/**
 * Builds `spawnProcess` on `runtime`. Closing a spawned server closes its stdin; waits up to
 * `stdinCloseTimeout` (2 000 ms) for it to exit by itself; SIGTERMs its process group; waits up to
 * `terminateTimeout` (2 000 ms); SIGKILLs the group; resolves when it is reaped (giving up after
 * `killTimeout`). Group members alive after the leader exits get SIGTERM, then SIGKILL after
 * `terminateTimeout`. Servers still running when this process exits have their groups SIGTERMed.
 *
 * @example
 * ```ts ignore (defineProcessAdapter is internal: each runtime entry exports its spawnProcess)
 * const { spawnProcess } = defineProcessAdapter(fakeRuntime);
 * const connection = await spawnProcess("server", [], { timeProvider: new FakeTimeProvider() }).open();
 * ```
 */
export function defineProcessAdapter(runtime: ProcessRuntime): ProcessAdapter {
  const atExit = new GroupsAtExit(
    (hook) => runtime.onExit(hook),
    (pgid) => void attempt(() => runtime.kill(-pgid, "SIGTERM")),
  );
  const open = async (
    command: string,
    args: readonly string[],
    options: SpawnOptions,
  ): Promise<ProcessConnection> => {
    const child = await runtime.spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stderr: options.stderr === "inherit" ? "inherit" : "pipe",
    });
    let reaped = false;
    const exited = child.exited.then((status) => {
      reaped = true;
      return status;
    });
    const grouped = runtime.os !== "windows" && child.grouped !== false;
    if (grouped) atExit.track(child.pid, exited);
    const signal = groupSignaller({
      pid: child.pid,
      os: runtime.os,
      grouped,
      reaped: () => reaped,
      kill: (pid, sig) => runtime.kill(pid, sig),
      killChild: (sig) => child.kill(sig),
      killTree: runtime.killTree && ((pid) => runtime.killTree!(pid)),
      proc: runtime.proc,
    });
    const { pid, stdin, stdout, stderr } = child;
    return createProcessConnection({
      pid,
      stdin,
      stdout,
      stderr,
      exited,
      signal,
      release: () => child.release?.(),
    }, options);
  };
  return {
    spawnProcess(command, args = [], options = {}) {
      validateProcessConnectionOptions(options);
      return {
        canRespawn: true,
        cacheKey: options.cacheKey ?? JSON.stringify([command, ...args, options.cwd ?? runtime.cwd()]),
        open: () => open(command, [...args], options),
      };
    },
  };
}
