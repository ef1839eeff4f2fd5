/**
 * The Node process adapter against real processes: echo peers on Node and Deno, the close sequence
 * on the whole process group, stderr floods, a peer killed mid-message, and a consumer that stops reading.
 */
import { describe, expect, test } from "vitest";
import { spawnProcess } from "../../adapters/node.ts";
import { InvalidOptionError, ProcessExitedError } from "../../src/wire/errors.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { denoBin, liveGroupMembers, peer, sleep, waitUntil } from "./helpers.ts";

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

describe("spawnProcess on Node", () => {
  test.each([
    ["node", "node", [peer]],
    ["deno", denoBin, ["run", "-A", peer]],
  ])("exchanges 1,000 lines with an echo peer on %s", async (_name, command, args) => {
    const transport = spawnProcess(command as string, args as string[]);
    expect(transport.canRespawn).toBe(true);
    const connection = await transport.open();
    expect(connection.newlySpawned).toBe(true);
    const channel = new NewlineChannel(connection);
    await exchange(channel, 1000);
    expect(await channel.closeOutput()).toBe("drained");
    expect(await channel.read()).toBeUndefined();
    const started = performance.now();
    await connection.close();
    const closeMs = performance.now() - started;
    console.log(`[node→${_name}] well-behaved close took ${closeMs.toFixed(1)} ms (step ${connection.shutdownStep})`);
    expect(connection.shutdownStep).toBe("exited");
    expect(connection.closeError()).toBeInstanceOf(ProcessExitedError);
    expect(connection.closeError()!.exitCode).toBe(0);
  });

  test("a fresh process on every open(), keyed by command, args and cwd", async () => {
    const transport = spawnProcess("node", [peer], { cwd: "/tmp" });
    expect(transport.cacheKey).toBe(JSON.stringify(["node", peer, "/tmp"]));
    const a = await transport.open();
    const b = await transport.open();
    expect(a.pid).not.toBe(b.pid);
    await Promise.all([a.close(), b.close()]);
  });

  test("a well-behaved server is reaped as soon as it exits on stdin EOF", async () => {
    const connection = await spawnProcess("node", [peer]).open();
    const channel = new NewlineChannel(connection);
    await exchange(channel, 1); // the server is up: the close time below is the reap, not the startup
    const started = performance.now();
    await connection.close();
    const closeMs = performance.now() - started;
    console.log(`[node] well-behaved close (server up, stdin EOF → reaped) took ${closeMs.toFixed(1)} ms`);
    expect(connection.shutdownStep).toBe("exited");
    expect(closeMs).toBeLessThan(1500);
  });

  test("a server that ignores stdin EOF is SIGTERMed after stdinCloseTimeout", async () => {
    const connection = await spawnProcess("node", [peer, "--ignore-eof"]).open();
    const started = performance.now();
    await connection.close();
    const closeMs = performance.now() - started;
    console.log(`[node] ignores-EOF close took ${closeMs.toFixed(1)} ms (bound 2000)`);
    expect(connection.shutdownStep).toBe("terminated");
    expect(closeMs).toBeGreaterThanOrEqual(1950);
    expect(closeMs).toBeLessThan(2000 + 1000);
    expect(connection.closeError()!.signal).toBe("SIGTERM");
  });

  test("a server that ignores SIGTERM is SIGKILLed after terminateTimeout", async () => {
    const connection = await spawnProcess("node", [peer, "--ignore-eof", "--ignore-sigterm"]).open();
    const started = performance.now();
    await connection.close();
    const closeMs = performance.now() - started;
    console.log(`[node] ignores-SIGTERM close took ${closeMs.toFixed(1)} ms (bounds 2000 + 2000)`);
    expect(connection.shutdownStep).toBe("killed");
    expect(closeMs).toBeGreaterThanOrEqual(3950);
    expect(closeMs).toBeLessThan(4000 + 1000);
    expect(connection.closeError()!.signal).toBe("SIGKILL");
    expect(connection.stderrTail()).toContain("ignoring SIGTERM");
  });

  test("close() leaves no process of the group alive when a shell wrapper keeps a grandchild", async () => {
    const connection = await spawnProcess("sh", ["-c", `sleep 60 & node ${peer}; wait`]).open();
    const pgid = connection.pid!;
    expect(await waitUntil(() => liveGroupMembers(pgid).length >= 3, 5000)).toBe(true);
    const started = performance.now();
    await connection.close();
    console.log(`[node] sh wrapper + sleep grandchild: close took ${(performance.now() - started).toFixed(1)} ms (step ${connection.shutdownStep})`);
    expect(connection.shutdownStep).toBe("terminated");
    expect(liveGroupMembers(pgid)).toEqual([]);
  });

  test("close() sweeps a grandchild left behind by a server that exited on EOF", async () => {
    const collected: string[] = [];
    const connection = await spawnProcess("sh", ["-c", `node ${peer} --child`], { stderr: (line) => collected.push(line) }).open();
    const pgid = connection.pid!;
    expect(await waitUntil(() => collected.some((l) => l.startsWith("grandchild")), 5000)).toBe(true);
    const grandchild = Number(collected.find((l) => l.startsWith("grandchild"))!.split(" ")[1]);
    expect(liveGroupMembers(pgid)).toContain(grandchild);
    const started = performance.now();
    await connection.close();
    console.log(`[node] exited leader + orphaned grandchild: close took ${(performance.now() - started).toFixed(1)} ms`);
    expect(connection.shutdownStep).toBe("exited");
    expect(liveGroupMembers(pgid)).toEqual([]);
  });

  test("a server writing 50 MB to stderr keeps answering, and the tail is kept", async () => {
    const connection = await spawnProcess("node", [peer, "--stderr=50"]).open();
    const channel = new NewlineChannel(connection);
    let rounds = 0;
    while (!connection.stderrTail().includes("stderr done")) {
      await exchange(channel, 10);
      rounds++;
      if (rounds > 20_000) throw new Error("stderr never finished");
    }
    await exchange(channel, 100);
    console.log(`[node] ${rounds * 10 + 100} answers while 50 MB went to stderr`);
    expect(connection.stderrTail().length).toBeLessThanOrEqual(8192);
    expect(connection.stderrTail().endsWith("stderr done")).toBe(true);
    await channel.close();
    await connection.close();
  });

  test("a server killed by SIGKILL mid-message ends the readable with a ProcessExitedError", async () => {
    const connection = await spawnProcess("node", [peer, "--die-mid-message"]).open();
    const channel = new NewlineChannel(connection);
    await channel.send({ jsonrpc: "2.0", id: 1, method: "boom" });
    for (;;) {
      const next = await channel.read();
      if (next === undefined) break;
    }
    const error = connection.closeError();
    expect(error).toBeInstanceOf(ProcessExitedError);
    expect(error!.signal).toBe("SIGKILL");
    expect(error!.stderrTail).toContain("dying mid-message");
    await channel.close();
    await connection.close();
  });

  test("a consumer that stops reading stops the child's writes, without our memory growing", async () => {
    let wrote = 0;
    let done = false;
    const connection = await spawnProcess("node", [peer, "--flood=64"], {
      stderr: (line) => {
        if (line.startsWith("wrote ")) wrote = Number(line.slice(6));
        if (line === "flood done") done = true;
      },
    }).open();
    const reader = connection.readable.getReader();
    await reader.read();
    await sleep(500);
    globalThis.gc?.();
    const before = process.memoryUsage();
    const wroteAtStall = wrote;
    await sleep(1500);
    const after = process.memoryUsage();
    console.log(
      `[node] stalled reader: child wrote ${wroteAtStall} → ${wrote} lines of 64 KiB in 1.5 s; ` +
        `rss ${(before.rss / 2 ** 20).toFixed(1)} → ${(after.rss / 2 ** 20).toFixed(1)} MiB, ` +
        `arrayBuffers ${(before.arrayBuffers / 2 ** 20).toFixed(2)} → ${(after.arrayBuffers / 2 ** 20).toFixed(2)} MiB`,
    );
    expect(wrote).toBe(wroteAtStall);
    expect(wrote).toBeLessThan(40); // 64 MiB would be 1,024 lines
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(4 * 2 ** 20);
    let bytes = 0;
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) break;
      bytes += value.byteLength;
    }
    expect(done).toBe(true);
    expect(bytes).toBeGreaterThan(63 * 2 ** 20);
    await connection.close();
  });

  test("a server that stops reading stdin holds our writes at the pipe, without our memory growing", async () => {
    const connection = await spawnProcess("node", [peer, "--flood=0", "--ignore-eof"]).open();
    const writer = connection.writable.getWriter();
    const chunk = new Uint8Array(64 * 1024).fill(120);
    let accepted = 0;
    const before = process.memoryUsage();
    for (;;) {
      const stalled = await Promise.race([writer.write(chunk).then(() => false), sleep(500).then(() => true)]);
      if (stalled) break;
      accepted++;
      if (accepted > 1000) throw new Error("Writes never blocked");
    }
    const after = process.memoryUsage();
    console.log(
      `[node] non-reading server: ${accepted} × 64 KiB writes accepted before one was held; ` +
        `arrayBuffers ${(before.arrayBuffers / 2 ** 20).toFixed(2)} → ${(after.arrayBuffers / 2 ** 20).toFixed(2)} MiB`,
    );
    expect(accepted).toBeLessThan(16);
    writer.releaseLock();
    const started = performance.now();
    await connection.close();
    console.log(`[node] its close() took ${(performance.now() - started).toFixed(1)} ms (step ${connection.shutdownStep})`);
  });

  test("env and cwd reach the server; stderr \"inherit\" keeps no tail", async () => {
    const script = "process.stdout.write(JSON.stringify({ foo: process.env.OMC_FOO, cwd: process.cwd() }) + '\\n')";
    const connection = await spawnProcess("node", ["-e", script], { env: { PATH: process.env.PATH, OMC_FOO: "bar" }, cwd: "/tmp", stderr: "inherit" }).open();
    const channel = new NewlineChannel(connection);
    const line = await channel.read();
    expect(JSON.parse((line as { text: string }).text)).toEqual({ foo: "bar", cwd: "/tmp" });
    expect(await channel.read()).toBeUndefined();
    expect(connection.closeError()).toMatchObject({ exitCode: 0, stderrTail: "" });
    await channel.close();
    await connection.close();
  });

  test("a bad bound or stderr mode throws from spawnProcess, before anything is spawned", () => {
    expect(() => spawnProcess("node", [peer], { terminateTimeout: -1 })).toThrow(InvalidOptionError);
    expect(() => spawnProcess("node", [peer], { stderr: "ignore" as never })).toThrow(/Option stderr/);
  });

  test("a failed spawn rejects open()", async () => {
    await expect(spawnProcess("/nonexistent/command").open()).rejects.toThrow(/ENOENT/);
  });

  test("a write after the process exited rejects instead of hanging", async () => {
    const connection = await spawnProcess("node", ["-e", "process.exit(3)"]).open();
    await connection.exited;
    const writer = connection.writable.getWriter();
    await expect(writer.write(new TextEncoder().encode("x\n"))).rejects.toThrow(/exited/);
    expect(connection.closeError()!.exitCode).toBe(3);
    await connection.close();
  });
});
