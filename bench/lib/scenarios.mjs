/**
 * The measurements that run through a connected client: round trips, large messages, close.
 * Each returns one sample; the runner repeats them and keeps the median.
 */
import { ECHO_TEXT } from "./payloads.mjs";
import { readCpuAndIo } from "./proc_memory.mjs";
import { within } from "./stats.mjs";

/**
 * Completed `echo` round trips per second with `inFlight` calls outstanding, over `durationMs`;
 * also the CPU both processes spent per round trip (µs, client + server; this process stands for
 * the client) and the server's write syscalls per reply, which hold up better on a busy machine.
 */
export async function roundTripsPerSecond(client, { inFlight, durationMs }) {
  let completed = 0;
  let serverBefore = readCpuAndIo(client.pid);
  const clientBefore = process.cpuUsage();
  const start = performance.now();
  const deadline = start + durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      const text = await client.call("echo", { text: ECHO_TEXT });
      if (text !== ECHO_TEXT) throw new Error("echo returned a different text");
      completed++;
    }
  };
  await within(
    durationMs + 30_000,
    `${inFlight} in flight`,
    Promise.all(Array.from({ length: inFlight }, worker)),
  );
  const rate = completed / ((performance.now() - start) / 1000);
  const clientCpu = process.cpuUsage(clientBefore);
  // Without /proc (not Linux) the server's side is unknown: NaN, shown as "—".
  const serverAfter = readCpuAndIo(client.pid) ?? { cpuMs: NaN, reads: NaN, writes: NaN };
  serverBefore ??= { cpuMs: NaN, reads: NaN, writes: NaN };
  const serverCpuMs = serverAfter.cpuMs - serverBefore.cpuMs;
  return {
    rate,
    completed,
    seconds: completed / rate,
    cpuUs: ((clientCpu.user + clientCpu.system) / 1000 + serverCpuMs) * 1000 / completed,
    serverCpuUs: (serverCpuMs * 1000) / completed,
    serverWrites: (serverAfter.writes - serverBefore.writes) / completed,
    serverReads: (serverAfter.reads - serverBefore.reads) / completed,
  };
}

/** Warms up the echo path: JIT on both sides, buffers grown. */
export async function warmUp(client, calls = 400) {
  for (let i = 0; i < calls; i += 20) {
    await Promise.all(Array.from({ length: 20 }, () => client.call("echo", { text: ECHO_TEXT })));
  }
}

/** Milliseconds from sending a `blob` call of `bytes` to holding its parsed result. */
export async function largeMessageMs(client, bytes, capMs = 120_000) {
  const start = performance.now();
  const text = await within(capMs, `${bytes}-byte message`, client.call("blob", { bytes }));
  const ms = performance.now() - start;
  if (text.length !== bytes) throw new Error(`blob returned ${text.length} bytes, not ${bytes}`);
  return ms;
}

/** True while a process with this pid exists. */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/**
 * Connects a fresh server (`linger`: one that ignores stdin EOF), makes one call, then times the
 * client's close. Returns `{ ms, gone }`: gone is whether the server process is gone afterwards.
 */
export async function closeMs(impl, { linger }) {
  const client = await impl.connect({ linger });
  await client.call("echo", { text: ECHO_TEXT });
  const start = performance.now();
  await within(30_000, `${impl.id} close`, client.close());
  const ms = performance.now() - start;
  const gone = !alive(client.pid);
  if (!gone) {
    try {
      process.kill(client.pid, "SIGKILL");
    } catch { /* already gone */ }
  }
  return { ms, gone };
}
