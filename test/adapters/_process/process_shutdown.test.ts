/**
 * The runtime-neutral close sequence and process connection, on fake handles and fake time: each
 * bound holds, none is hit early, and a process that exits by itself leaves no timer behind.
 */
import { describe, expect, test } from "vitest";
import { ClosedError, InvalidOptionError, ProcessExitedError } from "../../../src/wire/errors.ts";
import {
  createProcessConnection,
  type ProcessHandles,
} from "../../../adapters/_process/process_connection.ts";
import { GroupsAtExit, procGroupHasLiveMembers } from "../../../adapters/_process/process_group.ts";
import {
  type ExitStatus,
  type GroupSignal,
  shutdownProcess,
} from "../../../adapters/_process/shutdown_process.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../testing/fake_time_provider.ts";

const encoder = new TextEncoder();

interface FakeProcessOptions {
  /** Exit (code 0) as soon as stdin closes. */
  exitOnEof?: boolean;
  /** Die on SIGTERM (else ignore it). */
  dieOnTerm?: boolean;
  /** Die on SIGKILL (else never reaped). */
  dieOnKill?: boolean;
  /** Group members that stay after the leader exits, until SIGTERM (or SIGKILL with `strayIgnoresTerm`). */
  strays?: number;
  strayIgnoresTerm?: boolean;
}

/** A fake process: piped stdio, a group, and signals recorded with the fake time they arrived at. */
function fakeProcess(time: FakeTimeProvider, options: FakeProcessOptions = {}) {
  const signals: Array<[GroupSignal, number]> = [];
  let exit!: (status: ExitStatus) => void;
  const exited = new Promise<ExitStatus>((resolve) => (exit = resolve));
  let alive = true;
  let strays = options.strays ?? 0;
  let stdoutController!: ReadableStreamDefaultController<Uint8Array>;
  let stderrController!: ReadableStreamDefaultController<Uint8Array>;
  const written: string[] = [];
  let holdWrites = false;
  const die = (status: ExitStatus): void => {
    if (!alive) return;
    alive = false;
    exit(status);
  };
  const handles: ProcessHandles & { stdin: WritableStream<Uint8Array> } = {
    pid: 4242,
    stdin: new WritableStream<Uint8Array>({
      write: (chunk) => {
        written.push(new TextDecoder().decode(chunk));
        return holdWrites ? new Promise(() => {}) : undefined;
      },
      close: () => {
        if (options.exitOnEof) die({ exitCode: 0, signal: null });
      },
    }),
    stdout: new ReadableStream<Uint8Array>({ start: (c) => void (stdoutController = c) }, {
      highWaterMark: 0,
    }),
    stderr: new ReadableStream<Uint8Array>({ start: (c) => void (stderrController = c) }),
    exited,
    signal(sig) {
      if (sig === 0) return alive || strays > 0;
      signals.push([sig, time.now()]);
      if (sig === "SIGKILL" || !options.strayIgnoresTerm) strays = 0;
      if (sig === "SIGTERM" && options.dieOnTerm) die({ exitCode: null, signal: "SIGTERM" });
      if (sig === "SIGKILL" && options.dieOnKill !== false) die({ exitCode: null, signal: "SIGKILL" });
      return true;
    },
  };
  return {
    handles,
    signals,
    written,
    die,
    holdWrites: () => (holdWrites = true),
    stdout: (text: string) => stdoutController.enqueue(encoder.encode(text)),
    endStdout: () => stdoutController.close(),
    stderr: (text: string) => stderrController.enqueue(encoder.encode(text)),
    endStderr: () => stderrController.close(),
  };
}

describe("shutdownProcess", () => {
  test("a process that exits on stdin EOF is reaped at once and leaves no timer", async () => {
    const time = new FakeTimeProvider();
    const p = fakeProcess(time, { exitOnEof: true });
    const writer = p.handles.stdin.getWriter();
    const closing = shutdownProcess(p.handles, { timeProvider: time });
    await writer.close();
    expect(await closing).toBe("exited");
    expect(p.signals).toEqual([]);
    expect(time.pendingTimers).toBe(0);
  });

  test("SIGTERM goes to the group exactly at stdinCloseTimeout, not before", async () => {
    const time = new FakeTimeProvider();
    const start = time.now();
    const p = fakeProcess(time, { dieOnTerm: true });
    const closing = shutdownProcess(p.handles, { timeProvider: time, stdinCloseTimeout: 2000 });
    await time.advance(1999);
    expect(p.signals).toEqual([]);
    await time.advance(1);
    expect(p.signals).toEqual([["SIGTERM", start + 2000]]);
    expect(await closing).toBe("terminated");
    expect(time.pendingTimers).toBe(0);
  });

  test("SIGKILL follows terminateTimeout after SIGTERM, not before", async () => {
    const time = new FakeTimeProvider();
    const start = time.now();
    const p = fakeProcess(time);
    const closing = shutdownProcess(p.handles, {
      timeProvider: time,
      stdinCloseTimeout: 2000,
      terminateTimeout: 3000,
    });
    await time.advance(4999);
    expect(p.signals).toEqual([["SIGTERM", start + 2000]]);
    await time.advance(1);
    expect(p.signals).toEqual([
      ["SIGTERM", start + 2000],
      ["SIGKILL", start + 5000],
    ]);
    expect(await closing).toBe("killed");
    expect(time.pendingTimers).toBe(0);
  });

  test("gives up after killTimeout when even SIGKILL does not reap", async () => {
    const time = new FakeTimeProvider();
    const p = fakeProcess(time, { dieOnKill: false });
    const closing = shutdownProcess(p.handles, { timeProvider: time });
    await time.advance(6000);
    expect(await closing).toBe("unreaped");
    expect(time.pendingTimers).toBe(0);
  });

  test("group members left after the leader exits get SIGTERM at once", async () => {
    const time = new FakeTimeProvider();
    const start = time.now();
    const p = fakeProcess(time, { exitOnEof: true, strays: 1 });
    const closing = shutdownProcess(p.handles, { timeProvider: time });
    await p.handles.stdin.getWriter().close();
    expect(await closing).toBe("exited");
    expect(p.signals).toEqual([["SIGTERM", start]]);
    expect(time.pendingTimers).toBe(0);
  });

  test("group members that ignore SIGTERM get SIGKILL after terminateTimeout", async () => {
    const time = new FakeTimeProvider();
    const start = time.now();
    const p = fakeProcess(time, { exitOnEof: true, strays: 1, strayIgnoresTerm: true });
    const closing = shutdownProcess(p.handles, { timeProvider: time, terminateTimeout: 1000 });
    await p.handles.stdin.getWriter().close();
    await time.advance(950);
    expect(p.signals).toEqual([["SIGTERM", start]]);
    await time.advance(100);
    expect(await closing).toBe("exited");
    expect(p.signals.map(([s]) => s)).toEqual(["SIGTERM", "SIGKILL"]);
    expect(p.signals[1][1] - start).toBeGreaterThanOrEqual(1000);
    expect(time.pendingTimers).toBe(0);
  });

  test("rejects a negative bound", async () => {
    const time = new FakeTimeProvider();
    const p = fakeProcess(time);
    await expect(shutdownProcess(p.handles, { timeProvider: time, terminateTimeout: -1 })).rejects
      .toBeInstanceOf(InvalidOptionError);
  });
});

describe("createProcessConnection", () => {
  test("the readable ends only once the exit status is known; closeError carries code, signal and stderr tail", async () => {
    const time = new FakeTimeProvider();
    const p = fakeProcess(time);
    const connection = createProcessConnection(p.handles, { timeProvider: time });
    expect(connection.newlySpawned).toBe(true);
    const reader = connection.readable.getReader();
    p.stdout('{"partial":');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"partial":');
    p.stderr("first\nlast words\n");
    p.endStdout();
    let ended = false;
    const end = reader.read().then((r) => (ended = r.done === true));
    await flushMicrotasks();
    expect(ended).toBe(false);
    expect(connection.closeError()).toBeUndefined();
    p.die({ exitCode: null, signal: "SIGKILL" });
    p.endStderr();
    await end;
    expect(ended).toBe(true);
    const error = connection.closeError();
    expect(error).toBeInstanceOf(ProcessExitedError);
    expect(error).toMatchObject({ exitCode: null, signal: "SIGKILL", stderrTail: "first\nlast words" });
    expect(connection.closeError()).toBe(error);
  });

  test("without an exit status the readable still ends exitWaitTimeout after stdout EOF, not before", async () => {
    const time = new FakeTimeProvider();
    const p = fakeProcess(time);
    const connection = createProcessConnection(p.handles, { timeProvider: time, exitWaitTimeout: 1000 });
    const reader = connection.readable.getReader();
    p.endStdout();
    let ended = false;
    const end = reader.read().then((r) => (ended = r.done === true));
    await time.advance(999);
    expect(ended).toBe(false);
    await time.advance(1);
    await end;
    expect(ended).toBe(true);
    expect(connection.closeError()).toBeUndefined();
  });

  test("a write pending when the process exits rejects instead of hanging, and later writes fail at once", async () => {
    const time = new FakeTimeProvider();
    const p = fakeProcess(time);
    p.holdWrites();
    const connection = createProcessConnection(p.handles, { timeProvider: time });
    const writer = connection.writable.getWriter();
    const pending = writer.write(encoder.encode("hello\n"));
    await flushMicrotasks();
    expect(p.written).toEqual(["hello\n"]);
    p.die({ exitCode: 1, signal: null });
    await expect(pending).rejects.toBeInstanceOf(ClosedError);
  });

  test("writes leave nothing behind on the exit promise: its reactions do not grow with the writes", async () => {
    const time = new FakeTimeProvider();
    const p = fakeProcess(time);
    let reactions = 0;
    // Counts every then() on the exit promise and on every promise derived from it.
    class Counting<T> extends Promise<T> {
      override then<A = T, B = never>(
        onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
        onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
      ): Promise<A | B> {
        reactions++;
        return super.then(onFulfilled, onRejected);
      }
    }
    const handles = { ...p.handles, exited: Counting.resolve(p.handles.exited) as Promise<ExitStatus> };
    const connection = createProcessConnection(handles, { timeProvider: time });
    const writer = connection.writable.getWriter();
    await writer.write(encoder.encode("a\n"));
    const after = reactions;
    for (let i = 0; i < 50; i++) await writer.write(encoder.encode(`${i}\n`));
    expect(reactions).toBe(after);
    expect(p.written).toHaveLength(51);
  });

  test("close() closes stdin first and resolves as soon as the process exits", async () => {
    const time = new FakeTimeProvider();
    const p = fakeProcess(time, { exitOnEof: true });
    const connection = createProcessConnection(p.handles, { timeProvider: time });
    p.endStderr();
    await connection.close();
    expect(connection.shutdownStep).toBe("exited");
    expect(p.signals).toEqual([]);
    expect(connection.closeError()?.exitCode).toBe(0);
    expect(time.pendingTimers).toBe(0);
  });

  test("destroy() SIGKILLs the group at once", async () => {
    const time = new FakeTimeProvider();
    const p = fakeProcess(time);
    const connection = createProcessConnection(p.handles, { timeProvider: time });
    connection.destroy();
    expect(p.signals).toEqual([["SIGKILL", time.now()]]);
    await connection.exited;
    expect(connection.closeError()?.signal).toBe("SIGKILL");
  });

  test("a stderr callback gets every line, and the tail is still kept", async () => {
    const time = new FakeTimeProvider();
    const p = fakeProcess(time);
    const lines: string[] = [];
    const connection = createProcessConnection(p.handles, {
      timeProvider: time,
      stderr: (line) => lines.push(line),
    });
    p.stderr("a\r\nb\nc");
    p.endStderr();
    await flushMicrotasks();
    await flushMicrotasks();
    expect(lines).toEqual(["a", "b", "c"]);
    expect(connection.stderrTail()).toBe("a\nb\nc");
  });
});

describe("procGroupHasLiveMembers", () => {
  const proc = (stats: Record<string, string>) => ({
    list: () => [...Object.keys(stats), "self", "meminfo"],
    read: (path: string) => {
      const pid = path.split("/")[2];
      if (!(pid in stats)) throw new Error("ENOENT");
      return stats[pid];
    },
  });

  test("counts a live member of the group, even with spaces and parentheses in its name", () => {
    expect(procGroupHasLiveMembers(100, proc({ "101": "101 (we ird) (x) S 100 100 100 0 -1" }))).toBe(true);
  });

  test("ignores zombies waiting for a reaper and members of other groups", () => {
    expect(
      procGroupHasLiveMembers(
        100,
        proc({ "101": "101 (sleep) Z 1 100 100 0", "102": "102 (sh) S 1 200 200 0" }),
      ),
    ).toBe(false);
  });

  test("is undefined when /proc cannot be listed", () => {
    expect(
      procGroupHasLiveMembers(100, {
        list: () => {
          throw new Error("EACCES");
        },
        read: () => "",
      }),
    ).toBeUndefined();
  });
});

describe("GroupsAtExit", () => {
  test("installs its hook once and SIGTERMs only the groups whose leader is still running", async () => {
    const hooks: Array<() => void> = [];
    const killed: number[] = [];
    const groups = new GroupsAtExit((onExit) => hooks.push(onExit), (pgid) => killed.push(pgid));
    let reap!: () => void;
    groups.track(10, new Promise<void>((resolve) => (reap = resolve)));
    groups.track(20, new Promise<void>(() => {}));
    expect(hooks).toHaveLength(1);
    reap();
    await flushMicrotasks();
    hooks[0]();
    expect(killed).toEqual([20]);
  });
});
