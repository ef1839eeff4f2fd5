// @ts-check
// The demo server's tools, prompt and resource, shared by examples/demo_server.mjs and the CLI's
// `onemodelcontext demo`. Plain JavaScript so that node, deno and bun run it unchanged (after
// `npm run build`: the package imports itself by name, and its exports point at dist/).
import { ContextServer } from "onemodelcontext";

/**
 * Sleeps on the host clock; rejects when `signal` aborts.
 * @param {number} ms
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A dual-era server with three tools (one slow, with progress and cancellation), a prompt and a resource.
 * @param {Partial<import("onemodelcontext").ContextServerOptions>} [options]
 */
export function createDemoServer(options = {}) {
  const server = new ContextServer({
    name: "onemodelcontext-demo",
    version: "1.0.0",
    title: "onemodelcontext demo server",
    instructions: "A demo: echo, add, count_slowly; a greet prompt; one resource.",
    ...options,
  });

  server.tool("echo", {
    description: "Returns the text it was given.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  }, ({ text }) => String(text));

  server.tool("add", {
    description: "Adds two numbers.",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  }, ({ a, b }) => String(Number(a) + Number(b))); // arguments that are not numbers never get here

  server.tool("count_slowly", {
    description:
      "Counts to `to`, one step every `intervalMs` (default 100), reporting progress; cancellable.",
    inputSchema: {
      type: "object",
      properties: {
        to: { type: "integer", minimum: 0, maximum: 10_000 },
        intervalMs: { type: "integer", minimum: 0, maximum: 60_000 },
      },
      required: ["to"],
    },
  }, async ({ to, intervalMs }, ctx) => {
    const steps = Number(to);
    const interval = intervalMs === undefined ? 100 : Number(intervalMs);
    for (let i = 1; i <= steps; i++) {
      await sleep(interval, ctx.signal);
      await ctx.sendProgress(i, { total: steps, message: `counted ${i} of ${steps}` });
    }
    return `counted to ${steps}`;
  });

  server.prompt("greet", {
    description: "Greets someone.",
    arguments: [{ name: "name", required: true }],
  }, ({ name }) => `Say hello to ${name ?? "world"}.`);

  server.resource("demo://readme", {
    name: "readme",
    mimeType: "text/plain",
    text: "This is the onemodelcontext demo server.",
  });

  return server;
}
