/**
 * `shutdownProcess`: the bounded close sequence of a spawned server, on an injected clock.
 * @module
 */
import { numberOption } from "../../src/stream/options.ts";
import { systemTimeProvider, type TimeProvider, type TimerHandle } from "../../src/stream/time_provider.ts";

/** How a process ended. `signal` is a name such as `"SIGKILL"`, or null when it exited by itself. */
export interface ExitStatus {
  exitCode: number | null;
  signal: string | null;
}

/** The two signals of the close sequence, plus 0 to probe whether any process of the group is left. */
export type GroupSignal = "SIGTERM" | "SIGKILL" | 0;

/** Which step of the close sequence ended the process. */
export type ShutdownStep = "exited" | "terminated" | "killed" | "unreaped";

/** What the close sequence needs of a process: its exit, and a way to signal its group. */
export interface Signallable {
  /** Settles once the process has exited and been reaped; never rejects. */
  readonly exited: Promise<ExitStatus>;
  /** Sends `signal` to the whole process group; false when nothing was left to signal. Never throws. */
  signal(signal: GroupSignal): boolean;
}

/** Bounds of the close sequence and of the end of stdout, in milliseconds. */
export interface ProcessShutdownOptions {
  /**
   * After stdin is closed, how long the server may take to exit by itself. Default 2 000.
   * @default 2000
   */
  stdinCloseTimeout?: number;
  /**
   * After SIGTERM to the group, how long before SIGKILL. Also the wait for stray group members. Default 2 000.
   * @default 2000
   */
  terminateTimeout?: number;
  /**
   * After SIGKILL, how long to wait for the reap before `close()` resolves anyway. Default 2 000.
   * @default 2000
   */
  killTimeout?: number;
  /**
   * How long the end of stdout and the exit wait for each other: after stdout EOF, for the exit status
   * (and stderr's end); after the exit, for stdout EOF, which a grandchild holding the pipe may never
   * send (input then ends anyway). Default 1 000.
   * @default 1000
   */
  exitWaitTimeout?: number;
  /**
   * The clock of every bound above. Default: the system clock.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
}

const POLL_MS = 50;

/** Resolves true when `promise` settles within `ms` on `time`, false otherwise; the timer is cancelled either way. */
export function settlesWithin(promise: Promise<unknown>, ms: number, time: TimeProvider): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: TimerHandle | undefined;
    let done = false;
    const finish = (value: boolean): void => {
      if (done) return;
      done = true;
      timer?.cancel();
      resolve(value);
    };
    promise.then(
      () => finish(true),
      () => finish(true),
    );
    if (!done) timer = time.setTimer(() => finish(false), ms);
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
  handles: Signallable,
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
async function sweepGroup(handles: Signallable, terminateTimeout: number, time: TimeProvider): Promise<void> {
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
