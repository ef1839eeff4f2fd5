/**
 * The HTTP pairs: each server is a spawned Node process (bench/http/*_server.mjs) that prints its
 * URL; each client runs in the benchmark process and offers call(tool, args) → text, close(), pid.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { MODERN_VERSION, toolCall } from '../lib/payloads.mjs';
import { within } from '../lib/stats.mjs';

const textOf = (result) => result.content[0].text;

/** Spawns `file` (in bench/http/) and resolves with `{ child, url }` once it printed its URL. */
export async function startServer(file, { env } = {}) {
  const child = spawn(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: child.stdout });
  const url = await within(30_000, `${file} start`, new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}) before printing its URL`)));
  }));
  lines.on('line', () => {});
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { child, url, stop: async () => { child.kill('SIGTERM'); await within(10_000, `${file} stop`, exited).catch(() => child.kill('SIGKILL')); } };
}

async function connectOurs(url, era) {
  const { ContextClient } = await import('onemodelcontext');
  const { httpTransport } = await import('onemodelcontext/node');
  const client = await ContextClient.connect(httpTransport(url), { era, eraCache: null });
  return { call: async (name, args) => textOf(await client.request('tools/call', { name, arguments: args })), close: () => client.close() };
}

async function connectSdk2(url) {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client({ name: 'bench', version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: MODERN_VERSION } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  if (client.getNegotiatedProtocolVersion() !== MODERN_VERSION) throw new Error(`SDK 2.4 negotiated ${client.getNegotiatedProtocolVersion()}`);
  return { call: async (name, args) => textOf(await client.callTool({ name, arguments: args })), close: () => client.close() };
}

/** The floor client: fetch POST of the JSON-RPC request, response.json(), the result's text. */
async function connectFloor(url) {
  let nextId = 1;
  return {
    async call(name, args) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(toolCall(nextId++, name, args)),
      });
      return textOf((await response.json()).result);
    },
    close: async () => {},
  };
}

export const HTTP_IMPLS = [
  { id: 'ours', label: 'onemodelcontext (modern)', server: 'ours_server.mjs', connect: (url) => connectOurs(url, 'modern') },
  { id: 'oursL', label: 'onemodelcontext (legacy)', server: 'ours_server.mjs', connect: (url) => connectOurs(url, 'legacy') },
  { id: 'sdk2', label: 'SDK 2.4.0 (modern)', server: 'sdk2_server.mjs', connect: (url) => connectSdk2(url) },
  { id: 'floor', label: 'node:http JSON floor', server: 'floor_server.mjs', connect: (url) => connectFloor(url) },
];
