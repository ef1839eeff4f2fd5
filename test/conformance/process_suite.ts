/**
 * The process adapter behaviours, written once and registered on Node (vitest), Deno (deno test) and
 * Bun (bun test) against real processes. Every step of the close sequence runs on a
 * `FakeTimeProvider`: the test moves time, the real process answers. Fixtures say when they are
 * ready (a line on stderr); nothing sleeps to wait for them, and no test asserts a wall-clock window.
 * Runs on any runtime with `node:fs` (all three read `/proc` through it).
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import type { ProcessTransport, SpawnOptions } from "../../adapters/_process/define_process_adapter.ts";
import type { ProcessConnection } from "../../adapters/_process/process_connection.ts";
import { liveGroupMembers as groupMembers } from "../../adapters/_process/process_group.ts";
import { JsonRpcConnection } from "../../src/rpc/json_rpc_connection.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { InvalidOptionError, ProcessExitedError } from "../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../testing/fake_time_provider.ts";
import { assert, assertEquals, assertStrictEquals } from "./assert.ts";
import type { TestApi } from "./test_api.ts";

/** The adapter under test and how to run fixtures on its runtime. */
export interface ProcessAdapterUnderTest {
  /** `node`, `deno` or `bun`: prefixes every test name. */
  readonly runtime: string;
  spawnProcess(command: string, args?: readonly string[], options?: SpawnOptions): ProcessTransport;
  /** The command line that runs `script` with `args` on this runtime. */
  run(script: string, ...args: string[]): [string, string[]];
  /** URLs of this runtime's adapter module and of `ContextServer`'s, for fixtures that serve on `stdio()`. */
  readonly stdioAdapterUrl: string;
  readonly contextServerUrl: string;
  /** Whether a `stdio()` server whose client stopped reading exits by itself after `destroy()`. */
  readonly stdioExitsAfterDestroy: boolean;
  /** An environment variable of this process. */
  env(name: string): string | undefined;
  /** Bytes held by this runtime outside the JS heap (array buffers, or rss where that is all there is). */
  memoryBytes(): number;
}

const repo = new URL("../../", import.meta.url).pathname;
const fixture = (name: string): string => `${repo}test/fixtures/processes/${name}`;
const peer = fixture("peer.mjs");
const MiB = 2 ** 20;
const proc = { list: () => readdirSync("/proc"), read: (path: string) => readFileSync(path, "utf8") };
const liveGroupMembers = (pgid: number): number[] => groupMembers(pgid, proc) ?? [];
const realDelay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "signaller", version: "1" },
};

/** Rejects when `promise` has not settled within `ms` of real time: a liveness guard, never a timing assertion. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((
    _,
    reject,
  ) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for `promise` while moving fake time in 50 ms steps (the close sequence polls the group on it). */
async function drive<T>(time: FakeTimeProvider, promise: Promise<T>, what: string): Promise<T> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let step = 0; !settled; step++) {
    if (step > 500) throw new Error(`${what}: not settled after ${step} steps of fake time`);
    await realDelay(5);
    if (!settled) await time.advance(50);
  }
  return promise;
}

/** A process whose stderr lines are watched: `line(prefix)` resolves with the first line that starts with it. */
interface Watched {
  connection: ProcessConnection;
  time: FakeTimeProvider;
  lines: string[];
  line(prefix: string): Promise<string>;
}

async function open(
  adapter: ProcessAdapterUnderTest,
  command: [string, string[]],
  options: SpawnOptions = {},
): Promise<Watched> {
  const lines: string[] = [];
  const waiters: Array<[string, (line: string) => void]> = [];
  const time = new FakeTimeProvider();
  const connection = await adapter
    .spawnProcess(command[0], command[1], {
      timeProvider: time,
      ...options,
      stderr: (line) => {
        lines.push(line);
        for (const [prefix, resolve] of waiters) if (line.startsWith(prefix)) resolve(line);
      },
    })
    .open();
  const line = (prefix: string): Promise<string> => {
    const seen = lines.find((l) => l.startsWith(prefix));
    if (seen !== undefined) return Promise.resolve(seen);
    return within(
      new Promise<string>((resolve) => waiters.push([prefix, resolve])),
      20_000,
      `stderr line "${prefix}"`,
    );
  };
  return { connection, time, lines, line };
}

/**
 * The last count a fixture reported as `<prefix>N` once no new report came for 250 ms of real time
 * (some runtimes block the fixture's thread in the write itself, so it cannot say it stalled).
 * A stall detector, not a timing assertion.
 */
async function quietCount(p: Watched, prefix: string): Promise<number> {
  const count = (): number =>
    Number(p.lines.findLast((l) => l.startsWith(prefix))?.slice(prefix.length) ?? 0);
  for (let last = -1, polls = 0;; polls++) {
    if (polls > 200) throw new Error(`"${prefix}" reports never stopped`);
    const now = count();
    if (now === last) return now;
    last = now;
    await realDelay(250);
  }
}

async function exchange(channel: NewlineChannel, count: number): Promise<void> {
  const sending = (async () => {
    for (let i = 0; i < count; i++) {
      await channel.send({ jsonrpc: "2.0", id: i, method: "echo", params: { i } });
    }
  })();
  for (let i = 0; i < count; i++) {
    const line = await channel.read();
    assert(line?.kind === "line", `Expected line ${i}, got ${JSON.stringify(line)}`);
    assertStrictEquals(JSON.parse(line.text).id, i);
  }
  await sending;
}

/** True when `promise` has settled by now (after the microtasks queued so far). */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await flushMicrotasks();
  return settled;
}

/** `bytes` ASCII characters that differ along the way, as test/fixtures/processes/oneshot_server.mjs builds them. */
function bigText(bytes: number): string {
  let text = "";
  for (let i = 0; text.length < bytes; i++) text += `${i.toString(36)}.`;
  return text.slice(0, bytes);
}

/** Registers every process adapter behaviour for `adapter` on `api`. */
export function processAdapterSuite(api: TestApi, adapter: ProcessAdapterUnderTest): void {
  const name = (behaviour: string): string => `[${adapter.runtime}] ${behaviour}`;
  const runPeer = (...flags: string[]): [string, string[]] => adapter.run(peer, ...flags);

  api.test(
    name("spawnProcess exchanges 1,000 lines with an echo peer, and a fresh process on every open()"),
    async () => {
      const [command, args] = runPeer();
      const transport = adapter.spawnProcess(command, args, { cwd: "/tmp" });
      assertStrictEquals(transport.canRespawn, true);
      assertStrictEquals(transport.cacheKey, JSON.stringify([command, ...args, "/tmp"]));
      const connection = await transport.open();
      const other = await transport.open();
      assert(connection.pid !== other.pid, "Expected two processes");
      assertStrictEquals(connection.newlySpawned, true);
      const channel = new NewlineChannel(connection);
      await exchange(channel, 1000);
      assertStrictEquals(await channel.closeOutput(), "drained");
      assertStrictEquals(await channel.read(), undefined);
      await Promise.all([connection.close(), other.close()]);
      assertStrictEquals(connection.shutdownStep, "exited");
      assertStrictEquals(connection.closeError()?.exitCode, 0);
    },
  );

  api.test(
    name("a server that exits on stdin EOF is reaped without any timer being waited out"),
    async () => {
      const p = await open(adapter, runPeer());
      await p.line("ready");
      await within(p.connection.close(), 20_000, "close()"); // fake time never moves: no bound can have run out
      assertStrictEquals(p.connection.shutdownStep, "exited");
      assertStrictEquals(p.connection.closeError()?.exitCode, 0);
      assertStrictEquals(p.time.pendingTimers, 0);
    },
  );

  api.test(
    name("a server that ignores stdin EOF gets SIGTERM at stdinCloseTimeout, not before"),
    async () => {
      const p = await open(adapter, runPeer("--ignore-eof"), { stdinCloseTimeout: 2000 });
      try {
        await p.line("ready");
        const closing = p.connection.close();
        await p.time.advance(1999);
        assertStrictEquals(await hasSettled(p.connection.exited), false, "exited before stdinCloseTimeout");
        await p.time.advance(1);
        const status = await within(
          p.connection.exited,
          10_000,
          "SIGTERM ending the server at stdinCloseTimeout",
        );
        assertEquals(status, { exitCode: null, signal: "SIGTERM" });
        await drive(p.time, closing, "close()");
        assertStrictEquals(p.connection.shutdownStep, "terminated");
        assertStrictEquals(p.connection.closeError()?.signal, "SIGTERM");
      } finally {
        p.connection.destroy();
      }
    },
  );

  api.test(
    name("a server that ignores SIGTERM gets SIGKILL terminateTimeout later, not before"),
    async () => {
      const p = await open(adapter, runPeer("--ignore-eof", "--ignore-sigterm"), {
        stdinCloseTimeout: 1000,
        terminateTimeout: 3000,
      });
      try {
        await p.line("ready");
        const closing = p.connection.close();
        await p.time.advance(1000);
        await p.line("ignoring SIGTERM");
        await p.time.advance(2999);
        assertStrictEquals(await hasSettled(p.connection.exited), false, "exited before terminateTimeout");
        await p.time.advance(1);
        const status = await within(
          p.connection.exited,
          10_000,
          "SIGKILL ending the server at terminateTimeout",
        );
        assertEquals(status, { exitCode: null, signal: "SIGKILL" });
        await drive(p.time, closing, "close()");
        assertStrictEquals(p.connection.shutdownStep, "killed");
        assert(p.connection.stderrTail().includes("ignoring SIGTERM"), p.connection.stderrTail());
      } finally {
        p.connection.destroy();
      }
    },
  );

  api.test(
    name("close() signals the whole process group: a shell wrapper and its grandchild are gone"),
    async () => {
      const [command, args] = runPeer();
      const script = `sleep 60 & ${[command, ...args].join(" ")}; wait`;
      const p = await open(adapter, ["sh", ["-c", script]]);
      try {
        await p.line("ready"); // sleep was started before the peer printed it
        const pgid = p.connection.pid!;
        assert(liveGroupMembers(pgid).length >= 3, `Expected sh, sleep and the peer in group ${pgid}`);
        const closing = p.connection.close();
        await p.time.advance(2000); // the peer exits on EOF; sh waits for sleep until the group's SIGTERM
        await drive(p.time, closing, "close()");
        assertStrictEquals(p.connection.shutdownStep, "terminated");
        assertEquals(liveGroupMembers(pgid), []);
      } finally {
        p.connection.destroy();
      }
    },
  );

  api.test(name("close() sweeps a grandchild left in the group by a server that exited on EOF"), async () => {
    const p = await open(adapter, runPeer("--child"));
    await p.line("ready");
    const grandchild = Number((await p.line("grandchild")).split(" ")[1]);
    const pgid = p.connection.pid!;
    assert(liveGroupMembers(pgid).includes(grandchild), "The grandchild is not in the group");
    await drive(p.time, p.connection.close(), "close()");
    assertStrictEquals(p.connection.shutdownStep, "exited");
    assertEquals(liveGroupMembers(pgid), []);
  });

  api.test(
    name("a server exiting while a grandchild holds its stdout fails the pending request with its exit code"),
    async () => {
      const p = await open(adapter, runPeer("--hold-stdout", "--exit-on-input"), { exitWaitTimeout: 1000 });
      const pgid = p.connection.pid!;
      await p.line("ready");
      await p.line("grandchild");
      const rpc = new JsonRpcConnection(p.connection, { timeProvider: p.time }).start();
      const pending = rpc.request("test/never-answered", {});
      pending.catch(() => {}); // inspected below
      await within(p.connection.exited, 10_000, "the server's exit");
      assertStrictEquals(
        await hasSettled(pending),
        false,
        "rejected before the linger for replies already written",
      );
      await p.time.advance(1000);
      const error = await within(
        pending.then(() => undefined, (e: unknown) => e),
        10_000,
        "the pending request's rejection",
      );
      assert(error instanceof ProcessExitedError, `Expected a ProcessExitedError, got ${String(error)}`);
      assertStrictEquals(error.exitCode, 7);
      await drive(p.time, p.connection.close(), "close() with the grandchild still holding stdout");
      assertEquals(liveGroupMembers(pgid), []);
      await drive(p.time, rpc.close(), "the connection's close()");
    },
  );

  api.test(name('env and cwd reach the server; stderr "inherit" keeps no tail'), async () => {
    const [command, args] = runPeer("--print-env");
    const env = { PATH: adapter.env("PATH"), HOME: adapter.env("HOME"), OMC_FOO: "bar" };
    const connection = await adapter.spawnProcess(command, args, { env, cwd: "/tmp", stderr: "inherit" })
      .open();
    const channel = new NewlineChannel(connection);
    const line = await channel.read();
    assert(line?.kind === "line", "Expected a line");
    assertEquals(JSON.parse(line.text), { foo: "bar", cwd: "/tmp" });
    assertStrictEquals(await channel.read(), undefined);
    assertStrictEquals(connection.closeError()?.stderrTail, "");
    await channel.close();
    await connection.close();
  });

  api.test(
    name("a bad bound or stderr mode throws from spawnProcess, and a missing command rejects open()"),
    async () => {
      const [command, args] = runPeer();
      let thrown: unknown;
      try {
        adapter.spawnProcess(command, args, { stdinCloseTimeout: Number.NaN });
      } catch (error) {
        thrown = error;
      }
      assert(
        thrown instanceof InvalidOptionError && /stdinCloseTimeout/.test(thrown.message),
        String(thrown),
      );
      thrown = undefined;
      try {
        adapter.spawnProcess(command, args, { stderr: "ignore" as never });
      } catch (error) {
        thrown = error;
      }
      assert(thrown instanceof InvalidOptionError && /Option stderr/.test(thrown.message), String(thrown));
      const failed = await adapter.spawnProcess("/nonexistent/command").open().then(() => false, () => true);
      assert(failed, "Expected open() to reject for a missing command");
    },
  );

  api.test(
    name("a parent that exits without close() SIGTERMs the group of a server that ignores stdin EOF"),
    async () => {
      const [command, args] = runPeer("--ignore-eof");
      const p = await open(
        adapter,
        adapter.run(fixture("abandon.mjs"), adapter.stdioAdapterUrl, command, ...args),
      );
      const channel = new NewlineChannel(p.connection);
      const line = await channel.read();
      assert(line?.kind === "line", "The parent printed no pid");
      const pid = Number(line.text);
      await within(p.connection.exited, 10_000, "the parent's exit");
      for (let polls = 0; liveGroupMembers(pid).length > 0; polls++) {
        if (polls > 500) throw new Error(`Group ${pid} still alive after the parent exited`);
        await realDelay(10);
      }
      await channel.close();
      await p.connection.close();
    },
  );

  api.test(name("a server writing 16 MB to stderr keeps answering, and the tail is kept"), async () => {
    const p = await open(adapter, runPeer("--stderr=16"));
    const channel = new NewlineChannel(p.connection);
    let rounds = 0;
    while (!p.lines.includes("stderr done")) {
      await exchange(channel, 10);
      if (++rounds > 20_000) throw new Error("stderr never finished");
    }
    await exchange(channel, 100);
    assert(p.connection.stderrTail().length <= 8192, "Tail too long");
    assert(p.connection.stderrTail().endsWith("stderr done"), "Tail lost its last line");
    await channel.close();
    await within(p.connection.close(), 20_000, "close()");
  });

  api.test(
    name(
      "a server killed by SIGKILL mid-message ends the readable with a ProcessExitedError naming the signal",
    ),
    async () => {
      const p = await open(adapter, runPeer("--die-mid-message"));
      const channel = new NewlineChannel(p.connection);
      await channel.send({ jsonrpc: "2.0", id: 1, method: "boom" });
      while ((await channel.read()) !== undefined) {
        // drain what it wrote before it died
      }
      const error = p.connection.closeError();
      assert(error instanceof ProcessExitedError, "Expected a ProcessExitedError");
      assertStrictEquals(error.signal, "SIGKILL");
      assert(error.stderrTail.includes("dying mid-message"), `Tail: ${error.stderrTail}`);
      await channel.close();
      await p.connection.close();
    },
  );

  api.test(
    name("a write after the process exited rejects, and closeError() carries the exit code"),
    async () => {
      const p = await open(adapter, runPeer("--exit-on-input"));
      const writer = p.connection.writable.getWriter();
      await writer.write(new TextEncoder().encode("go\n"));
      await within(p.connection.exited, 10_000, "the exit");
      let message = "";
      await writer.write(new TextEncoder().encode("x\n")).catch((error: Error) => (message = error.message));
      assert(/exited/.test(message), `Expected a rejection naming the exit, got "${message}"`);
      assertStrictEquals(p.connection.closeError()?.exitCode, 7);
      await p.connection.close();
    },
  );

  api.test(
    name("a consumer that stops reading stops the child's writes, without our memory growing"),
    async () => {
      const p = await open(adapter, runPeer("--flood=64"));
      const reader = p.connection.readable.getReader();
      await reader.read();
      const before = adapter.memoryBytes();
      const stalled = await quietCount(p, "wrote ");
      assert(stalled < 40, `The child wrote ${stalled} lines of 64 KiB while we did not read`);
      assert(adapter.memoryBytes() - before < 8 * MiB, "Memory grew while the reader stopped");
      let bytes = 0;
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        bytes += next.value.byteLength;
      }
      assert(p.lines.includes("flood done"), "The flood did not finish");
      assert(bytes > 63 * MiB, `Read ${bytes} bytes`);
      await p.connection.close();
    },
  );

  api.test(name("a server that stops reading stdin holds our writes at the pipe"), async () => {
    const p = await open(adapter, runPeer("--flood=0", "--ignore-eof"));
    const writer = p.connection.writable.getWriter();
    const chunk = new Uint8Array(64 * 1024).fill(120);
    let accepted = 0;
    for (;;) {
      // A write that has not completed after 250 ms of real time is held: a stall detector, not a timing assertion.
      const held = await Promise.race([
        writer.write(chunk).then(() => false),
        realDelay(250).then(() => true),
      ]);
      if (held) break;
      if (++accepted > 1000) throw new Error("Writes never blocked");
    }
    assert(accepted < 16, `${accepted} writes of 64 KiB accepted by a server that reads nothing`);
    writer.releaseLock();
    p.connection.destroy();
    await within(p.connection.exited, 10_000, "destroy()");
  });

  api.test(
    name("stdio() serves a real server process: 1,000 lines echoed, then it exits on EOF"),
    async () => {
      const p = await open(
        adapter,
        adapter.run(fixture("stdio_server.mjs"), adapter.stdioAdapterUrl, "echo"),
      );
      const channel = new NewlineChannel(p.connection);
      await exchange(channel, 1000);
      await channel.closeOutput();
      assertStrictEquals(await channel.read(), undefined);
      await within(p.connection.close(), 20_000, "close()");
      assertStrictEquals(p.connection.shutdownStep, "exited");
      assert(p.lines.includes("echo done"), p.lines.join("|"));
    },
  );

  api.test(
    name(
      "stdio(): a server whose client stopped reading blocks on stdout and ends within the close sequence",
    ),
    async () => {
      const p = await open(
        adapter,
        adapter.run(fixture("stdio_server.mjs"), adapter.stdioAdapterUrl, "stalled"),
      );
      try {
        const stalled = Number((await p.line("stalled after")).split(" ")[2]);
        assert(stalled < 16, `${stalled} writes of 64 KiB before the server saw the stall`);
        await p.line("destroyed");
        if (adapter.stdioExitsAfterDestroy) {
          await within(
            p.connection.exited,
            10_000,
            "the server's own exit after destroy()",
          );
        }
        const closing = p.connection.close();
        await p.time.advance(2000);
        await drive(p.time, closing, "close()");
        assert(
          p.connection.shutdownStep === "exited" || p.connection.shutdownStep === "terminated",
          String(p.connection.shutdownStep),
        );
      } finally {
        p.connection.destroy();
      }
    },
  );

  /** Starts signal_server.mjs, sends `test/slow` with `params`, and resolves once its handler started. */
  const slowRequest = async (params: Record<string, unknown>, bounds: string[] = []) => {
    const p = await open(
      adapter,
      adapter.run(fixture("signal_server.mjs"), adapter.contextServerUrl, adapter.stdioAdapterUrl, ...bounds),
    );
    await p.line("ready");
    const channel = new NewlineChannel(p.connection);
    await channel.send({
      jsonrpc: "2.0",
      id: 1,
      method: "test/slow",
      params: { ...params, _meta: MODERN_META },
    });
    await p.line("started 1");
    return { p, channel };
  };
  const sigterm = (pid: number | undefined): void => {
    assert(pid !== undefined, "the server has a pid");
    process.kill(pid, "SIGTERM");
  };

  api.test(
    name("SIGTERM while a handler runs for 300 ms: the reply arrives, then the process ends by SIGTERM"),
    async () => {
      const { p, channel } = await slowRequest({ ms: 300 });
      try {
        sigterm(p.connection.pid);
        const line = await within(channel.read(), 20_000, "the reply");
        assert(line?.kind === "line", `Expected the reply, got ${JSON.stringify(line)}`);
        assertEquals(JSON.parse(line.text), {
          jsonrpc: "2.0",
          id: 1,
          result: {
            slept: 300,
            resultType: "complete",
            _meta: { "io.modelcontextprotocol/serverInfo": { name: "signals", version: "1.0.0" } },
          },
        });
        assertStrictEquals(await within(channel.read(), 20_000, "EOF after the reply"), undefined);
        await within(p.connection.exited, 20_000, "the exit after SIGTERM");
        assertStrictEquals(p.connection.closeError()?.signal, "SIGTERM", p.connection.stderrTail());
        assert(p.lines.includes("finished 1"), p.lines.join("|"));
      } finally {
        p.connection.destroy();
      }
    },
  );

  api.test(
    name(
      "SIGTERM with a handler that never finishes: the process still ends by SIGTERM once the EOF bounds run out",
    ),
    async () => {
      // Bounds of 100 ms + 100 ms in the server: the hung handler is given up there, not never.
      const { p, channel } = await slowRequest({ forever: true }, ["100", "100"]);
      try {
        sigterm(p.connection.pid);
        await within(p.connection.exited, 20_000, "the exit after SIGTERM and the EOF bounds");
        assertStrictEquals(p.connection.closeError()?.signal, "SIGTERM", p.connection.stderrTail());
        // The abandoned request is answered rather than left to the client's imagination.
        const line = await within(channel.read(), 20_000, "what the server wrote");
        assert(
          line === undefined || (line.kind === "line" && JSON.parse(line.text).id === 1),
          JSON.stringify(line),
        );
      } finally {
        p.connection.destroy();
      }
    },
  );

  api.test(name("a second SIGTERM ends a server that is finishing its requests at once"), async () => {
    // Default bounds (5 s + 5 s): only the second signal can end it before the liveness guard.
    const { p } = await slowRequest({ forever: true });
    try {
      // Signals sent close together may be delivered as one: repeat every 250 ms until it exits.
      let exited = false;
      void p.connection.exited.then(() => (exited = true));
      for (let sent = 0; !exited; sent++) {
        assert(sent < 32, "the server outlived 32 SIGTERMs");
        sigterm(p.connection.pid);
        await Promise.race([p.connection.exited, realDelay(250)]);
      }
      assertStrictEquals(p.connection.closeError()?.signal, "SIGTERM", p.connection.stderrTail());
      assert(!p.lines.some((l) => l.startsWith("served")), p.lines.join("|"));
    } finally {
      p.connection.destroy();
    }
  });

  api.test(
    name(
      "serve() over stdio() resolves only once a 1 MB reply reached the pipe: 20 one-shot runs, slow reader, byte-exact",
    ),
    async () => {
      const bytes = 1_000_000;
      const expected = bigText(bytes);
      const request = {
        jsonrpc: "2.0",
        id: 1,
        method: "test/big",
        params: {
          bytes,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { name: "slow-reader", version: "1" },
          },
        },
      };
      const line = new TextEncoder().encode(JSON.stringify(request) + "\n");
      const oneRun = async (run: number): Promise<void> => {
        const p = await open(
          adapter,
          adapter.run(fixture("oneshot_server.mjs"), adapter.contextServerUrl, adapter.stdioAdapterUrl),
        );
        const writer = p.connection.writable.getWriter();
        await writer.write(line);
        await writer.close(); // a one-shot pipe: the request, then EOF
        const chunks: Uint8Array[] = [];
        const reader = p.connection.readable.getReader();
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          chunks.push(next.value);
          await realDelay(2); // a reader that pauses between chunks
        }
        const text = new TextDecoder().decode(concat(chunks));
        assert(text.endsWith("\n"), `Run ${run}: the reply lost its tail (${text.length} bytes read)`);
        const reply = JSON.parse(text) as { id: number; result: { text: string } };
        assertStrictEquals(reply.id, 1);
        assert(
          reply.result.text === expected,
          `Run ${run}: the reply text differs from the ${bytes} bytes sent`,
        );
        await within(p.connection.close(), 20_000, "close()");
        assertStrictEquals(
          p.connection.closeError()?.exitCode,
          0,
          `Run ${run}: ${p.connection.stderrTail()}`,
        );
      };
      // 20 runs, four at a time: each is its own process, pipe and slow reader.
      const lanes = Array.from({ length: 4 }, async (_, lane) => {
        for (let run = lane; run < 20; run += 4) await oneRun(run);
      });
      await Promise.all(lanes);
    },
  );
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
