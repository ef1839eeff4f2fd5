/**
 * Server RSS while one client never reads: a raw modern `tools/call` of `flood` with a progress
 * token; the client reads the response headers and then nothing. The server's VmHWM/VmRSS is
 * sampled until it stops growing (or `maxMs`); "sent" is how far the tool got (its stdout).
 */
import { readMemory, resetPeak } from "../lib/proc_memory.mjs";
import { sleep } from "../lib/stats.mjs";
import { startServer } from "./impls.mjs";
import { modernBody, rawPost } from "./raw_post.mjs";
import { createInterface } from "node:readline";

const MiB = 2 ** 20;

export async function progressFloodRss(
  { notifications = 300_000, maxMs = 15_000, minMs = 3_000, quietMs = 2_000 } = {},
) {
  const server = await startServer("features_server.mjs", {
    env: { FLOOD_NOTIFICATIONS: String(notifications) },
  });
  let sent = 0;
  createInterface({ input: server.child.stdout }).on("line", (line) => {
    if (line.startsWith("sent ")) sent = Number(line.slice(5));
  });
  let call;
  try {
    await sleep(300);
    const baseline = readMemory(server.child.pid).rss;
    const exactPeak = resetPeak(server.child.pid);
    call = await rawPost(
      server.url,
      modernBody(1, "tools/call", { name: "flood", arguments: {}, _meta: { progressToken: "p" } }),
      { "Mcp-Method": "tools/call", "Mcp-Name": "flood" },
    );
    call.res.pause(); // never read again
    const start = performance.now();
    let peak = baseline;
    let lastGrowth = start;
    for (;;) {
      await sleep(50);
      const now = performance.now();
      const memory = readMemory(server.child.pid);
      if (!memory) break;
      const sample = exactPeak ? Math.max(memory.hwm, memory.rss) : memory.rss;
      if (sample > peak + MiB) lastGrowth = now;
      peak = Math.max(peak, sample);
      if (now - start >= maxMs || sent >= notifications) break;
      if (now - start >= minMs && now - lastGrowth >= quietMs) break;
    }
    return { notifications, baseline, peak, sent, sampledMs: performance.now() - start };
  } finally {
    call?.req.destroy();
    await server.stop();
  }
}
