/**
 * The HTTP implementations: each server is a spawned Node process (bench/http/*_server.mjs) that
 * prints its URL. Two ways to drive them:
 * - `LOAD_TARGETS`: the shared raw load generator (bench/http/load.mjs) POSTs the same pre-built
 *   `tools/call` echo body, with the headers of the target's era, to every server.
 * - `CLIENT_PAIRS`: an MCP client library in the benchmark process, offering call(tool, args) → text
 *   and close().
 */
import { spawn } from "node:child_process";
import { isAbsolute } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { MODERN_VERSION } from "../lib/payloads.mjs";
import { within } from "../lib/stats.mjs";

const textOf = (result) => result.content[0].text;

/** Spawns `file` (in bench/http/, or an absolute path) and resolves with `{ child, url, stop }` once it printed its URL. */
export async function startServer(file, { env } = {}) {
  const path = isAbsolute(file) ? file : fileURLToPath(new URL(file, import.meta.url));
  const child = spawn(process.execPath, [path], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: child.stdout });
  const url = await within(
    30_000,
    `${file} start`,
    new Promise((resolve, reject) => {
      lines.once("line", resolve);
      child.once("exit", (code) => reject(new Error(`${file} exited (${code}) before printing its URL`)));
    }),
  );
  lines.on("line", () => {});
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    child,
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await within(10_000, `${file} stop`, exited).catch(() => child.kill("SIGKILL"));
    },
  };
}

async function connectOurs(url, era, sender = "undici", dir) {
  // `dir`: another built checkout (`--baseline=DIR`), whose client is then the one measured.
  const root = dir === undefined ? undefined : `file://${dir.replace(/\/?$/, "/")}`;
  const { ContextClient } = await import(root ? new URL("dist/src/mod.js", root).href : "onemodelcontext");
  const { httpTransport } = await import(
    root ? new URL("dist/adapters/node/mod.js", root).href : "onemodelcontext/node"
  );
  // The Node entry's transport sends with undici's dispatcher; given a fetch, with that fetch.
  const options = sender === "fetch" ? { fetch: (input, init) => fetch(input, init) } : {};
  const client = await ContextClient.connect(httpTransport(url, options), { era, eraCache: null });
  return {
    call: async (name, args) => textOf(await client.request("tools/call", { name, arguments: args })),
    close: () => client.close(),
  };
}

async function connectSdk2(url) {
  const { Client } = await import("@modelcontextprotocol/client");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const client = new Client({ name: "bench", version: "0.0.0" }, {
    capabilities: {},
    versionNegotiation: { mode: { pin: MODERN_VERSION } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  if (client.getNegotiatedProtocolVersion() !== MODERN_VERSION) {
    throw new Error(`SDK 2.4 negotiated ${client.getNegotiatedProtocolVersion()}`);
  }
  return {
    call: async (name, args) => textOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

/**
 * Servers driven by the load generator. `era`: the request it gets (load.mjs echoRequest). `ours`
 * marks our server's rows; `baseline` ones are added by `--baseline=DIR` (bench/http/run.mjs).
 */
export const LOAD_TARGETS = [
  { id: "ours", label: "onemodelcontext modern", server: "ours_server.mjs", era: "modern" },
  { id: "oursL", label: "onemodelcontext legacy (stateless)", server: "ours_server.mjs", era: "legacy" },
  { id: "sdk2", label: "SDK 2.4 createMcpHandler modern", server: "sdk2_server.mjs", era: "modern" },
  { id: "sdk2L", label: "SDK 2.4 createMcpHandler legacy", server: "sdk2_server.mjs", era: "legacy" },
  {
    id: "serve",
    label: "serve() + plain fetch handler (no MCP)",
    server: "serve_floor_server.mjs",
    era: "plain",
  },
  { id: "floor", label: "node:http JSON floor", server: "floor_server.mjs", era: "plain" },
];

/** The same targets served by another built checkout (`--baseline=DIR`, with its own bench/http servers). */
export function baselineTargets(dir) {
  const server = fileURLToPath(new URL("bench/http/ours_server.mjs", `file://${dir.replace(/\/?$/, "/")}`));
  return [
    { id: "before", label: "before: onemodelcontext modern", server, era: "modern" },
    { id: "beforeL", label: "before: onemodelcontext legacy", server, era: "legacy" },
  ];
}

/** Our client of another built checkout (`--baseline=DIR`) → our server, as "before" pairs. */
export function baselinePairs(dir) {
  return [
    {
      id: "before",
      label: "before: our client → our server, modern",
      server: "ours_server.mjs",
      connect: (url) => connectOurs(url, "modern", "undici", dir),
    },
    {
      id: "beforeL",
      label: "before: our client → our server, legacy",
      server: "ours_server.mjs",
      connect: (url) => connectOurs(url, "legacy", "undici", dir),
    },
  ];
}

/** Client library → server pairs (the client runs in the benchmark process). */
export const CLIENT_PAIRS = [
  {
    id: "ours",
    label: "our client → our server, modern",
    server: "ours_server.mjs",
    connect: (url) => connectOurs(url, "modern"),
  },
  {
    id: "oursL",
    label: "our client → our server, legacy",
    server: "ours_server.mjs",
    connect: (url) => connectOurs(url, "legacy"),
  },
  {
    id: "oursF",
    label: "our client on fetch → our server, modern",
    server: "ours_server.mjs",
    connect: (url) => connectOurs(url, "modern", "fetch"),
  },
  {
    id: "sdk2ours",
    label: "SDK 2.4 client → our server, modern",
    server: "ours_server.mjs",
    connect: (url) => connectSdk2(url),
  },
  {
    id: "sdk2",
    label: "SDK 2.4 client → SDK 2.4 server, modern",
    server: "sdk2_server.mjs",
    connect: (url) => connectSdk2(url),
  },
  {
    id: "floor",
    label: "floor: raw undici request → node:http JSON floor",
    server: "floor_server.mjs",
    connect: (url) => connectFloor(url),
  },
];

/**
 * The client floor, in the same interleave as the pairs: a bare JSON-RPC POST on undici's global
 * dispatcher (keep-alive, no pipelining) to the node:http floor server, its JSON reply parsed.
 */
async function connectFloor(url) {
  const { getGlobalDispatcher } = await import("undici");
  const { origin, pathname } = new URL(url);
  const dispatcher = getGlobalDispatcher();
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  let id = 0;
  return {
    call: async (name, args) => {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: ++id,
        method: "tools/call",
        params: { name, arguments: args },
      });
      const reply = await dispatcher.request({ origin, path: pathname, method: "POST", headers, body });
      return textOf(JSON.parse(await reply.body.text()).result);
    },
    close: async () => {},
  };
}
