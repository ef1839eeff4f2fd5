/**
 * `onemodelcontext/bun`: spawned servers on `Bun.spawn`, and Bun's stdin/stdout for servers.
 *
 * Closing a spawned server (`connection.close()`): close its stdin; wait up to `stdinCloseTimeout`
 * (2 000 ms) for it to exit by itself; SIGTERM its process group; wait up to `terminateTimeout`
 * (2 000 ms); SIGKILL the group; resolve when it is reaped (giving up after `killTimeout`, 2 000 ms).
 * On POSIX the server is spawned with `detached: true` (Bun calls `setsid()`), so it leads its own
 * process group and `npx`-style or shell-wrapper grandchildren are signalled with it; group members
 * still alive after the leader exits get SIGTERM, then SIGKILL after `terminateTimeout`. A server that
 * exits on stdin EOF is reaped as soon as it exits; no timer is waited out.
 *
 * Backpressure: the child's stdin is a `FileSink`, which buffers what the pipe cannot take yet and
 * then returns a promise from `write()`; every write awaits that promise and the flush, so at most
 * one chunk (plus the sink's own buffer) waits in Bun. stdout is read only when pulled (Bun reads
 * ahead a bounded amount, about 0.7 MiB measured on 1.4.5).
 *
 * Because the server leads its own group, a terminal's Ctrl+C no longer reaches it directly. When this
 * process exits (normally or through `process.exit`) without closing a server, an `'exit'` hook
 * SIGTERMs the groups of servers still running; a parent killed by a signal cannot run it, and its
 * servers then see stdin EOF (a server that ignores EOF is left running).
 *
 * Windows has no process groups and no SIGTERM: stdin close stays the graceful step, and both the
 * SIGTERM and SIGKILL steps run `taskkill /T /F /PID <pid>`, which ends the whole process tree.
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
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

/** The members of the `Bun` global this adapter uses (structural, so tests may pass fakes). */
export interface BunLike {
  spawn(command: string[], options: Record<string, unknown>): BunSubprocessLike;
  spawnSync?(command: string[], options?: Record<string, unknown>): unknown;
  stdin: { stream(): ReadableStream<Uint8Array> };
  stdout: { writer(): FileSinkLike };
}

const bun = (): BunLike => (globalThis as unknown as { Bun: BunLike }).Bun;
const isWindows = process.platform === "win32";
const isLinux = process.platform === "linux";

/** Options of {@linkcode spawnProcess}. Every timeout is in milliseconds. */
export interface SpawnProcessOptions extends SpawnOptions {
  /** The `Bun` global to use. Default: the global one. */
  bun?: BunLike;
}

/**
 * A respawnable transport that runs `command` with `args` as a server, talking over its stdin/stdout.
 *
 * @example
 * ```ts
 * import { spawnProcess } from "onemodelcontext/bun";
 * const client = await ContextClient.connect(spawnProcess("bun", ["server.ts"]), { era: "auto" });
 * ```
 */
export function spawnProcess(command: string, args: readonly string[] = [], options: SpawnProcessOptions = {}): ProcessTransport {
  validateProcessConnectionOptions(options);
  const cacheKey = options.cacheKey ?? JSON.stringify([command, ...args, options.cwd ?? process.cwd()]);
  return {
    canRespawn: true,
    cacheKey,
    open: async () => openProcess(command, [...args], options),
  };
}

function openProcess(command: string, args: string[], options: SpawnProcessOptions): ProcessConnection {
  const b = options.bun ?? bun();
  const stderrMode = options.stderr ?? "pipe";
  const child = b.spawn([command, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: stderrMode === "inherit" ? "inherit" : "pipe",
    detached: !isWindows,
    windowsHide: true,
  });
  let reaped = false;
  const exited: Promise<ExitStatus> = child.exited.then(
    () => {
      reaped = true;
      const signal = child.signalCode;
      return { exitCode: signal ? null : child.exitCode, signal: signal === null ? null : String(signal) };
    },
    () => {
      reaped = true;
      return { exitCode: child.exitCode, signal: null };
    },
  );
  const pid = child.pid;
  if (!isWindows) groupsAtExit.track(pid, exited);
  const signal = (sig: GroupSignal): boolean => {
    if (isWindows) {
      if (sig === 0) return !reaped;
      try {
        b.spawnSync?.(["taskkill", "/T", "/F", "/PID", String(pid)], { stdout: "ignore", stderr: "ignore" });
      } catch {
        tryKill(() => child.kill("SIGKILL"));
      }
      return true;
    }
    if (tryKill(() => process.kill(-pid, sig))) return sig !== 0 || !isLinux || (procGroupHasLiveMembers(pid, bunProc) ?? true);
    return sig !== 0 && !reaped && tryKill(() => child.kill(sig));
  };
  return createProcessConnection(
    {
      pid,
      stdin: fileSinkWritable(child.stdin),
      stdout: child.stdout,
      stderr: child.stderr instanceof ReadableStream ? child.stderr : undefined,
      exited,
      signal,
    },
    options,
  );
}

/** Servers still running are SIGTERMed (their whole group) if this process exits without closing them. */
const groupsAtExit = new GroupsAtExit(
  (onExit) => process.once("exit", onExit),
  (pgid) => void tryKill(() => process.kill(-pgid, "SIGTERM")),
);
const bunProc: ProcReader = { list: () => readdirSync("/proc"), read: (path) => readFileSync(path, "utf8") };

function tryKill(kill: () => void): boolean {
  try {
    kill();
    return true;
  } catch {
    return false;
  }
}

/**
 * A web writable over a `FileSink` with backpressure: each write awaits the sink's pending promise
 * (returned once the pipe is full) and its flush, so nothing piles up in Bun beyond one chunk.
 */
export function fileSinkWritable(sink: FileSinkLike, options: { endOnClose?: boolean } = {}): WritableStream<Uint8Array> {
  return new WritableStream<Uint8Array>(
    {
      async write(chunk) {
        const written = sink.write(chunk);
        if (typeof written !== "number") await written;
        const flushed = sink.flush();
        if (flushed !== undefined && typeof flushed !== "number") await flushed;
      },
      async close() {
        if (options.endOnClose === false) {
          const flushed = sink.flush();
          if (flushed !== undefined && typeof flushed !== "number") await flushed;
          return;
        }
        await sink.end();
      },
      abort() {
        try {
          sink.end();
        } catch {
          // already ended
        }
      },
    },
    { highWaterMark: 1 },
  );
}

/** Options of {@linkcode stdio}. */
export interface StdioOptions {
  /** The `Bun` global to use. Default: the global one. */
  bun?: BunLike;
}

/**
 * `Bun.stdin` and `Bun.stdout` as a duplex, for a server. stdin is read only when pulled; stdout is
 * a `FileSink` whose pending writes are awaited, so a client that stops reading holds the writer.
 * Closing the writable flushes but leaves fd 1 open (the process's exit closes it). `destroy()`
 * cancels the stdin read and unrefs stdout, so a server whose client stopped reading can still exit.
 *
 * @example
 * ```ts
 * import { stdio } from "onemodelcontext/bun";
 * await server.serve(stdio());
 * ```
 */
export function stdio(options: StdioOptions = {}): TransportConnection {
  const b = options.bun ?? bun();
  const input = b.stdin.stream().getReader();
  const sink = b.stdout.writer();
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
  const endReadable = (): void => {
    try {
      readableController?.close();
    } catch {
      // already closed
    }
  };
  return {
    readable,
    writable: fileSinkWritable(sink, { endOnClose: false }),
    destroy(reason) {
      if (destroyed) return;
      destroyed = true;
      input.cancel(reason).catch(() => {});
      sink.unref?.();
      endReadable();
    },
    async close() {
      destroyed = true;
      await input.cancel().catch(() => {});
      endReadable();
    },
  };
}
