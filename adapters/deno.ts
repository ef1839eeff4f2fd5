/**
 * `onemodelcontext/deno`: spawned servers on `Deno.Command`, and `Deno.stdin`/`Deno.stdout` for servers.
 *
 * Closing a spawned server (`connection.close()`): close its stdin; wait up to `stdinCloseTimeout`
 * (2 000 ms) for it to exit by itself; SIGTERM its process group; wait up to `terminateTimeout`
 * (2 000 ms); SIGKILL the group; resolve when it is reaped (giving up after `killTimeout`, 2 000 ms).
 * Group members still alive after the leader exits get SIGTERM, then SIGKILL after `terminateTimeout`.
 * A server that exits on stdin EOF is reaped as soon as it exits; no timer is waited out.
 *
 * Process groups: `Deno.Command`'s `detached: true` (Deno ≥ 2.5; measured on 2.9.6) calls `setsid()`
 * in the child on POSIX, so the server leads its own session and process group and
 * `Deno.kill(-pid, signal)` reaches every process of the group. Where `detached` is missing (older
 * Deno) the child is started through `setsid` when `/usr/bin/setsid` or `/bin/setsid` exists; without
 * either, only the server process itself is signalled. Needs `--allow-run` (and `--allow-read` for the
 * `/proc` check that ignores not-yet-reaped zombies on Linux; without it zombies count as alive).
 *
 * Because the server leads its own group, a terminal's Ctrl+C no longer reaches it directly. When this
 * process exits (normally or through `Deno.exit`) without closing a server, an `unload` listener
 * SIGTERMs the groups of servers still running; a parent killed by a signal cannot run it, and its
 * servers then see stdin EOF (a server that ignores EOF is left running).
 *
 * Windows has no process groups and no SIGTERM: stdin close stays the graceful step, and both the
 * SIGTERM and SIGKILL steps run `taskkill /T /F /PID <pid>`, which ends the whole process tree.
 * @module
 */
import {
  createProcessConnection,
  type ExitStatus,
  type GroupSignal,
  GroupsAtExit,
  procGroupHasLiveMembers,
  type ProcReader,
  type ProcessConnection,
  validateProcessConnectionOptions,
  type ProcessTransport,
  type SpawnOptions,
} from "./process/process_shutdown.ts";
import type { TransportConnection } from "../src/rpc/transport.ts";

export type { ExitStatus, ProcessConnection, ProcessTransport, StderrMode } from "./process/process_shutdown.ts";

/** The few members of `Deno.ChildProcess` this adapter uses. */
export interface DenoChildProcessLike {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ code: number; signal: string | null }>;
  kill(signal?: string): void;
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
}

const deno = (): DenoLike => (globalThis as unknown as { Deno: DenoLike }).Deno;

/** Options of {@linkcode spawnProcess}. Every timeout is in milliseconds. */
export interface SpawnProcessOptions extends SpawnOptions {
  /** The `Deno` namespace to use. Default: the global one. */
  deno?: DenoLike;
}

/**
 * A respawnable transport that runs `command` with `args` as a server, talking over its stdin/stdout.
 *
 * @example
 * ```ts
 * import { spawnProcess } from "onemodelcontext/deno";
 * const client = await ContextClient.connect(spawnProcess("deno", ["run", "server.ts"]), { era: "auto" });
 * ```
 */
export function spawnProcess(command: string, args: readonly string[] = [], options: SpawnProcessOptions = {}): ProcessTransport {
  validateProcessConnectionOptions(options);
  const cacheKey = options.cacheKey ?? JSON.stringify([command, ...args, options.cwd ?? (options.deno ?? deno()).cwd()]);
  return {
    canRespawn: true,
    cacheKey,
    open: async () => openProcess(command, [...args], options),
  };
}

function detachedSupported(d: DenoLike): boolean {
  const [major, minor] = (d.version?.deno ?? "0.0").split(".").map(Number);
  return major > 2 || (major === 2 && minor >= 5);
}

function findSetsid(d: DenoLike): string | undefined {
  for (const path of ["/usr/bin/setsid", "/bin/setsid"]) {
    if (!mayRead(d, path)) continue;
    try {
      d.statSync?.(path);
      return path;
    } catch {
      // not there
    }
  }
  return undefined;
}

function openProcess(command: string, args: string[], options: SpawnProcessOptions): ProcessConnection {
  const d = options.deno ?? deno();
  const windows = d.build.os === "windows";
  const stderrMode = options.stderr ?? "pipe";
  let program = command;
  let argv = args;
  let grouped = !windows;
  const commandOptions: Record<string, unknown> = {
    cwd: options.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: stderrMode === "inherit" ? "inherit" : "piped",
  };
  if (options.env) {
    commandOptions.clearEnv = true;
    commandOptions.env = Object.fromEntries(Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  }
  if (!windows) {
    if (detachedSupported(d)) {
      commandOptions.detached = true;
    } else {
      const setsid = findSetsid(d);
      if (setsid) {
        program = setsid;
        argv = [command, ...args];
      } else {
        grouped = false;
      }
    }
  }
  const child = new d.Command(program, { ...commandOptions, args: argv }).spawn();
  const exited: Promise<ExitStatus> = child.status.then(
    ({ code, signal }) => ({ exitCode: signal ? null : code, signal }),
    () => ({ exitCode: null, signal: null }),
  );
  let reaped = false;
  void exited.then(() => (reaped = true));
  const pid = child.pid;
  if (grouped) trackGroup(d, pid, exited);
  const signal = (sig: GroupSignal): boolean => {
    if (windows) {
      if (sig === 0) return !reaped;
      try {
        new d.Command("taskkill", { args: ["/T", "/F", "/PID", String(pid)], stdout: "null", stderr: "null", stdin: "null" }).spawn();
      } catch {
        tryKill(() => child.kill("SIGKILL"));
      }
      return true;
    }
    if (!grouped) {
      if (sig === 0) return !reaped;
      return !reaped && tryKill(() => child.kill(sig));
    }
    if (sig === 0) {
      if (!tryKill(() => d.kill(-pid, 0 as unknown as string))) return false;
      if (d.build.os !== "linux" || !d.readDirSync || !d.readTextFileSync || !mayRead(d, "/proc")) return true;
      const proc: ProcReader = { list: () => [...d.readDirSync!("/proc")].map((e) => e.name), read: (path) => d.readTextFileSync!(path) };
      return procGroupHasLiveMembers(pid, proc) ?? true;
    }
    return tryKill(() => d.kill(-pid, sig)) || (!reaped && tryKill(() => child.kill(sig)));
  };
  return createProcessConnection(
    {
      pid,
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: stderrMode === "inherit" ? undefined : child.stderr,
      exited,
      signal,
    },
    options,
  );
}

/** Servers still running are SIGTERMed (their whole group) if this process exits without closing them. */
let groupsAtExit: GroupsAtExit | undefined;

function trackGroup(d: DenoLike, pid: number, exited: Promise<unknown>): void {
  groupsAtExit ??= new GroupsAtExit(
    (onExit) => globalThis.addEventListener?.("unload", onExit),
    (pgid) => void tryKill(() => d.kill(-pgid, "SIGTERM")),
  );
  groupsAtExit.track(pid, exited);
}

/** True when reading `path` is granted already: never trigger a permission prompt. */
function mayRead(d: DenoLike, path: string): boolean {
  try {
    return d.permissions?.querySync?.({ name: "read", path }).state === "granted";
  } catch {
    return false;
  }
}

function tryKill(kill: () => void): boolean {
  try {
    kill();
    return true;
  } catch {
    return false;
  }
}

/** Options of {@linkcode stdio}. */
export interface StdioOptions {
  /** The `Deno` namespace to use. Default: the global one. */
  deno?: DenoLike;
}

/**
 * `Deno.stdin` and `Deno.stdout` as a duplex, for a server. stdin is read only when pulled; a write
 * resolves once Deno wrote the bytes to fd 1, so a client that stops reading holds the writer.
 * Closing the writable leaves fd 1 open (the process's exit closes it).
 *
 * `destroy()` cancels the pending stdin read and aborts the writer. Limitation (Deno 2.9.6): a write
 * that the OS is already blocking on (the client stopped reading and the pipe is full) runs on a
 * blocking thread and cannot be abandoned, so it keeps the process alive until the client reads or
 * closes the pipe, or a signal ends the process (the client's close sequence SIGTERMs it within its
 * bound). A server that must leave at once after `destroy()` calls `Deno.exit()`.
 *
 * @example
 * ```ts
 * import { stdio } from "onemodelcontext/deno";
 * await server.serve(stdio());
 * ```
 */
export function stdio(options: StdioOptions = {}): TransportConnection {
  const d = options.deno ?? deno();
  const input = d.stdin.readable.getReader();
  const output = d.stdout.writable.getWriter();
  let destroyed = false;
  let readableController: ReadableStreamDefaultController<Uint8Array> | undefined;
  const readable = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        readableController = controller;
      },
      async pull(controller) {
        const { done, value } = await input.read().catch(() => ({ done: true as const, value: undefined }));
        if (destroyed) return;
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        return input.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  const writable = new WritableStream<Uint8Array>(
    {
      write: (chunk) => output.write(chunk),
      close: () => output.ready,
      abort: (reason) => output.abort(reason),
    },
    { highWaterMark: 1 },
  );
  return {
    readable,
    writable,
    destroy(reason) {
      if (destroyed) return;
      destroyed = true;
      input.cancel(reason).catch(() => {});
      output.abort(reason).catch(() => {});
      try {
        readableController?.close();
      } catch {
        // already closed
      }
    },
    async close() {
      destroyed = true;
      await input.cancel().catch(() => {});
      output.releaseLock();
      try {
        readableController?.close();
      } catch {
        // already closed
      }
    },
  };
}
