/**
 * The Bun process adapter against real processes: echo peers on Bun and Node, the close sequence on
 * the whole process group, stderr floods, a peer killed mid-message, a consumer that stops reading,
 * and `stdio()` in a real Bun server process.
 * @module
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { spawnProcess } from "../../adapters/bun.ts";
import { ProcessExitedError } from "../../src/wire/errors.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";

const repo = new URL("../../", import.meta.url).pathname;
const peer = `${repo}test/fixtures/processes/peer.mjs`;
const stdioServer = `${repo}test/fixtures/processes/stdio_server.mjs`;
const bunBin = process.execPath;
const MiB = 2 ** 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function liveGroupMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
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
    expect(line?.kind).toBe("line");
    expect(JSON.parse((line as { text: string }).text).id).toBe(i);
  }
  await sending;
}

describe("spawnProcess on Bun", () => {
  for (const [name, command, args] of [
    ["bun", bunBin, [peer]],
    ["node", "node", [peer]],
  ] as const) {
    test(`exchanges 1,000 lines with an echo peer on ${name}`, async () => {
      const transport = spawnProcess(command, [...args]);
      expect(transport.canRespawn).toBe(true);
      const connection = await transport.open();
      expect(connection.newlySpawned).toBe(true);
      const channel = new NewlineChannel(connection);
      await exchange(channel, 1000);
      expect(await channel.closeOutput()).toBe("drained");
      expect(await channel.read()).toBeUndefined();
      const started = performance.now();
      await connection.close();
      console.log(`[bun→${name}] well-behaved close took ${(performance.now() - started).toFixed(1)} ms (step ${connection.shutdownStep})`);
      expect(connection.shutdownStep).toBe("exited");
      expect(connection.closeError()?.exitCode).toBe(0);
    });
  }

  test("starts a fresh process on every open(), keyed by command, args and cwd", async () => {
    const transport = spawnProcess(bunBin, [peer], { cwd: "/tmp" });
    expect(transport.cacheKey).toBe(JSON.stringify([bunBin, peer, "/tmp"]));
    const a = await transport.open();
    const b = await transport.open();
    expect(a.pid).not.toBe(b.pid);
    await Promise.all([a.close(), b.close()]);
  });

  test("reaps a well-behaved server as soon as it exits on stdin EOF", async () => {
    const connection = await spawnProcess(bunBin, [peer]).open();
    await exchange(new NewlineChannel(connection), 1); // the server is up: the close time below is the reap, not the startup
    const started = performance.now();
    await connection.close();
    const ms = performance.now() - started;
    console.log(`[bun] well-behaved close (server up, stdin EOF → reaped) took ${ms.toFixed(1)} ms`);
    expect(connection.shutdownStep).toBe("exited");
    expect(ms).toBeLessThan(1500);
  });

  test("SIGTERMs a server that ignores stdin EOF after stdinCloseTimeout", async () => {
    const connection = await spawnProcess(bunBin, [peer, "--ignore-eof"]).open();
    const started = performance.now();
    await connection.close();
    const ms = performance.now() - started;
    console.log(`[bun] ignores-EOF close took ${ms.toFixed(1)} ms (bound 2000)`);
    expect(connection.shutdownStep).toBe("terminated");
    expect(ms).toBeGreaterThanOrEqual(1950);
    expect(ms).toBeLessThan(3000);
    expect(connection.closeError()?.signal).toBe("SIGTERM");
  });

  test("SIGKILLs a server that ignores SIGTERM after terminateTimeout", async () => {
    const connection = await spawnProcess(bunBin, [peer, "--ignore-eof", "--ignore-sigterm"]).open();
    await sleep(300); // let it install its SIGTERM handler
    const started = performance.now();
    await connection.close();
    const ms = performance.now() - started;
    console.log(`[bun] ignores-SIGTERM close took ${ms.toFixed(1)} ms (bounds 2000 + 2000)`);
    expect(connection.shutdownStep).toBe("killed");
    expect(ms).toBeGreaterThanOrEqual(3950);
    expect(ms).toBeLessThan(5000);
    expect(connection.closeError()?.signal).toBe("SIGKILL");
  }, 15_000);

  test("close() leaves no process of the group alive behind a shell wrapper", async () => {
    const connection = await spawnProcess("sh", ["-c", `sleep 60 & ${bunBin} ${peer}; wait`]).open();
    const pgid = connection.pid!;
    expect(await waitUntil(() => liveGroupMembers(pgid).length >= 3, 5000)).toBe(true);
    const started = performance.now();
    await connection.close();
    console.log(`[bun] sh wrapper + sleep grandchild: close took ${(performance.now() - started).toFixed(1)} ms (step ${connection.shutdownStep})`);
    expect(connection.shutdownStep).toBe("terminated");
    expect(liveGroupMembers(pgid)).toEqual([]);
  }, 15_000);

  test("close() sweeps a grandchild left behind by a server that exited on EOF", async () => {
    const lines: string[] = [];
    const connection = await spawnProcess("sh", ["-c", `${bunBin} ${peer} --child`], { stderr: (l) => lines.push(l) }).open();
    const pgid = connection.pid!;
    expect(await waitUntil(() => lines.some((l) => l.startsWith("grandchild")), 5000)).toBe(true);
    const grandchild = Number(lines.find((l) => l.startsWith("grandchild"))!.split(" ")[1]);
    expect(liveGroupMembers(pgid)).toContain(grandchild);
    const started = performance.now();
    await connection.close();
    console.log(`[bun] exited leader + orphaned grandchild: close took ${(performance.now() - started).toFixed(1)} ms`);
    expect(liveGroupMembers(pgid)).toEqual([]);
  }, 15_000);

  test("a server writing 50 MB to stderr keeps answering, and the tail is kept", async () => {
    const connection = await spawnProcess(bunBin, [peer, "--stderr=50"]).open();
    const channel = new NewlineChannel(connection);
    let rounds = 0;
    while (!connection.stderrTail().includes("stderr done")) {
      await exchange(channel, 10);
      if (++rounds > 20_000) throw new Error("stderr never finished");
    }
    await exchange(channel, 100);
    console.log(`[bun] ${rounds * 10 + 100} answers while 50 MB went to stderr`);
    expect(connection.stderrTail().length).toBeLessThanOrEqual(8192);
    expect(connection.stderrTail().endsWith("stderr done")).toBe(true);
    await channel.close();
    await connection.close();
  }, 60_000);

  test("a server killed by SIGKILL mid-message ends the readable with a ProcessExitedError", async () => {
    const connection = await spawnProcess(bunBin, [peer, "--die-mid-message"]).open();
    const channel = new NewlineChannel(connection);
    await channel.send({ jsonrpc: "2.0", id: 1, method: "boom" });
    while ((await channel.read()) !== undefined) {
      // drain
    }
    const error = connection.closeError();
    expect(error).toBeInstanceOf(ProcessExitedError);
    expect(error!.signal).toBe("SIGKILL");
    expect(error!.stderrTail).toContain("dying mid-message");
    await channel.close();
    await connection.close();
  });

  test("a consumer that stops reading stops the child's writes without our memory growing", async () => {
    let wrote = 0;
    let done = false;
    const connection = await spawnProcess(bunBin, [peer, "--flood=64"], {
      stderr: (line) => {
        if (line.startsWith("wrote ")) wrote = Number(line.slice(6));
        if (line === "flood done") done = true;
      },
    }).open();
    const reader = connection.readable.getReader();
    await reader.read();
    await sleep(500);
    Bun.gc(true);
    const before = process.memoryUsage();
    const atStall = wrote;
    await sleep(1500);
    Bun.gc(true);
    const after = process.memoryUsage();
    console.log(
      `[bun] stalled reader: child wrote ${atStall} → ${wrote} lines of 64 KiB in 1.5 s; ` +
        `rss ${(before.rss / MiB).toFixed(1)} → ${(after.rss / MiB).toFixed(1)} MiB, arrayBuffers ${(before.arrayBuffers / MiB).toFixed(2)} → ${(after.arrayBuffers / MiB).toFixed(2)} MiB`,
    );
    expect(wrote).toBe(atStall);
    expect(wrote).toBeLessThan(40);
    expect(after.rss - before.rss).toBeLessThan(8 * MiB);
    let bytes = 0;
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) break;
      bytes += value.byteLength;
    }
    expect(done).toBe(true);
    expect(bytes).toBeGreaterThan(63 * MiB);
    await connection.close();
  }, 30_000);

  test("a server that stops reading stdin holds our writes at the pipe (FileSink backpressure)", async () => {
    const connection = await spawnProcess(bunBin, [peer, "--flood=0", "--ignore-eof"]).open();
    const writer = connection.writable.getWriter();
    const chunk = new Uint8Array(64 * 1024).fill(120);
    let accepted = 0;
    const before = process.memoryUsage();
    for (;;) {
      const stalled = await Promise.race([writer.write(chunk).then(() => false), sleep(500).then(() => true)]);
      if (stalled) break;
      if (++accepted > 1000) throw new Error("Writes never blocked");
    }
    const after = process.memoryUsage();
    console.log(
      `[bun] non-reading server: ${accepted} × 64 KiB writes accepted before one was held; rss ${(before.rss / MiB).toFixed(1)} → ${(after.rss / MiB).toFixed(1)} MiB`,
    );
    expect(accepted).toBeLessThan(16);
    writer.releaseLock();
    const started = performance.now();
    await connection.close();
    console.log(`[bun] its close() took ${(performance.now() - started).toFixed(1)} ms (step ${connection.shutdownStep})`);
  }, 15_000);

  test("env and cwd reach the server; stderr \"inherit\" keeps no tail", async () => {
    const script = "process.stdout.write(JSON.stringify({ foo: process.env.OMC_FOO, cwd: process.cwd() }) + '\\n')";
    const connection = await spawnProcess(bunBin, ["-e", script], { env: { OMC_FOO: "bar" }, cwd: "/tmp", stderr: "inherit" }).open();
    const channel = new NewlineChannel(connection);
    const line = await channel.read();
    expect(JSON.parse((line as { text: string }).text)).toEqual({ foo: "bar", cwd: "/tmp" });
    expect(await channel.read()).toBeUndefined();
    expect(connection.closeError()).toMatchObject({ exitCode: 0, stderrTail: "" });
    await channel.close();
    await connection.close();
  });

  test("open() rejects for a missing command", async () => {
    await expect(spawnProcess("/nonexistent/command").open()).rejects.toThrow();
  });

  test("a write after the process exited rejects instead of hanging", async () => {
    const connection = await spawnProcess(bunBin, ["-e", "process.exit(3)"]).open();
    await connection.exited;
    const writer = connection.writable.getWriter();
    await expect(writer.write(new TextEncoder().encode("x\n"))).rejects.toThrow(/exited/);
    expect(connection.closeError()?.exitCode).toBe(3);
    await connection.close();
  });
});

const adapterUrl = new URL("../../adapters/bun.ts", import.meta.url).href;

test("a parent that exits without close() SIGTERMs the group of a server that ignores stdin EOF", async () => {
  const parent = Bun.spawn([bunBin, `${repo}test/fixtures/processes/abandon.mjs`, adapterUrl, bunBin, peer, "--ignore-eof"], { stdout: "pipe", stderr: "inherit" });
  const pid = Number((await new Response(parent.stdout).text()).trim());
  await parent.exited;
  expect(pid).toBeGreaterThan(0);
  expect(await waitUntil(() => liveGroupMembers(pid).length === 0, 3000)).toBe(true);
});

describe("stdio() on Bun", () => {
  test("echoes through a real Bun server process", async () => {
    const connection = await spawnProcess(bunBin, [stdioServer, adapterUrl, "echo"]).open();
    const channel = new NewlineChannel(connection);
    await exchange(channel, 1000);
    await channel.closeOutput();
    expect(await channel.read()).toBeUndefined();
    await connection.close();
    expect(connection.shutdownStep).toBe("exited");
    expect(connection.stderrTail()).toContain("echo done");
  });

  test("a server whose client stopped reading blocks on stdout, and exits by itself after destroy()", async () => {
    const lines: string[] = [];
    const connection = await spawnProcess(bunBin, [stdioServer, adapterUrl, "stalled"], { stderr: (l) => lines.push(l) }).open();
    expect(await waitUntil(() => lines.includes("destroyed"), 10_000)).toBe(true);
    const stalled = lines.find((l) => l.startsWith("stalled after"))!;
    const started = performance.now();
    const status = await Promise.race([connection.exited, sleep(5000).then(() => undefined)]);
    console.log(`[bun] stdio() server: ${stalled} × 64 KiB, then exited ${(performance.now() - started).toFixed(1)} ms after destroy()`);
    expect(status).toBeDefined();
    expect(Number(stalled.split(" ")[2])).toBeLessThan(16);
    await connection.close();
  }, 20_000);
});
