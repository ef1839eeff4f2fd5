/**
 * `defineProcessAdapter` on a fake runtime and fake time: the whole close sequence (stdin close →
 * wait → SIGTERM to the group → wait → SIGKILL → reap), the exit hook, Windows and ungrouped children,
 * and the `/proc` probe, with no process and no real clock.
 */
import { describe, expect, test } from "vitest";
import {
  defineProcessAdapter,
  type ProcessRuntime,
  type SpawnedProcess,
} from "../../../adapters/_process/define_process_adapter.ts";
import type { ExitStatus, GroupSignal } from "../../../adapters/_process/shutdown_process.ts";
import { ProcessExitedError, ReadFailedError } from "../../../src/wire/errors.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

interface FakeChildOptions {
  dieOnEof?: boolean;
  dieOnTerm?: boolean;
  grouped?: boolean;
}

/** A runtime whose one child lives in memory; every signal is recorded with the fake time it was sent at. */
function fakeRuntime(time: FakeTimeProvider, os: string, child: FakeChildOptions = {}) {
  const events: string[] = [];
  const at = (event: string): void => void events.push(`${time.now() - 1_000_000} ${event}`);
  let exit!: (status: ExitStatus) => void;
  let alive = true;
  const die = (status: ExitStatus): void => {
    if (!alive) return;
    alive = false;
    at(`exit ${status.signal ?? status.exitCode}`);
    exit(status);
  };
  const onSignal = (sig: GroupSignal): void => {
    if (sig === "SIGTERM" && child.dieOnTerm) die({ exitCode: null, signal: "SIGTERM" });
    if (sig === "SIGKILL") die({ exitCode: null, signal: "SIGKILL" });
  };
  const hooks: Array<() => void> = [];
  let stdout!: ReadableStreamDefaultController<Uint8Array>;
  const runtime: ProcessRuntime = {
    os,
    cwd: () => "/work",
    spawn(command, args, options) {
      at(`spawn ${command} ${args.join(" ")} stderr=${options.stderr}`);
      const spawned: SpawnedProcess = {
        pid: 77,
        grouped: child.grouped,
        stdin: new WritableStream({
          close() {
            at("stdin closed");
            if (child.dieOnEof) die({ exitCode: 0, signal: null });
          },
        }),
        stdout: new ReadableStream({ start: (c) => void (stdout = c) }, { highWaterMark: 0 }),
        exited: new Promise((resolve) => (exit = resolve)),
        kill(sig) {
          at(`kill child ${sig}`);
          onSignal(sig);
        },
      };
      return spawned;
    },
    kill(pid, sig) {
      if (!alive) throw new Error("ESRCH");
      if (sig !== 0) at(`kill ${pid} ${sig}`);
      onSignal(sig);
    },
    killTree(pid) {
      at(`taskkill ${pid}`);
      onSignal("SIGKILL");
    },
    onExit: (hook) => void hooks.push(hook),
  };
  return { runtime, events, hooks, failStdout: (error: Error) => stdout.error(error) };
}

describe("defineProcessAdapter on a fake runtime", () => {
  test("runs stdin close, SIGTERM to the group at stdinCloseTimeout, SIGKILL at terminateTimeout, then the reap", async () => {
    const time = new FakeTimeProvider();
    const fake = fakeRuntime(time, "linux");
    const { spawnProcess } = defineProcessAdapter(fake.runtime);
    const transport = spawnProcess("server", ["--flag"], {
      timeProvider: time,
      stderr: "inherit",
      stdinCloseTimeout: 1000,
      terminateTimeout: 3000,
    });
    expect(transport.cacheKey).toBe(JSON.stringify(["server", "--flag", "/work"]));
    const connection = await transport.open();
    const closing = connection.close();
    await time.advance(999);
    expect(fake.events).toEqual(["0 spawn server --flag stderr=inherit", "0 stdin closed"]);
    await time.advance(1);
    expect(fake.events.at(-1)).toBe("1000 kill -77 SIGTERM");
    await time.advance(2999);
    expect(fake.events).toHaveLength(3);
    await time.advance(1);
    await closing;
    expect(fake.events.slice(3)).toEqual(["4000 kill -77 SIGKILL", "4000 exit SIGKILL"]);
    expect(connection.shutdownStep).toBe("killed");
    expect(connection.closeError()).toBeInstanceOf(ProcessExitedError);
    expect(connection.closeError()!.signal).toBe("SIGKILL");
    expect(time.pendingTimers).toBe(0);
  });

  test("a child that exits on stdin EOF is reaped with no signal and no timer left", async () => {
    const time = new FakeTimeProvider();
    const fake = fakeRuntime(time, "linux", { dieOnEof: true });
    const connection = await defineProcessAdapter(fake.runtime).spawnProcess("server", [], {
      timeProvider: time,
      stderr: "inherit",
    }).open();
    await connection.close();
    expect(fake.events.slice(1)).toEqual(["0 stdin closed", "0 exit 0"]);
    expect(connection.shutdownStep).toBe("exited");
    expect(time.pendingTimers).toBe(0);
  });

  test("the exit hook is installed once and SIGTERMs the groups of children not yet reaped", async () => {
    const time = new FakeTimeProvider();
    const fake = fakeRuntime(time, "linux");
    const { spawnProcess } = defineProcessAdapter(fake.runtime);
    await spawnProcess("server", [], { timeProvider: time, stderr: "inherit" }).open();
    expect(fake.hooks).toHaveLength(1);
    fake.hooks[0]!();
    expect(fake.events.at(-1)).toBe("0 kill -77 SIGTERM");
  });

  test("on Windows both signal steps end the process tree with taskkill, and no group is tracked", async () => {
    const time = new FakeTimeProvider();
    const fake = fakeRuntime(time, "windows");
    const connection = await defineProcessAdapter(fake.runtime).spawnProcess("server", [], {
      timeProvider: time,
      stderr: "inherit",
    }).open();
    const closing = connection.close();
    await time.advance(2000);
    await closing;
    expect(fake.events.slice(2)).toEqual(["2000 taskkill 77", "2000 exit SIGKILL"]);
    expect(fake.hooks).toHaveLength(0);
  });

  test("a child the runtime could not make a group leader is signalled itself", async () => {
    const time = new FakeTimeProvider();
    const fake = fakeRuntime(time, "linux", { grouped: false, dieOnTerm: true });
    const connection = await defineProcessAdapter(fake.runtime).spawnProcess("server", [], {
      timeProvider: time,
      stderr: "inherit",
    }).open();
    const closing = connection.close();
    await time.advance(2000);
    await closing;
    expect(fake.events.slice(2)).toEqual(["2000 kill child SIGTERM", "2000 exit SIGTERM"]);
    expect(fake.hooks).toHaveLength(0);
  });

  test("on Linux the group probe reads /proc, so a group of zombies counts as gone", async () => {
    const time = new FakeTimeProvider();
    const fake = fakeRuntime(time, "linux", { dieOnEof: true });
    let probes = 0;
    const runtime: ProcessRuntime = {
      ...fake.runtime,
      kill: (pid, sig) => void (sig === 0 ? probes++ : fake.runtime.kill(pid, sig)),
      proc: {
        list: () => ["77", "78"],
        read: (path) => (path === "/proc/78/stat" ? "78 (sleep) Z 77 77 77" : "77 (server) Z 1 77 77"),
      },
    };
    const connection = await defineProcessAdapter(runtime).spawnProcess("server", [], {
      timeProvider: time,
      stderr: "inherit",
    }).open();
    await connection.close();
    expect(probes).toBe(1);
    expect(fake.events.filter((e) => e.includes("kill"))).toEqual([]);
  });

  test("a failed stdout read errors the readable with ReadFailedError, never a clean end", async () => {
    const time = new FakeTimeProvider();
    const fake = fakeRuntime(time, "linux");
    const connection = await defineProcessAdapter(fake.runtime).spawnProcess("server", [], {
      timeProvider: time,
      stderr: "inherit",
    }).open();
    const reader = connection.readable.getReader();
    const read = reader.read();
    fake.failStdout(new Error("EIO"));
    const error = await read.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ReadFailedError);
    expect((error as ReadFailedError).code).toBe("read_failed");
    expect(((error as ReadFailedError).cause as Error).message).toBe("EIO");
    connection.destroy();
  });
});
