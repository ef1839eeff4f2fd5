/**
 * Peak memory of a server whose client never reads: a raw client spawns the server, reads only the
 * `initialize` reply, then writes `requests` calls that each ask for `replyBytes` of text and never
 * reads stdout again. The server's VmHWM/VmRSS is sampled from /proc until it stops growing (or
 * `maxMs`), then the server is killed.
 */
import { spawn } from "node:child_process";
import { peer } from "./impls.mjs";
import { INITIALIZED, initializeRequest, MiB, toolCall } from "./payloads.mjs";
import { readMemory, resetPeak } from "./proc_memory.mjs";
import { sleep, within } from "./stats.mjs";

export async function nonReadingPeak(
  serverFile,
  { requests = 200, replyBytes = MiB, maxMs = 6_000, minMs = 2_000, quietMs = 1_000 } = {},
) {
  const child = spawn(process.execPath, [peer(serverFile)], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    await new Promise((resolve, reject) => child.once("spawn", resolve).once("error", reject));
    child.stdin.on("error", () => {}); // the server is killed with our writes possibly pending
    // Handshake: read exactly up to the initialize reply, then stop reading for good.
    child.stdin.write(JSON.stringify(initializeRequest(0)) + "\n");
    await within(
      30_000,
      `${serverFile} initialize`,
      new Promise((resolve) => {
        const onData = (chunk) => {
          if (chunk.includes(10)) {
            child.stdout.off("data", onData);
            child.stdout.pause();
            resolve();
          }
        };
        child.stdout.on("data", onData);
      }),
    );
    child.stdin.write(JSON.stringify(INITIALIZED) + "\n");
    await sleep(300);
    const baseline = readMemory(child.pid).rss;
    const peakReset = resetPeak(child.pid);

    let batch = "";
    for (let id = 1; id <= requests; id++) {
      batch += JSON.stringify(toolCall(id, "blob", { bytes: replyBytes })) + "\n";
    }
    child.stdin.write(batch);

    const start = performance.now();
    let peak = baseline;
    let lastGrowth = start;
    for (;;) {
      await sleep(20);
      const now = performance.now();
      const memory = readMemory(child.pid);
      if (!memory) break;
      const sample = peakReset ? Math.max(memory.hwm, memory.rss) : memory.rss;
      if (sample > peak + MiB) lastGrowth = now;
      peak = Math.max(peak, sample);
      if (now - start >= maxMs) break;
      if (now - start >= minMs && now - lastGrowth >= quietMs) break;
    }
    return {
      baseline,
      peak,
      growth: peak - baseline,
      sampledMs: performance.now() - start,
      exactPeak: peakReset,
    };
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
}
