/**
 * Connecting the CLI to a server: spawn it (or the bundled demo), negotiate the era, report phases.
 * @module
 */
import { type ClientTransport, ContextClient, EraCache } from "onemodelcontext";
import { type ProcessConnection, spawnProcess } from "onemodelcontext/node";
import type { CliArgs } from "./args.ts";
import type { Progress } from "./progress.ts";

/** The command that runs the bundled demo server with this Node.js. */
export function demoServerCommand(): { command: string; args: string[] } {
  const script = new URL("../../examples/demo_server.mjs", import.meta.url);
  return { command: process.execPath, args: [decodeURIComponent(script.pathname)] };
}

/** The server's stderr tail, for a failure message: set by {@linkcode connect} as it spawns. */
export let lastServerStderr: () => string = () => "";

/** Connects to the server the arguments name, printing phase lines to stderr as it goes. */
export async function connect(args: CliArgs, progress: Progress): Promise<ContextClient> {
  const server = args.server ?? demoServerCommand();
  const label = args.server ? [server.command, ...server.args].join(" ") : "the bundled demo server";
  progress.phase(`spawning ${label}`);
  const spawned = spawnProcess(server.command, server.args, { stderr: "pipe" });
  const transport: ClientTransport = {
    canRespawn: true,
    cacheKey: spawned.cacheKey,
    open: async () => {
      const connection: ProcessConnection = await spawned.open();
      lastServerStderr = () => connection.stderrTail();
      return connection;
    },
  };
  progress.phase(`negotiating the protocol era (--era ${args.era})`, true);
  // A fresh cache per run: the CLI reports how this run decided, not what an earlier one learned.
  const client = await ContextClient.connect(transport, {
    era: args.era,
    eraCache: new EraCache(),
    clientInfo: { name: "onemodelcontext-cli", version: "0.1.0" },
  });
  const n = client.negotiation;
  progress.phase(`connected: ${client.era} era, protocol ${client.protocolVersion} (${n.outcome}, ${n.elapsedMs.toFixed(0)} ms)`);
  return client;
}

/** Options of {@linkcode listPages}. */
export interface ListPagesOptions {
  /** Pages read at most. */
  maxPages: number;
  /** Called when the list still had a next cursor after `maxPages` pages. */
  onCut?(): void;
}

/**
 * Yields the items of each page of a list method as it arrives, following `nextCursor`, so a caller
 * that prints and drops each page holds one page at a time however long the list is.
 */
export async function* listPages(client: ContextClient, method: string, key: string, options: ListPagesOptions): AsyncGenerator<unknown[]> {
  let cursor: string | undefined;
  for (let page = 0; page < options.maxPages; page++) {
    const result = (await client.request(method, cursor ? { cursor } : {})) as Record<string, unknown>;
    const list = result[key];
    yield Array.isArray(list) ? list : [];
    cursor = typeof result.nextCursor === "string" && result.nextCursor ? result.nextCursor : undefined;
    if (!cursor) return;
  }
  options.onCut?.();
}
