/**
 * The implementations under test. Each one connects a client in this process to a server it spawns
 * as a child Node process of the same implementation, in the legacy era (the one all three speak),
 * and offers the same three operations:
 *   call(tool, args) → the text of the tool result; close() → the client's own close; pid.
 */
import { spawn } from "node:child_process";
import { isAbsolute, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { lineSplitter } from "./floor_lines.mjs";
import { MAX_MESSAGE_BYTES, MODERN_VERSION, toolCall } from "./payloads.mjs";
import { loadOurs } from "./ours.mjs";

export const peer = (
  file,
) => (isAbsolute(file) ? file : fileURLToPath(new URL(`../peers/${file}`, import.meta.url)));
const serverArgs = (file, linger) => (linger ? [peer(file), "--linger"] : [peer(file)]);
const RUNTIME_BIN = (name) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));
const textOf = (result) => result.content[0].text;

async function connectOurs(
  { linger = false, era = "legacy", runtime } = {},
  ours = loadOurs(),
  server = "ours_server.mjs",
) {
  const { ContextClient, spawnProcess } = await ours;
  let pid;
  const [command, ...prefix] = runtime ?? [process.execPath];
  const transport = spawnProcess(command, [...prefix, ...serverArgs(server, linger)], { stderr: "inherit" });
  const open = transport.open;
  const tapped = {
    ...transport,
    open: async () => {
      const c = await open();
      pid = c.pid;
      return c;
    },
  };
  const client = await ContextClient.connect(tapped, {
    era,
    connection: { channel: { maxMessageBytes: MAX_MESSAGE_BYTES } },
    eraCache: null,
  });
  return {
    pid,
    call: async (name, args) => textOf(await client.request("tools/call", { name, arguments: args })),
    close: () => client.close(),
  };
}

async function connectSdk1({ linger = false } = {}) {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: serverArgs("sdk1_server.mjs", linger),
    stderr: "inherit",
    maxBufferSize: MAX_MESSAGE_BYTES,
  });
  const client = new Client({ name: "bench", version: "0.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return {
    pid: transport.pid,
    call: async (name, args) => textOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

async function connectSdk2({ linger = false, era = "legacy" } = {}) {
  const { Client } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: serverArgs("sdk2_server.mjs", linger),
    stderr: "inherit",
    maxBufferSize: MAX_MESSAGE_BYTES,
  });
  // The modern era pinned (no probe on a sibling process); the legacy era is the SDK's default.
  const negotiation = era === "modern" ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {};
  const client = new Client({ name: "bench", version: "0.0.0" }, { capabilities: {}, ...negotiation });
  await client.connect(transport);
  if (
    era === "modern" && client.getNegotiatedProtocolVersion?.() !== undefined &&
    client.getNegotiatedProtocolVersion() !== MODERN_VERSION
  ) {
    throw new Error(`SDK 2.4 negotiated ${client.getNegotiatedProtocolVersion()}, not ${MODERN_VERSION}`);
  }
  return {
    pid: transport.pid,
    call: async (name, args) => textOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

/** The floor client: JSON.stringify → stdin, stdout → split → JSON.parse → match the id. */
async function connectFloor() {
  const child = spawn(process.execPath, [peer("floor_server.mjs")], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise((resolve, reject) => child.once("spawn", resolve).once("error", reject));
  const pending = new Map();
  let nextId = 1;
  child.stdout.on(
    "data",
    lineSplitter((line) => {
      const message = JSON.parse(line);
      const settle = pending.get(message.id);
      pending.delete(message.id);
      settle?.(message.result);
    }),
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    pid: child.pid,
    call(name, args) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, (result) => resolve(textOf(result)));
        child.stdin.write(JSON.stringify(toolCall(id, name, args)) + "\n");
      });
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

export const IMPLS = [
  { id: "ours", label: "onemodelcontext", server: "ours_server.mjs", connect: connectOurs },
  { id: "sdk2", label: "SDK 2.4.0", server: "sdk2_server.mjs", connect: connectSdk2 },
  // The modern era (2026-07-28): ours and SDK 2.4 (the only SDK that speaks it), same servers.
  {
    id: "oursM",
    label: "onemodelcontext modern",
    server: "ours_server.mjs",
    era: "modern",
    connect: (o) => connectOurs({ ...o, era: "modern" }),
  },
  {
    id: "sdk2M",
    label: "SDK 2.4.0 modern",
    server: "sdk2_server.mjs",
    era: "modern",
    connect: (o) => connectSdk2({ ...o, era: "modern" }),
  },
  // Our server under Deno and Bun (their own stdio adapters), driven by our client on Node, legacy era.
  {
    id: "deno",
    label: "ours, server on Deno",
    server: "ours_server.mjs",
    runtimeOnly: true,
    connect: (o) => connectOurs({ ...o, runtime: [RUNTIME_BIN("deno"), "run", "-A"] }),
  },
  {
    id: "bun",
    label: "ours, server on Bun",
    server: "ours_server.mjs",
    runtimeOnly: true,
    connect: (o) => connectOurs({ ...o, runtime: [RUNTIME_BIN("bun")] }),
  },
  { id: "sdk1", label: "SDK 1.32.2", server: "sdk1_server.mjs", connect: connectSdk1 },
  { id: "floor", label: "floor", server: "floor_server.mjs", connect: connectFloor },
];

/**
 * `--baseline=DIR`: another checkout of onemodelcontext (built, with its own bench/peers), measured in
 * the same run as column "before", so a change is compared with the code it replaces under the same load.
 * Its client is loaded from DIR/dist and its server is DIR's own bench server.
 */
export function baselineImpl(dir) {
  const load = async () => {
    const core = await import(pathToFileURL(join(dir, "dist/src/mod.js")).href);
    const node = await import(pathToFileURL(join(dir, "dist/adapters/node/mod.js")).href);
    return { ContextClient: core.ContextClient, spawnProcess: node.spawnProcess };
  };
  const server = join(dir, "bench/peers/ours_server.mjs");
  return {
    id: "before",
    label: "onemodelcontext before",
    server,
    connect: (options) => connectOurs(options, load(), server),
  };
}

/** The same baseline checkout in the modern era (column "before" of the modern rows). */
export function baselineModernImpl(dir) {
  const legacy = baselineImpl(dir);
  return {
    ...legacy,
    id: "beforeM",
    label: "onemodelcontext before, modern",
    era: "modern",
    connect: (options) => legacy.connect({ ...options, era: "modern" }),
  };
}
