/**
 * RSS of our server holding `streams` idle `subscriptions/listen` streams, each on its own TCP
 * connection (raw node:http requests from this process that read the response headers and nothing
 * more). Baseline: the server's VmRSS after a warm-up call, before any stream.
 */
import { readMemory } from "../lib/proc_memory.mjs";
import { sleep } from "../lib/stats.mjs";
import { startServer } from "./impls.mjs";
import { modernBody, rawPost } from "./raw_post.mjs";

export async function idleListenRss({ streams = 10_000, batch = 100 } = {}) {
  const server = await startServer("features_server.mjs", { env: { MAX_STREAMS: String(streams + 10) } });
  const open = [];
  try {
    const warm = await rawPost(
      server.url,
      modernBody(0, "tools/call", { name: "echo", arguments: { text: "x" } }),
      { "Mcp-Method": "tools/call", "Mcp-Name": "echo" },
    );
    warm.res.resume();
    await sleep(500);
    const baseline = readMemory(server.child.pid).rss;
    const start = performance.now();
    for (let id = 1; id <= streams; id += batch) {
      const wave = [];
      for (let i = id; i < Math.min(id + batch, streams + 1); i++) {
        wave.push(
          rawPost(
            server.url,
            modernBody(i, "subscriptions/listen", { notifications: { toolsListChanged: true } }),
            { "Mcp-Method": "subscriptions/listen" },
          ),
        );
      }
      for (const opened of await Promise.all(wave)) {
        if (opened.res.statusCode !== 200) {
          throw new Error(`subscriptions/listen answered HTTP ${opened.res.statusCode}`);
        }
        opened.res.pause();
        open.push(opened);
      }
    }
    const openMs = performance.now() - start;
    await sleep(1_000);
    const rss = readMemory(server.child.pid).rss;
    return { streams, baseline, rss, openMs };
  } finally {
    for (const { req } of open) req.destroy();
    await server.stop();
  }
}
