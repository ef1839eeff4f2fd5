/**
 * `createProcessConnection`: the runtime-neutral connection to a spawned server, built from the
 * handles an adapter gives: stdin with backpressure, a stdout that ends only once the exit status is
 * known, stderr drained into a kept tail, and the bounded close sequence.
 * @module
 */
import type { TransportConnection } from "../../src/rpc/transport.ts";
import {
  ClosedError,
  InvalidOptionError,
  ProcessExitedError,
  ReadFailedError,
} from "../../src/wire/errors.ts";
import { integerOption, numberOption } from "../../src/stream/options.ts";
import { systemTimeProvider, type TimerHandle } from "../../src/stream/time_provider.ts";
import { type ChunkReader, chunkReaderOf, type ChunkWriter, chunkWriterOf } from "../_stdio/chunk_io.ts";
import { readChunk } from "../_stdio/read_chunk.ts";
import { StderrTail } from "./stderr_tail.ts";
import {
  type ExitStatus,
  type ProcessShutdownOptions,
  settlesWithin,
  shutdownProcess,
  type ShutdownStep,
  type Signallable,
} from "./shutdown_process.ts";

/** What an adapter gives {@linkcode createProcessConnection}: structural, so tests can pass fakes. */
export interface ProcessHandles extends Signallable {
  /** Process id, when the runtime reports one. */
  readonly pid?: number;
  /**
   * The child's stdin, with backpressure down to the OS pipe: a web stream, or a bare chunk writer
   * (then the connection's writable is the only web stream over it).
   */
  readonly stdin: WritableStream<Uint8Array> | ChunkWriter;
  /** The child's stdout, pull-based (read from the pipe only when pulled): a web stream, or a bare chunk reader. */
  readonly stdout: ReadableStream<Uint8Array> | ChunkReader;
  /** The child's stderr when piped; it is always drained. */
  readonly stderr?: ReadableStream<Uint8Array>;
  /** Releases the stdio handles now (after the process is reaped, or on destroy). Never throws. */
  release?(): void;
}

/** stderr handling: drained and kept (default), left to the parent's stderr, or handed over line by line (and kept). */
export type StderrMode = "pipe" | "inherit" | ((line: string) => void);

/** Options of {@linkcode createProcessConnection}. */
export interface ProcessConnectionOptions extends ProcessShutdownOptions {
  /** What to do with stderr lines; the tail is kept unless `"inherit"` (then `handles.stderr` is absent). */
  stderr?: StderrMode;
  /**
   * Lines of stderr kept for errors. Default 20.
   * @default 20
   */
  stderrTailLines?: number;
  /**
   * Characters of stderr kept for errors. Default 8 192.
   * @default 8192
   */
  stderrTailChars?: number;
}

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
    throw new InvalidOptionError(
      `Option stderr must be "pipe", "inherit" or a function, got ${JSON.stringify(mode)}`,
    );
  }
}

/**
 * Builds the {@linkcode TransportConnection} of a spawned process from the adapter's handles.
 *
 * - `readable` is pull-based and ends only once the exit status is known (or `exitWaitTimeout`
 *   after stdout EOF), so `closeError()` is ready when input ends. It also ends `exitWaitTimeout`
 *   after the exit when stdout stays open (a grandchild holds the pipe), so pending requests fail
 *   with the exit status instead of waiting for the grandchild. A failed read errors it with
 *   `ReadFailedError`: a broken pipe never looks like a clean end.
 * - `writable` forwards to stdin; a write made after the process exited, or pending when it exits,
 *   rejects with `ClosedError` instead of hanging.
 * - stderr is drained from the start; its last lines go into `closeError()`.
 * - `close()` runs {@linkcode shutdownProcess}; `destroy()` SIGKILLs the group at once.
 */
export function createProcessConnection(
  handles: ProcessHandles,
  options: ProcessConnectionOptions = {},
): ProcessConnection {
  const time = options.timeProvider ?? systemTimeProvider;
  validateProcessConnectionOptions(options);
  const exitWaitTimeout = numberOption("exitWaitTimeout", options.exitWaitTimeout, 1_000);
  const onLine = typeof options.stderr === "function" ? options.stderr : undefined;
  const tail = new StderrTail({
    maxLines: options.stderrTailLines,
    maxChars: options.stderrTailChars,
    onLine,
  });

  let status: ExitStatus | undefined;
  const exited = handles.exited.then((s) => (status = s));
  const stderrDone = handles.stderr ? tail.drain(handles.stderr) : Promise.resolve();
  const stdin = stdinWritable(handles.stdin, exited, () => status !== undefined);
  const stdout = stdoutReadable(handles.stdout, {
    atEnd: () => settlesWithin(Promise.all([exited, stderrDone]), exitWaitTimeout, time).then(() => {}),
    exited,
    linger: (end) => time.setTimer(end, exitWaitTimeout),
  });

  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    stdin.abort();
    stdout.end();
    tail.stop();
    try {
      handles.release?.();
    } catch {
      // Handles that are already released throw on some runtimes; there is nothing left to free.
    }
  };

  let closing: Promise<void> | undefined;
  let step: ShutdownStep | undefined;
  let error: ProcessExitedError | undefined;
  const connection: ProcessConnection = {
    readable: stdout.readable,
    writable: stdin.writable,
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
        void stdin.close();
        step = await shutdownProcess(handles, { ...options, timeProvider: time });
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

/**
 * stdin forwarded with backpressure; once the process is gone, writes fail instead of hanging. The
 * write in flight (the web stream runs one at a time) is rejected by the exit itself: racing each
 * write against the exit would leave one reaction per write on the exit promise until the process ends.
 */
function stdinWritable(
  stdin: WritableStream<Uint8Array> | ChunkWriter,
  exited: Promise<unknown>,
  hasExited: () => boolean,
) {
  const writer = chunkWriterOf(stdin);
  let closing: Promise<void> | undefined;
  let failInFlight: ((error: Error) => void) | undefined;
  void exited.then(() =>
    failInFlight?.(new ClosedError("Cannot write to the server: its process has exited"))
  );
  const close = (): Promise<void> => (closing ??= writer.close().catch(() => {})); // the exit status tells why
  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      if (hasExited()) throw new ClosedError("Cannot write to the server: its process has exited");
      if (closing) throw new ClosedError("Cannot write to the server: its stdin is closed");
      return new Promise<void>((resolve, reject) => {
        const settle = (error?: unknown): void => {
          if (failInFlight !== settle) return;
          failInFlight = undefined;
          if (error === undefined) resolve();
          else reject(error);
        };
        failInFlight = settle;
        writer.write(chunk).then(
          () => settle(),
          (error: unknown) =>
            settle(error ?? new ClosedError("Cannot write to the server: its stdin failed")),
        );
      });
    },
    async close() {
      await Promise.race([close(), exited]);
    },
    abort() {
      writer.abort().catch(() => {}); // tearing down: the pipe may already be gone
    },
  });
  return { writable, close, abort: () => void writer.abort().catch(() => {}) };
}

interface StdoutEnds {
  /** Waits, bounded, for what must be known before input ends (the exit status). */
  atEnd(): Promise<void>;
  /** Settles when the process has exited. */
  exited: Promise<unknown>;
  /** Starts the bounded wait for stdout EOF after the exit. */
  linger(end: () => void): TimerHandle;
}

/**
 * stdout, pull-based. It ends after stdout EOF once the exit is known (bounded), or when, after the
 * exit, a read has waited `linger` without a byte (a grandchild holds the pipe). Only a waiting read
 * counts, so a slow consumer never loses what the process wrote before it exited. A read failure
 * errors it.
 */
function stdoutReadable(stdout: ReadableStream<Uint8Array> | ChunkReader, ends: StdoutEnds) {
  const reader = chunkReaderOf(stdout);
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  let hasExited = false;
  let reading = false;
  let linger: TimerHandle | undefined;
  const stopLinger = (): void => {
    linger?.cancel();
    linger = undefined;
  };
  const armLinger = (): void => {
    if (hasExited && reading && !ended && !linger) linger = ends.linger(end);
  };
  const end = (): void => {
    if (ended) return;
    ended = true;
    stopLinger();
    reader.cancel().catch(() => {}); // the pipe may be torn down already
    try {
      controller.close();
    } catch {
      // The consumer cancelled or it errored already: there is nothing left to end.
    }
  };
  void ends.exited.then(() => {
    hasExited = true;
    armLinger();
  });
  const readable = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      pull(c) {
        reading = true;
        armLinger();
        // A chain, not an async function: one promise less per chunk on the client's hot path.
        return readChunk(reader).then((result) => {
          reading = false;
          stopLinger();
          if (ended) return;
          if (result instanceof ReadFailedError) {
            ended = true;
            return c.error(result);
          }
          if (!result.done) return c.enqueue(result.value!);
          return ends.atEnd().then(end);
        });
      },
      cancel(reason) {
        ended = true;
        stopLinger();
        return reader.cancel(reason).catch(() => {}); // the consumer is done; a broken pipe changes nothing
      },
    },
    { highWaterMark: 0 },
  );
  return { readable, end };
}
