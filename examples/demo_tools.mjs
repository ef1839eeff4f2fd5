// The demo server's tools, prompt and resource, shared by examples/demo_server.mjs and the CLI's
// `onemodelcontext demo`. Plain JavaScript so that node, deno and bun run it unchanged (after
// `npm run build`: the package imports itself by name, and its exports point at dist/).
import { ContextServer, JsonRpcError } from "onemodelcontext";
import { ErrorCodes } from "onemodelcontext/protocol";

const TOOLS = [
  {
    name: "echo",
    description: "Returns the text it was given.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  {
    name: "add",
    description: "Adds two numbers.",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
  {
    name: "count_slowly",
    description:
      "Counts to `to`, one step every `intervalMs` (default 100), reporting progress; cancellable.",
    inputSchema: {
      type: "object",
      properties: { to: { type: "integer" }, intervalMs: { type: "integer" } },
      required: ["to"],
    },
  },
];

/** Sleeps on the host clock; rejects when `signal` aborts. */
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

function text(value) {
  return { content: [{ type: "text", text: String(value) }] };
}

/** A dual-era server with three tools (one slow, with progress and cancellation), a prompt and a resource. */
export function createDemoServer(options = {}) {
  const server = new ContextServer({
    name: "onemodelcontext-demo",
    version: "1.0.0",
    title: "onemodelcontext demo server",
    instructions: "A demo: echo, add, count_slowly; a greet prompt; one resource.",
    capabilities: { tools: {}, prompts: {}, resources: {} },
    ...options,
  });
  server.handle("tools/list", () => ({ tools: TOOLS }));
  server.handle("tools/call", async (params, ctx) => {
    const { name, arguments: args = {} } = params ?? {};
    switch (name) {
      case "echo":
        return text(args.text ?? "");
      case "add":
        if (typeof args.a !== "number" || typeof args.b !== "number") {
          return { content: [{ type: "text", text: "Arguments a and b must be numbers" }], isError: true };
        }
        return text(args.a + args.b);
      case "count_slowly": {
        const to = Math.max(0, Math.min(Number(args.to) || 0, 10_000));
        const interval = Math.max(0, Math.min(Number(args.intervalMs ?? 100), 60_000));
        for (let i = 1; i <= to; i++) {
          await sleep(interval, ctx.signal);
          await ctx.sendProgress(i, to, `counted ${i} of ${to}`);
        }
        return text(`counted to ${to}`);
      }
      default:
        throw new JsonRpcError(ErrorCodes.InvalidParams, `Unknown tool: ${name}`);
    }
  });
  server.handle("prompts/list", () => ({
    prompts: [{
      name: "greet",
      description: "Greets someone.",
      arguments: [{ name: "name", required: true }],
    }],
  }));
  server.handle("prompts/get", (params) => {
    if (params?.name !== "greet") {
      throw new JsonRpcError(ErrorCodes.InvalidParams, `Unknown prompt: ${params?.name}`);
    }
    const who = params.arguments?.name ?? "world";
    return { messages: [{ role: "user", content: { type: "text", text: `Say hello to ${who}.` } }] };
  });
  server.handle("resources/list", () => ({
    resources: [{ uri: "demo://readme", name: "readme", mimeType: "text/plain" }],
  }));
  server.handle("resources/read", (params) => {
    if (params?.uri !== "demo://readme") {
      throw new JsonRpcError(ErrorCodes.InvalidParams, `Unknown resource: ${params?.uri}`);
    }
    return {
      contents: [{
        uri: "demo://readme",
        mimeType: "text/plain",
        text: "This is the onemodelcontext demo server.",
      }],
    };
  });
  return server;
}
