/**
 * `onemodelcontext/node`: spawned servers on `node:child_process`, and this process's stdio for servers.
 *
 * Closing a spawned server (`connection.close()`): close its stdin; wait up to `stdinCloseTimeout`
 * (2 000 ms) for it to exit by itself; SIGTERM its process group; wait up to `terminateTimeout`
 * (2 000 ms); SIGKILL the group; resolve when it is reaped (giving up after `killTimeout`, 2 000 ms).
 * On POSIX the server is spawned with `detached: true`, so it leads its own process group and
 * `npx`-style or shell-wrapper grandchildren are signalled with it; group members still alive after
 * the leader exits get SIGTERM, then SIGKILL after `terminateTimeout`. A server that exits on stdin
 * EOF is reaped as soon as it exits; no timer is waited out.
 *
 * Because the server leads its own group, a terminal's Ctrl+C no longer reaches it directly. When this
 * process exits (normally or through `process.exit`) without closing a server, the `'exit'` hook
 * SIGTERMs the groups of servers still running; a parent killed by a signal cannot run it, and its
 * servers then see stdin EOF (a server that ignores EOF is left running).
 *
 * Windows has no process groups and no SIGTERM: stdin close stays the graceful step, and both the
 * SIGTERM and SIGKILL steps run `taskkill /T /F /PID <pid>`, which ends the whole process tree.
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { ClosedError, WriteFailedError } from "../src/wire/errors.ts";
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

/** Options of {@linkcode spawnProcess}. Every timeout is in milliseconds. */
export type SpawnProcessOptions = SpawnOptions;

const isWindows = process.platform === "win32";
const isLinux = process.platform === "linux";

const nodeProc: ProcReader = { list: () => readdirSync("/proc"), read: (path) => readFileSync(path, "utf8") };

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
  validateProcessConnectionOptions(options);
  const cacheKey = options.cacheKey ?? JSON.stringify([command, ...args, options.cwd ?? process.cwd()]);
  return {
    canRespawn: true,
    cacheKey,
    open: () => openProcess(command, [...args], options),
  };
}

async function openProcess(command: string, args: string[], options: SpawnProcessOptions): Promise<ProcessConnection> {
  const stderrMode = options.stderr ?? "pipe";
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv | undefined,
    stdio: ["pipe", "pipe", stderrMode === "inherit" ? "inherit" : "pipe"],
    detached: !isWindows,
    windowsHide: true,
  });
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
  const pid = child.pid!;
  if (!isWindows) groupsAtExit.track(pid, exited);
  return createProcessConnection(
    {
      pid,
      stdin: nodeWritable(child.stdin!),
      stdout: nodeReadable(child.stdout!),
      stderr: child.stderr ? nodeReadable(child.stderr) : undefined,
      exited,
      signal: (sig) => signalGroup(child, pid, sig),
      release() {
        child.stdin?.destroy();
        child.stdout?.destroy();
        child.stderr?.destroy();
      },
    },
    options,
  );
}

/** Servers still running are SIGTERMed (their whole group) if this process exits without closing them. */
const groupsAtExit = new GroupsAtExit(
  (onExit) => process.once("exit", onExit),
  (pgid) => {
    try {
      process.kill(-pgid, "SIGTERM");
    } catch {
      // already gone
    }
  },
);

function signalGroup(child: ChildProcess, pid: number, sig: GroupSignal): boolean {
  if (isWindows) {
    if (sig === 0) return child.exitCode === null && child.signalCode === null;
    const result = spawnSync("taskkill", ["/T", "/F", "/PID", String(pid)], { windowsHide: true, stdio: "ignore" });
    if (result.status !== 0) child.kill("SIGKILL");
    return true;
  }
  try {
    process.kill(-pid, sig);
    return sig !== 0 || !isLinux || (procGroupHasLiveMembers(pid, nodeProc) ?? true);
  } catch {
    // ESRCH: no process of the group is left (or it was never created); try the leader itself.
    if (sig === 0) return false;
    try {
      return child.kill(sig);
    } catch {
      return false;
    }
  }
}

/**
 * A pull-based web stream over a Node `Readable`: the stream is paused and read only when the
 * consumer pulls, so a consumer that stops reading stops the pipe (Node reads ahead at most its
 * `highWaterMark`).
 */
export function nodeReadable(stream: Readable): ReadableStream<Uint8Array> {
  stream.pause();
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  stream.on("readable", notify);
  stream.on("end", () => {
    ended = true;
    notify();
  });
  stream.on("close", () => {
    ended = true;
    notify();
  });
  stream.on("error", (error) => {
    failure = error;
    notify();
  });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const chunk = stream.destroyed ? null : (stream.read() as Buffer | string | null);
          if (chunk !== null) {
            const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk;
            controller.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
            return;
          }
          if (failure !== undefined) return controller.error(failure);
          if (ended || stream.destroyed) return controller.close();
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
      cancel() {
        stream.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * A web writable over a Node `Writable` with real backpressure: a write resolves when Node accepted
 * the bytes below its `highWaterMark`, else on `'drain'`; it rejects on `'error'` or `'close'` instead
 * of hanging. One write at a time, so at most one `'drain'` listener.
 */
export function nodeWritable(stream: Writable, options: { endOnClose?: boolean } = {}): WritableStream<Uint8Array> {
  let failure: unknown;
  stream.on("error", (error) => (failure ??= error));
  const gone = (): Error =>
    failure !== undefined ? new WriteFailedError({ cause: failure }) : new ClosedError("The output stream is closed");
  return new WritableStream<Uint8Array>(
    {
      write(chunk) {
        return new Promise<void>((resolve, reject) => {
          if (failure !== undefined || stream.destroyed || stream.writableEnded) return reject(gone());
          const onDrain = (): void => settle();
          const onGone = (): void => settle(gone());
          const settle = (error?: Error): void => {
            stream.off("drain", onDrain);
            stream.off("error", onGone);
            stream.off("close", onGone);
            if (error) reject(error);
            else resolve();
          };
          stream.on("error", onGone);
          stream.on("close", onGone);
          if (stream.write(chunk)) {
            settle();
          } else {
            stream.on("drain", onDrain);
          }
        });
      },
      close() {
        if (options.endOnClose === false) return;
        return new Promise<void>((resolve, reject) => {
          if (stream.destroyed || stream.writableFinished) return resolve();
          stream.once("error", (error) => reject(new WriteFailedError({ cause: error })));
          stream.end(() => resolve());
          stream.once("close", () => resolve());
        });
      },
      abort() {
        stream.destroy();
      },
    },
    { highWaterMark: 1 },
  );
}

/** Options of {@linkcode stdio}. */
export interface StdioOptions {
  /** Input stream. Default `process.stdin`. */
  stdin?: Readable;
  /** Output stream. Default `process.stdout`. */
  stdout?: Writable;
}

/**
 * This process's stdin and stdout as a duplex, for a server: stdin is read only when pulled;
 * a write to stdout waits for `'drain'` when Node's buffer is full. Closing the writable does not end
 * `process.stdout` (Node forbids it; the process's exit closes it). `destroy()` lets go of both, closing
 * stdout's pipe handle so that writes a stalled client never read cannot keep the process alive.
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
  const isProcessStdout = output === process.stdout;
  const connection: TransportConnection = {
    readable: nodeReadable(input),
    // Closing process.stdout is not allowed in Node; end other streams normally.
    writable: nodeWritable(output, { endOnClose: !isProcessStdout }),
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
  };
  return connection;
}
