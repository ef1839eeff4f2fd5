/**
 * The Deno process adapter against real processes: echo peers on Deno and Bun, the close sequence on
 * the whole process group, stderr floods, a peer killed mid-message, a consumer that stops reading,
 * and `stdio()` in a real Deno server process.
 * @module
 */
import { spawnProcess } from "../../adapters/deno.ts";
import { ProcessExitedError } from "../../src/wire/errors.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { assert, assertEquals, assertStrictEquals } from "./assert.ts";

const repo = new URL("../../", import.meta.url).pathname;
const peer = `${repo}test/fixtures/processes/peer.mjs`;
const stdioServer = `${repo}test/fixtures/processes/stdio_server.mjs`;
const denoBin = Deno.execPath();
const bunBin = `${repo}node_modules/.bin/bun`;
const MiB = 2 ** 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const opts = { sanitizeOps: false, sanitizeResources: false };

function liveGroupMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const { name } of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") live.push(Number(name));
    } catch {
      // gone
    }
  }
  return live;
}

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await sleep(20);
  }
  return true;
}

async function exchange(channel: NewlineChannel, count: number): Promise<void> {
  const sending = (async () => {
    for (let i = 0; i < count; i++) await channel.send({ jsonrpc: "2.0", id: i, method: "echo", params: { i } });
  })();
  for (let i = 0; i < count; i++) {
    const line = await channel.read();
    assert(line?.kind === "line", `Expected a line, got ${line?.kind}`);
    assertStrictEquals(JSON.parse(line.text).id, i);
  }
  await sending;
}

for (const [name, command, args] of [
  ["deno", denoBin, ["run", "-A", peer]],
  ["bun", bunBin, [peer]],
] as const) {
  Deno.test({
    name: `Deno spawnProcess exchanges 1,000 lines with an echo peer on ${name}`,
    ...opts,
    async fn() {
      const transport = spawnProcess(command, [...args]);
      assertStrictEquals(transport.canRespawn, true);
      const connection = await transport.open();
      assertStrictEquals(connection.newlySpawned, true);
      const channel = new NewlineChannel(connection);
      await exchange(channel, 1000);
      assertStrictEquals(await channel.closeOutput(), "drained");
      assertStrictEquals(await channel.read(), undefined);
      const started = performance.now();
      await connection.close();
      console.log(`[deno→${name}] well-behaved close took ${(performance.now() - started).toFixed(1)} ms (step ${connection.shutdownStep})`);
      assertStrictEquals(connection.shutdownStep, "exited");
      assertStrictEquals(connection.closeError()?.exitCode, 0);
    },
  });
}

Deno.test({
  name: "Deno spawnProcess starts a fresh process on every open(), keyed by command, args and cwd",
  ...opts,
  async fn() {
    const transport = spawnProcess(denoBin, ["run", "-A", peer], { cwd: "/tmp" });
    assertStrictEquals(transport.cacheKey, JSON.stringify([denoBin, "run", "-A", peer, "/tmp"]));
    const a = await transport.open();
    const b = await transport.open();
    assert(a.pid !== b.pid, "Expected two processes");
    await Promise.all([a.close(), b.close()]);
  },
});

Deno.test({
  name: "Deno spawnProcess reaps a well-behaved server as soon as it exits on stdin EOF",
  ...opts,
  async fn() {
    const connection = await spawnProcess(denoBin, ["run", "-A", peer]).open();
    await exchange(new NewlineChannel(connection), 1); // the server is up: the close time below is the reap, not the startup
    const started = performance.now();
    await connection.close();
    const ms = performance.now() - started;
    console.log(`[deno] well-behaved close (server up, stdin EOF → reaped) took ${ms.toFixed(1)} ms`);
    assertStrictEquals(connection.shutdownStep, "exited");
    assert(ms < 1500, `Close took ${ms} ms`);
  },
});

Deno.test({
  name: "Deno spawnProcess SIGTERMs a server that ignores stdin EOF after stdinCloseTimeout",
  ...opts,
  async fn() {
    const connection = await spawnProcess(denoBin, ["run", "-A", peer, "--ignore-eof"]).open();
    const started = performance.now();
    await connection.close();
    const ms = performance.now() - started;
    console.log(`[deno] ignores-EOF close took ${ms.toFixed(1)} ms (bound 2000)`);
    assertStrictEquals(connection.shutdownStep, "terminated");
    assert(ms >= 1950 && ms < 3000, `Close took ${ms} ms`);
    assertStrictEquals(connection.closeError()?.signal, "SIGTERM");
  },
});

Deno.test({
  name: "Deno spawnProcess SIGKILLs a server that ignores SIGTERM after terminateTimeout",
  ...opts,
  async fn() {
    const connection = await spawnProcess(denoBin, ["run", "-A", peer, "--ignore-eof", "--ignore-sigterm"]).open();
    await sleep(300); // let it install its SIGTERM handler
    const started = performance.now();
    await connection.close();
    const ms = performance.now() - started;
    console.log(`[deno] ignores-SIGTERM close took ${ms.toFixed(1)} ms (bounds 2000 + 2000)`);
    assertStrictEquals(connection.shutdownStep, "killed");
    assert(ms >= 3950 && ms < 5000, `Close took ${ms} ms`);
    assertStrictEquals(connection.closeError()?.signal, "SIGKILL");
  },
});

Deno.test({
  name: "Deno spawnProcess close() leaves no process of the group alive behind a shell wrapper",
  ...opts,
  async fn() {
    const connection = await spawnProcess("sh", ["-c", `sleep 60 & ${denoBin} run -A ${peer}; wait`]).open();
    const pgid = connection.pid!;
    assert(await waitUntil(() => liveGroupMembers(pgid).length >= 3, 5000), "Expected sh, sleep and deno in the group");
    const started = performance.now();
    await connection.close();
    console.log(`[deno] sh wrapper + sleep grandchild: close took ${(performance.now() - started).toFixed(1)} ms (step ${connection.shutdownStep})`);
    assertStrictEquals(connection.shutdownStep, "terminated");
    assertEquals(liveGroupMembers(pgid), []);
  },
});

Deno.test({
  name: "Deno spawnProcess close() sweeps a grandchild left behind by a server that exited on EOF",
  ...opts,
  async fn() {
    const lines: string[] = [];
    const connection = await spawnProcess("sh", ["-c", `${denoBin} run -A ${peer} --child`], { stderr: (l) => lines.push(l) }).open();
    const pgid = connection.pid!;
    assert(await waitUntil(() => lines.some((l) => l.startsWith("grandchild")), 5000), "No grandchild reported");
    const grandchild = Number(lines.find((l) => l.startsWith("grandchild"))!.split(" ")[1]);
    assert(liveGroupMembers(pgid).includes(grandchild), "Grandchild not in the group");
    const started = performance.now();
    await connection.close();
    console.log(`[deno] exited leader + orphaned grandchild: close took ${(performance.now() - started).toFixed(1)} ms`);
    assertEquals(liveGroupMembers(pgid), []);
  },
});

Deno.test({
  name: "Deno spawnProcess: a server writing 50 MB to stderr keeps answering, and the tail is kept",
  ...opts,
  async fn() {
    const connection = await spawnProcess(denoBin, ["run", "-A", peer, "--stderr=50"]).open();
    const channel = new NewlineChannel(connection);
    let rounds = 0;
    while (!connection.stderrTail().includes("stderr done")) {
      await exchange(channel, 10);
      if (++rounds > 20_000) throw new Error("stderr never finished");
    }
    await exchange(channel, 100);
    console.log(`[deno] ${rounds * 10 + 100} answers while 50 MB went to stderr`);
    assert(connection.stderrTail().length <= 8192, "Tail too long");
    assert(connection.stderrTail().endsWith("stderr done"), "Tail lost its last line");
    await channel.close();
    await connection.close();
  },
});

Deno.test({
  name: "Deno spawnProcess: a server killed by SIGKILL mid-message ends the readable with a ProcessExitedError",
  ...opts,
  async fn() {
    const connection = await spawnProcess(denoBin, ["run", "-A", peer, "--die-mid-message"]).open();
    const channel = new NewlineChannel(connection);
    await channel.send({ jsonrpc: "2.0", id: 1, method: "boom" });
    while ((await channel.read()) !== undefined) {
      // drain
    }
    const error = connection.closeError();
    assert(error instanceof ProcessExitedError, "Expected a ProcessExitedError");
    assertStrictEquals(error.signal, "SIGKILL");
    assert(error.stderrTail.includes("dying mid-message"), `Tail: ${error.stderrTail}`);
    await channel.close();
    await connection.close();
  },
});

Deno.test({
  name: "Deno spawnProcess: a consumer that stops reading stops the child's writes without our memory growing",
  ...opts,
  async fn() {
    let wrote = 0;
    let done = false;
    const connection = await spawnProcess(denoBin, ["run", "-A", peer, "--flood=64"], {
      stderr: (line) => {
        if (line.startsWith("wrote ")) wrote = Number(line.slice(6));
        if (line === "flood done") done = true;
      },
    }).open();
    const reader = connection.readable.getReader();
    await reader.read();
    await sleep(500);
    const before = Deno.memoryUsage();
    const atStall = wrote;
    await sleep(1500);
    const after = Deno.memoryUsage();
    console.log(
      `[deno] stalled reader: child wrote ${atStall} → ${wrote} lines of 64 KiB in 1.5 s; ` +
        `rss ${(before.rss / MiB).toFixed(1)} → ${(after.rss / MiB).toFixed(1)} MiB, external ${(before.external / MiB).toFixed(2)} → ${(after.external / MiB).toFixed(2)} MiB`,
    );
    assertStrictEquals(wrote, atStall);
    assert(wrote < 40, `Child wrote ${wrote} lines while we did not read`);
    assert(after.rss - before.rss < 8 * MiB, "rss grew");
    let bytes = 0;
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) break;
      bytes += value.byteLength;
    }
    assert(done, "flood did not finish");
    assert(bytes > 63 * MiB, `Read ${bytes} bytes`);
    await connection.close();
  },
});

Deno.test({
  name: "Deno spawnProcess: open() rejects for a missing command",
  ...opts,
  async fn() {
    let failed = false;
    try {
      await spawnProcess("/nonexistent/command").open();
    } catch {
      failed = true;
    }
    assert(failed, "Expected open() to reject");
  },
});

Deno.test({
  name: "Deno spawnProcess: a write after the process exited rejects instead of hanging",
  ...opts,
  async fn() {
    const connection = await spawnProcess(denoBin, ["eval", "Deno.exit(3)"]).open();
    await connection.exited;
    const writer = connection.writable.getWriter();
    let message = "";
    try {
      await writer.write(new TextEncoder().encode("x\n"));
    } catch (error) {
      message = (error as Error).message;
    }
    assert(/exited/.test(message), `Expected a rejection naming the exit, got "${message}"`);
    assertStrictEquals(connection.closeError()?.exitCode, 3);
    await connection.close();
  },
});

Deno.test({
  name: "Deno spawnProcess: a server that stops reading stdin holds our writes at the pipe",
  ...opts,
  async fn() {
    const connection = await spawnProcess(denoBin, ["run", "-A", peer, "--flood=0", "--ignore-eof"]).open();
    const writer = connection.writable.getWriter();
    const chunk = new Uint8Array(64 * 1024).fill(120);
    let accepted = 0;
    for (;;) {
      const stalled = await Promise.race([writer.write(chunk).then(() => false), sleep(500).then(() => true)]);
      if (stalled) break;
      if (++accepted > 1000) throw new Error("Writes never blocked");
    }
    console.log(`[deno] non-reading server: ${accepted} × 64 KiB writes accepted before one was held`);
    assert(accepted < 16, `${accepted} writes accepted`);
    writer.releaseLock();
    const started = performance.now();
    await connection.close();
    console.log(`[deno] its close() took ${(performance.now() - started).toFixed(1)} ms (step ${connection.shutdownStep})`);
  },
});

Deno.test({
  name: "Deno spawnProcess: env and cwd reach the server; stderr \"inherit\" keeps no tail",
  ...opts,
  async fn() {
    const script = "console.log(JSON.stringify({ foo: Deno.env.get('OMC_FOO'), home: Deno.env.get('HOME') ?? null, cwd: Deno.cwd() }))";
    const connection = await spawnProcess(denoBin, ["eval", script], { env: { OMC_FOO: "bar" }, cwd: "/tmp", stderr: "inherit" }).open();
    const channel = new NewlineChannel(connection);
    const line = await channel.read();
    assert(line?.kind === "line", "Expected a line");
    assertEquals(JSON.parse(line.text), { foo: "bar", home: null, cwd: "/tmp" });
    assertStrictEquals(await channel.read(), undefined);
    assertStrictEquals(connection.closeError()?.stderrTail, "");
    await channel.close();
    await connection.close();
  },
});

Deno.test("Deno spawnProcess: a bad bound throws before anything is spawned", () => {
  let thrown: unknown;
  try {
    spawnProcess(denoBin, [], { stdinCloseTimeout: Number.NaN });
  } catch (error) {
    thrown = error;
  }
  assert(thrown instanceof Error && /stdinCloseTimeout/.test(thrown.message), String(thrown));
});

const adapterUrl = new URL("../../adapters/deno.ts", import.meta.url).href;

Deno.test({
  name: "Deno spawnProcess: a parent that exits without close() SIGTERMs the group of a server that ignores stdin EOF",
  ...opts,
  async fn() {
    const out = await new Deno.Command(denoBin, {
      args: ["run", "-A", `${repo}test/fixtures/processes/abandon.mjs`, adapterUrl, denoBin, "run", "-A", peer, "--ignore-eof"],
      stderr: "inherit",
    }).output();
    const pid = Number(new TextDecoder().decode(out.stdout).trim());
    assert(pid > 0, "No pid printed");
    assert(await waitUntil(() => liveGroupMembers(pid).length === 0, 3000), `Group ${pid} still alive`);
  },
});

Deno.test({
  name: "Deno stdio() echoes through a real Deno server process",
  ...opts,
  async fn() {
    const connection = await spawnProcess(denoBin, ["run", "-A", stdioServer, adapterUrl, "echo"]).open();
    const channel = new NewlineChannel(connection);
    await exchange(channel, 1000);
    await channel.closeOutput();
    assertStrictEquals(await channel.read(), undefined);
    await connection.close();
    assertStrictEquals(connection.shutdownStep, "exited");
    assert(connection.stderrTail().includes("echo done"), connection.stderrTail());
  },
});

Deno.test({
  name: "Deno stdio(): a server whose client stopped reading blocks on stdout; the client's close() still ends it within its bounds",
  ...opts,
  async fn() {
    const lines: string[] = [];
    const connection = await spawnProcess(denoBin, ["run", "-A", stdioServer, adapterUrl, "stalled"], { stderr: (l) => lines.push(l) }).open();
    assert(await waitUntil(() => lines.includes("destroyed"), 10_000), `No destroy: ${lines.join("|")}`);
    const stalled = lines.find((l) => l.startsWith("stalled after"))!;
    assert(Number(stalled.split(" ")[2]) < 8, stalled);
    // Deno cannot abandon a stdout write the OS is blocking on (see adapters/deno.ts), so the server
    // does not exit by itself; it is still held by the full pipe.
    const exitedAlone = await Promise.race([connection.exited.then(() => true), sleep(1000).then(() => false)]);
    const started = performance.now();
    await connection.close();
    console.log(
      `[deno] stdio() server: ${stalled} × 64 KiB; exited by itself after destroy(): ${exitedAlone}; ` +
        `client close() took ${(performance.now() - started).toFixed(1)} ms (step ${connection.shutdownStep})`,
    );
    assert(connection.shutdownStep !== "killed" && connection.shutdownStep !== "unreaped", String(connection.shutdownStep));
  },
});
