/**
 * `onemodelcontext serve --http PORT --config FILE`: every server of an `mcpServers` (Claude
 * Desktop, Cursor) or `servers` (VS Code) file behind one Streamable HTTP endpoint at `/mcp`, both
 * eras, through a `ComposedServer`: tools and prompts named `{serverName}_{name}`. A stdio child
 * that dies is started again after a backoff (doubling from `--restart-delay`, at most 30 s, reset
 * once a start succeeded); stopping the gateway closes every child.
 * @module
 */
import { ComposedServer, type MountSource } from "onemodelcontext/compose";
import { serve } from "onemodelcontext/node";
import type { CliArgs } from "./args.ts";
import { EXIT } from "./args.ts";
import { readConfigNames } from "./config_file.ts";
import { gatewayHandler } from "./gateway.ts";
import { CLI_VERSION, resolveTarget, transportOf } from "./session.ts";
import { terminalText } from "./terminal_text.ts";

/** The first restart delay, and the longest. */
export const RESTART_DELAY = { first: 250, most: 30_000 } as const;

/** A mount name from a config entry name: the characters a mount name may not hold become `-`. */
export function mountNameOf(entry: string): string {
  return entry.replace(/[^A-Za-z0-9-]/g, "-").slice(0, 64);
}

/** Keeps one config entry mounted: mounts it, and mounts it again after a backoff when its connection ends. */
export class MountSupervisor {
  readonly name: string;
  readonly #composed: ComposedServer;
  readonly #connect: () => MountSource;
  readonly #log: (text: string) => void;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  /** Starts so far (the first included). */
  starts = 0;

  constructor(
    name: string,
    composed: ComposedServer,
    connect: () => MountSource,
    log: (text: string) => void,
  ) {
    this.name = name;
    this.#composed = composed;
    this.#connect = connect;
    this.#log = log;
  }

  /** Mounts the server; resolves once the first attempt succeeded or failed (a failure schedules the next). */
  async start(): Promise<boolean> {
    if (this.#stopped) return false;
    this.starts++;
    try {
      const mounted = await this.#composed.mount(this.name, this.#connect());
      if (this.#stopped) {
        await this.#composed.unmount(this.name);
        return false;
      }
      this.#attempt = 0;
      void mounted.client.closed.then(() => {
        if (this.#stopped || this.#composed.mounts.get(this.name) !== mounted) return;
        this.#log(`server ${this.name} ended; starting it again`);
        void this.#composed.unmount(this.name).then(() => this.#retry());
      });
      return true;
    } catch (error) {
      this.#log(
        `server ${this.name} did not start: ${error instanceof Error ? error.message : String(error)}`,
      );
      this.#retry();
      return false;
    }
  }

  #retry(): void {
    if (this.#stopped) return;
    const delay = Math.min(RESTART_DELAY.first * 2 ** this.#attempt++, RESTART_DELAY.most);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.start();
    }, delay);
  }

  /** No more restarts. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }
}

/** Runs the composing gateway until SIGINT or SIGTERM. */
export async function runComposeGateway(args: CliArgs): Promise<number> {
  const target = args.target as { kind: "config"; file: string };
  const http = args.http!;
  const log = (text: string): void => {
    if (!args.quiet) process.stderr.write(`${terminalText(text)}\n`);
  };
  let names: string[];
  try {
    names = readConfigNames(target.file);
  } catch (error) {
    process.stderr.write(`${terminalText(error instanceof Error ? error.message : String(error))}\n`);
    return EXIT.usage;
  }
  const composed = new ComposedServer({
    name: "onemodelcontext-gateway",
    version: CLI_VERSION,
    onReport: (error) => log(`gateway: ${error.message}`),
  });
  const supervisors: MountSupervisor[] = [];
  const used = new Set<string>();
  for (const entry of names) {
    let name = mountNameOf(entry);
    while (used.has(name)) name = `${name}-`;
    used.add(name);
    const resolved = resolveTarget({ ...args.target, server: entry } as never);
    supervisors.push(new MountSupervisor(name, composed, () => transportOf(resolved) as MountSource, log));
  }
  const started = await Promise.all(supervisors.map((s) => s.start()));
  const handler = gatewayHandler(composed, http);
  let server;
  try {
    server = await serve(handler, { port: http.port, hostname: http.host });
  } catch (error) {
    process.stderr.write(
      `Cannot listen on ${terminalText(http.host)}:${http.port}: ${
        terminalText(error instanceof Error ? error.message : String(error))
      }\n`,
    );
    for (const s of supervisors) s.stop();
    await composed.close();
    return EXIT.connect;
  }
  const url = new URL("/mcp", server.url).href;
  log(
    `serving ${url} (${started.filter(Boolean).length} of ${supervisors.length} servers mounted: ${
      supervisors.map((s) => s.name).join(", ")
    })`,
  );
  if (args.json) process.stdout.write(`${JSON.stringify({ url })}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  log("stopping: closing HTTP and every server process");
  for (const s of supervisors) s.stop();
  await server.close();
  await composed.close();
  return EXIT.ok;
}
