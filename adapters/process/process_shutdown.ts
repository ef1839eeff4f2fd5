/**
 * The runtime-neutral half of a spawned server: the bounded close sequence (close stdin, wait,
 * SIGTERM the group, wait, SIGKILL the group), stderr draining with a kept tail, and a stdout that
 * ends only once the exit status is known. The Node, Deno and Bun adapters hand it their handles.
 * @module
 */
import type { ClientTransport } from "../../src/rpc/transport.ts";
import { ClosedError, InvalidOptionError, ProcessExitedError } from "../../src/wire/errors.ts";
import { integerOption, numberOption } from "../../src/stream/options.ts";
import { StderrTail } from "./stderr_tail.ts";
import { systemTimeProvider, type TimeProvider, type TimerHandle } from "../../src/stream/time_provider.ts";
import type { TransportConnection } from "../../src/rpc/transport.ts";

/** How a process ended. `signal` is a name such as `"SIGKILL"`, or null when it exited by itself. */
export interface ExitStatus {
  exitCode: number | null;
  signal: string | null;
}

/** The two signals of the close sequence, plus 0 to probe whether any process of the group is left. */
export type GroupSignal = "SIGTERM" | "SIGKILL" | 0;

/** What an adapter gives {@linkcode createProcessConnection}: structural, so tests can pass fakes. */
export interface ProcessHandles {
  /** Process id, when the runtime reports one. */
  readonly pid?: number;
  /** The child's stdin, with backpressure down to the OS pipe. */
  readonly stdin: WritableStream<Uint8Array>;
  /** The child's stdout, pull-based: it is read from the pipe only when pulled. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** The child's stderr when piped; it is always drained. */
  readonly stderr?: ReadableStream<Uint8Array>;
  /** Settles once the process has exited and been reaped; never rejects. */
  readonly exited: Promise<ExitStatus>;
  /**
   * Sends `signal` to the whole process group (or, where there are none, the process tree).
   * Returns false when nothing was left to signal. Never throws.
   */
  signal(signal: GroupSignal): boolean;
  /** Releases the stdio handles now (after the process is reaped, or on destroy). Never throws. */
  release?(): void;
}

/** Bounds of the close sequence and of the end of stdout, in milliseconds. */
export interface ProcessShutdownOptions {
  /** After stdin is closed, how long the server may take to exit by itself. Default 2 000. */
  stdinCloseTimeout?: number;
  /** After SIGTERM to the group, how long before SIGKILL. Also the wait for stray group members. Default 2 000. */
  terminateTimeout?: number;
  /** After SIGKILL, how long to wait for the reap before `close()` resolves anyway. Default 2 000. */
  killTimeout?: number;
  /** After stdout EOF, how long the readable waits for the exit status (and stderr's end). Default 1 000. */
  exitWaitTimeout?: number;
  /** The clock of every bound above. Default: the system clock. */
  timeProvider?: TimeProvider;
}

/** stderr handling: drained and kept (default), left to the parent's stderr, or handed over line by line (and kept). */
export type StderrMode = "pipe" | "inherit" | ((line: string) => void);

/** Which step of the close sequence ended the process. */
export type ShutdownStep = "exited" | "terminated" | "killed" | "unreaped";

/** A connection to a spawned process: the duplex plus its pid, exit status and stderr tail. */
export interface ProcessConnection extends TransportConnection {
  readonly newlySpawned: true;
  readonly pid: number | undefined;
  /** Settles with the exit status once the process has been reaped. */
  readonly exited: Promise<ExitStatus>;
  /** The last stderr lines kept so far (empty with `stderr: "inherit"`). */
  stderrTail(): string;
  /** Which step ended the process on the last {@linkcode ProcessConnection.close}, once it resolved. */
  readonly shutdownStep: ShutdownStep | undefined;
  closeError(): ProcessExitedError | undefined;
  close(): Promise<void>;
  destroy(reason?: unknown): void;
  [Symbol.asyncDispose](): Promise<void>;
}

const POLL_MS = 50;

/** Resolves true when `promise` settles within `ms` on `time`, false otherwise; the timer is cancelled either way. */
export function settlesWithin(promise: Promise<unknown>, ms: number, time: TimeProvider): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: TimerHandle | undefined;
    let done = false;
    promise.then(
      () => finish(true),
      () => finish(true),
    );
    if (!done) timer = time.setTimer(() => finish(false), ms);
    function finish(value: boolean): void {
      if (done) return;
      done = true;
      timer?.cancel();
      resolve(value);
    }
  });
}

/**
 * Runs the bounded close sequence on a process whose stdin close has been started:
 * wait `stdinCloseTimeout` for it to exit, SIGTERM the group, wait `terminateTimeout`, SIGKILL the
 * group, wait `killTimeout` for the reap. When the leader exits while others of its group remain
 * (a wrapper's grandchild), those get SIGTERM, then SIGKILL after `terminateTimeout`. A process that
 * exits by itself is reaped at once: no timer is waited out, and every timer is cancelled.
 */
export async function shutdownProcess(
  handles: Pick<ProcessHandles, "exited" | "signal">,
  options: ProcessShutdownOptions = {},
): Promise<ShutdownStep> {
  const time = options.timeProvider ?? systemTimeProvider;
  const stdinCloseTimeout = numberOption("stdinCloseTimeout", options.stdinCloseTimeout, 2_000);
  const terminateTimeout = numberOption("terminateTimeout", options.terminateTimeout, 2_000);
  const killTimeout = numberOption("killTimeout", options.killTimeout, 2_000);
  let step: ShutdownStep = "exited";
  if (!(await settlesWithin(handles.exited, stdinCloseTimeout, time))) {
    step = "terminated";
    handles.signal("SIGTERM");
    if (!(await settlesWithin(handles.exited, terminateTimeout, time))) {
      step = "killed";
      handles.signal("SIGKILL");
      if (!(await settlesWithin(handles.exited, killTimeout, time))) return "unreaped";
    }
  }
  await sweepGroup(handles, terminateTimeout, time);
  return step;
}

/** After the leader is gone: SIGTERM what is left of its group, poll, SIGKILL after `terminateTimeout`. */
async function sweepGroup(handles: Pick<ProcessHandles, "signal">, terminateTimeout: number, time: TimeProvider): Promise<void> {
  if (!handles.signal(0)) return;
  handles.signal("SIGTERM");
  const deadline = time.now() + terminateTimeout;
  while (handles.signal(0)) {
    if (time.now() >= deadline) {
      handles.signal("SIGKILL");
      return;
    }
    await new Promise<void>((resolve) => time.setTimer(resolve, POLL_MS));
  }
}

/** Options of {@linkcode createProcessConnection}. */
export interface ProcessConnectionOptions extends ProcessShutdownOptions {
  /** What to do with stderr lines; the tail is kept unless `"inherit"` (then `handles.stderr` is absent). */
  stderr?: StderrMode;
  /** Lines of stderr kept for errors. Default 20. */
  stderrTailLines?: number;
  /** Characters of stderr kept for errors. Default 8 192. */
  stderrTailChars?: number;
}

/**
 * Throws `InvalidOptionError` for a bad bound or stderr mode. Adapters call it before spawning, so a
 * bad option never leaves a process behind.
 */
export function validateProcessConnectionOptions(options: ProcessConnectionOptions): void {
  for (const name of ["stdinCloseTimeout", "terminateTimeout", "killTimeout", "exitWaitTimeout"] as const) {
    numberOption(name, options[name], 0);
  }
  integerOption("stderrTailLines", options.stderrTailLines, 20, 0);
  integerOption("stderrTailChars", options.stderrTailChars, 8192, 0);
  const mode = options.stderr;
  if (mode !== undefined && mode !== "pipe" && mode !== "inherit" && typeof mode !== "function") {
    throw new InvalidOptionError(`Option stderr must be "pipe", "inherit" or a function, got ${JSON.stringify(mode)}`);
  }
}

/**
 * Builds the {@linkcode TransportConnection} of a spawned process from the adapter's handles.
 *
 * - `readable` is pull-based and ends only once the exit status is known (or `exitWaitTimeout`
 *   after stdout EOF), so `closeError()` is ready when input ends.
 * - `writable` forwards to stdin; a write made after the process exited, or pending when it exits,
 *   rejects with `ClosedError` instead of hanging.
 * - stderr is drained from the start; its last lines go into `closeError()`.
 * - `close()` runs {@linkcode shutdownProcess}; `destroy()` SIGKILLs the group at once.
 */
export function createProcessConnection(handles: ProcessHandles, options: ProcessConnectionOptions = {}): ProcessConnection {
  const time = options.timeProvider ?? systemTimeProvider;
  validateProcessConnectionOptions(options);
  const exitWaitTimeout = numberOption("exitWaitTimeout", options.exitWaitTimeout, 1_000);
  const shutdownOptions = { ...options, timeProvider: time };
  const onLine = typeof options.stderr === "function" ? options.stderr : undefined;
  const tail = new StderrTail({ maxLines: options.stderrTailLines, maxChars: options.stderrTailChars, onLine });

  let status: ExitStatus | undefined;
  let error: ProcessExitedError | undefined;
  const exited = handles.exited.then((s) => {
    status = s;
    return s;
  });

  const stderrReader = handles.stderr?.getReader();
  const stderrDone: Promise<void> = stderrReader
    ? (async () => {
        try {
          for (;;) {
            const { done, value } = await stderrReader.read();
            if (done) break;
            tail.push(value);
          }
        } catch {
          // The pipe was torn down; what was read is kept.
        } finally {
          tail.end();
        }
      })()
    : Promise.resolve();

  // stdin: forward with backpressure; once the process is gone, fail instead of hanging.
  const stdinWriter = handles.stdin.getWriter();
  stdinWriter.closed.catch(() => {});
  let stdinClosing: Promise<void> | undefined;
  const gone = exited.then(() => {
    throw new ClosedError("Cannot write to the server: its process has exited");
  });
  gone.catch(() => {});
  const closeStdin = (): Promise<void> => {
    stdinClosing ??= stdinWriter.close().catch(() => {});
    return stdinClosing;
  };
  const writable = new WritableStream<Uint8Array>({
    async write(chunk) {
      if (status) throw new ClosedError("Cannot write to the server: its process has exited");
      if (stdinClosing) throw new ClosedError("Cannot write to the server: its stdin is closed");
      await Promise.race([stdinWriter.write(chunk), gone]);
    },
    async close() {
      await Promise.race([closeStdin(), exited]);
    },
    abort() {
      stdinWriter.abort().catch(() => {});
    },
  });

  // stdout: pull-based; at EOF wait (bounded) for the exit status and stderr's end.
  const stdoutReader = handles.stdout.getReader();
  let readableController: ReadableStreamDefaultController<Uint8Array> | undefined;
  let readableEnded = false;
  const endReadable = (): void => {
    if (readableEnded) return;
    readableEnded = true;
    try {
      readableController?.close();
    } catch {
      // Already closed or errored.
    }
  };
  const readable = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        readableController = controller;
      },
      async pull(controller) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await stdoutReader.read();
        } catch {
          result = { done: true, value: undefined };
        }
        if (readableEnded) return;
        if (!result.done) {
          controller.enqueue(result.value);
          return;
        }
        await settlesWithin(Promise.all([exited, stderrDone]), exitWaitTimeout, time);
        endReadable();
      },
      cancel(reason) {
        readableEnded = true;
        return stdoutReader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );

  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    stdinWriter.abort().catch(() => {});
    stdoutReader.cancel().catch(() => {});
    stderrReader?.cancel().catch(() => {});
    endReadable();
    try {
      handles.release?.();
    } catch {
      // Already released.
    }
  };

  let closing: Promise<void> | undefined;
  let step: ShutdownStep | undefined;
  const connection: ProcessConnection = {
    readable,
    writable,
    newlySpawned: true,
    pid: handles.pid,
    exited,
    get shutdownStep() {
      return step;
    },
    stderrTail: () => tail.text(),
    closeError() {
      if (!status) return undefined;
      error ??= new ProcessExitedError(status.exitCode, status.signal, tail.text());
      return error;
    },
    close() {
      closing ??= (async () => {
        void closeStdin();
        step = await shutdownProcess(handles, shutdownOptions);
        // Let stderr's last bytes arrive (bounded), then let go of every handle.
        await settlesWithin(stderrDone, status ? exitWaitTimeout : 0, time);
        release();
      })();
      return closing;
    },
    destroy() {
      handles.signal("SIGKILL");
      void exited.then(async () => {
        await settlesWithin(stderrDone, exitWaitTimeout, time);
        release();
      });
    },
    [Symbol.asyncDispose]() {
      return connection.close();
    },
  };
  return connection;
}

/** The synchronous file reads a `/proc` check needs; each adapter passes its runtime's. */
export interface ProcReader {
  /** Entry names of `/proc`. */
  list(): Iterable<string>;
  /** Text of a file such as `/proc/123/stat`. */
  read(path: string): string;
}

/**
 * Linux: whether a process of group `pgid` is alive and not a zombie. `kill(-pgid, 0)` also succeeds
 * for zombies no reaper has collected yet (common in containers whose init reaps slowly), which would
 * make the close sequence wait for them. Undefined when `/proc` cannot be listed.
 */
export function procGroupHasLiveMembers(pgid: number, proc: ProcReader): boolean | undefined {
  let names: Iterable<string>;
  try {
    names = proc.list();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    try {
      const stat = proc.read(`/proc/${name}/stat`);
      // pid (comm) state ppid pgrp …: comm may hold spaces or parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
    } catch {
      // The process went away while we looked.
    }
  }
  return false;
}

/**
 * Process groups of spawned servers still running, to SIGTERM when this process exits without closing
 * them. `install` registers the runtime's exit hook once; `kill` signals one group and never throws.
 */
export class GroupsAtExit {
  readonly #groups = new Set<number>();
  readonly #install: (onExit: () => void) => void;
  readonly #kill: (pgid: number) => void;
  #installed = false;

  constructor(install: (onExit: () => void) => void, kill: (pgid: number) => void) {
    this.#install = install;
    this.#kill = kill;
  }

  /** Remembers `pgid` until `exited` settles (the leader was reaped). */
  track(pgid: number, exited: Promise<unknown>): void {
    this.#groups.add(pgid);
    void exited.then(() => this.#groups.delete(pgid));
    if (this.#installed) return;
    this.#installed = true;
    this.#install(() => {
      for (const group of this.#groups) this.#kill(group);
    });
  }
}

/** The options every runtime's `spawnProcess` takes; adapters add only their runtime handle. */
export interface SpawnOptions extends ProcessConnectionOptions {
  /** The server's whole environment. Default: this process's environment. */
  env?: Record<string, string | undefined>;
  /** Working directory of the server. Default: this process's. */
  cwd?: string;
  /** `"pipe"` (default: drained, last lines kept), `"inherit"`, or a callback per line (also kept). */
  stderr?: StderrMode;
  /** Era-cache key. Default: command, args and cwd. */
  cacheKey?: string;
}

/** A process transport: every `open()` starts a fresh server. */
export interface ProcessTransport extends ClientTransport {
  readonly canRespawn: true;
  readonly cacheKey: string;
  open(): Promise<ProcessConnection>;
}
