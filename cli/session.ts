/**
 * Connecting the CLI to a server: spawn it (or the bundled demo), negotiate the era, report phases.
 * @module
 */
import { type ClientTransport, ContextClient, EraCache, type ExchangeTransport } from "onemodelcontext";
import { withOAuth } from "onemodelcontext/auth";
import {
  envProxyFetch,
  httpTransport,
  type LoopbackRedirect,
  type ProcessConnection,
  spawnProcess,
  startLoopbackRedirect,
} from "onemodelcontext/node";
import type { CliArgs, Target } from "./args.ts";
import { readConfigTarget } from "./config_file.ts";
import type { Progress } from "./progress.ts";

/** The command that runs the bundled demo server with this Node.js. */
export function demoServerCommand(): { command: string; args: string[] } {
  const script = new URL("../../examples/demo_server.mjs", import.meta.url);
  return { command: process.execPath, args: [decodeURIComponent(script.pathname)] };
}

/** The pid of the server process this run spawned, if any: a second Ctrl-C SIGKILLs it. */
export let lastServerPid: number | undefined;

/** The server process ended during connect; the CLI does not start it a second time. */
export class ServerExitedDuringConnectError extends Error {
  override name = "ServerExitedDuringConnectError";
  readonly code = "process_exited";
  constructor(exit: string | undefined) {
    super(
      `${
        exit ?? "The server process ended"
      } during connect; it was not started again. A legacy server that exits on the server/discover probe works with --era legacy`,
    );
  }
}

/** The server's stderr tail, for a failure message: set by {@linkcode connect} as it spawns. */
export let lastServerStderr: () => string = () => "";

/** The target with a config entry read and the demo server resolved: a command or a URL. */
export function resolveTarget(target: Target): Exclude<Target, { kind: "config" } | { kind: "demo" }> {
  if (target.kind === "demo") return { kind: "stdio", ...demoServerCommand(), env: {} };
  if (target.kind !== "config") return target;
  const extra = target as Target & {
    env?: Record<string, string>;
    cwd?: string;
    headers?: Record<string, string>;
  };
  const entry = readConfigTarget(target.file, target.server);
  if (entry.kind === "http") return { ...entry, headers: { ...entry.headers, ...extra.headers } };
  return { ...entry, env: { ...entry.env, ...extra.env }, cwd: extra.cwd ?? entry.cwd };
}

/** The loopback redirect listener of this run, if OAuth is on: closed by {@linkcode closeOAuth}. */
let loopback: LoopbackRedirect | undefined;

/** Stops the OAuth loopback listener, if one was started. */
export async function closeOAuth(): Promise<void> {
  const listening = loopback;
  loopback = undefined;
  await listening?.close();
}

/**
 * A `fetch` that runs the OAuth flow when the server answers 401: a loopback listener on 127.0.0.1
 * takes the redirect, and the authorization URL is printed on stderr for the user to open.
 */
export async function oauthFetch(oauth: CliArgs["oauth"]): Promise<typeof fetch> {
  loopback ??= await startLoopbackRedirect({
    open: (url) =>
      void process.stderr.write(`Authorization needed: open this URL in a browser:\n${url.href}\n`),
  });
  const listening = loopback;
  // The proxy variables apply to the OAuth discovery and token requests too.
  const authFetch = withOAuth(envProxyFetch(), {
    redirectUri: listening.redirectUri,
    redirectTo: (url) => listening.redirectTo(url),
    ...(oauth.clientId !== undefined
      ? {
        client: {
          clientId: oauth.clientId,
          ...(oauth.clientSecret !== undefined ? { clientSecret: oauth.clientSecret } : {}),
        },
      }
      : {}),
    ...(oauth.scope !== undefined ? { scope: oauth.scope } : {}),
    clientMetadata: { client_name: "onemodelcontext-cli" },
  });
  return authFetch as typeof fetch;
}

/** The client transport of a resolved target. */
export function transportOf(
  target: Exclude<Target, { kind: "config" } | { kind: "demo" }>,
  timeout?: number,
  authFetch?: typeof fetch,
): ClientTransport | ExchangeTransport {
  if (target.kind === "http") {
    return httpTransport(target.url, {
      headers: target.headers,
      ...(timeout ? { requestTimeout: timeout } : {}),
      ...(authFetch ? { fetch: authFetch } : {}),
    });
  }
  const env = Object.keys(target.env).length ? { ...process.env, ...target.env } : undefined;
  const spawned = spawnProcess(target.command, target.args, { stderr: "pipe", env, cwd: target.cwd });
  let first: ProcessConnection | undefined;
  return {
    canRespawn: true,
    cacheKey: spawned.cacheKey,
    open: async () => {
      // The era negotiation starts a server again when the first one ended on the server/discover
      // probe; the CLI never does: a server that crashes at startup would run (and fail) twice.
      if (first) {
        // Its exit status, if it comes within a second (the stream may end before the exit is seen).
        let timer: number | undefined;
        const status = await Promise.race([
          first.exited,
          new Promise<undefined>((resolve) => (timer = setTimeout(resolve, 1_000))),
        ]);
        clearTimeout(timer);
        throw new ServerExitedDuringConnectError(
          status === undefined
            ? undefined
            : `The server process exited (${
              status.signal ? `signal ${status.signal}` : `exit code ${status.exitCode}`
            })`,
        );
      }
      const connection: ProcessConnection = await spawned.open();
      first = connection;
      lastServerPid = connection.pid;
      lastServerStderr = () => connection.stderrTail();
      return connection;
    },
  };
}

/** Connects to the server the arguments name, printing phase lines to stderr as it goes. */
export async function connect(args: CliArgs, progress: Progress): Promise<ContextClient> {
  const target = resolveTarget(args.target);
  const label = args.target.kind === "demo"
    ? "the bundled demo server"
    : target.kind === "http"
    ? target.url
    : [target.command, ...target.args].join(" ");
  progress.phase(target.kind === "http" ? `connecting to ${label}` : `spawning ${label}`);
  const authFetch = target.kind === "http" && args.oauth.enabled ? await oauthFetch(args.oauth) : undefined;
  const transport = transportOf(target, args.timeout, authFetch);
  progress.phase(`negotiating the protocol era (--era ${args.era})`, true);
  // A fresh cache per run: the CLI reports how this run decided, not what an earlier one learned.
  let client: ContextClient;
  const garbage = new NonJsonOutput();
  try {
    client = await ContextClient.connect(transport, {
      era: args.era,
      eraCache: new EraCache(),
      clientInfo: { name: "onemodelcontext-cli", version: CLI_VERSION },
      onReport: (error) => garbage.note(error),
      // The tasks extension: a long tool call answers a task that `call` follows (and `task` shows).
      capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
      // --timeout bounds the connect too: a server that never answers fails in that time, not 30 s.
      ...(args.timeout ? { connectTimeout: args.timeout, features: { requestTimeout: args.timeout } } : {}),
    });
  } catch (error) {
    throw garbage.explain(error);
  }
  progress.phase(
    `connected: ${client.era} era, protocol ${client.protocolVersion}; ${negotiationInWords(client)}`,
  );
  return client;
}

/** Characters of a server's non-JSON output quoted in a failure. */
export const NON_JSON_SAMPLE_CHARS = 120;

/**
 * The first line a server printed on stdout that is not JSON-RPC (a banner, a log line, HTML), kept
 * as a bounded sample so a failed connect can say why it never got an answer.
 */
export class NonJsonOutput {
  sample: string | undefined;
  count = 0;

  /** Takes one report of the connection; keeps the first unparsable line. */
  note(error: Error): void {
    const e = error as { code?: unknown; line?: unknown };
    if (e.code !== "parse" && e.code !== "invalid_utf8") return;
    this.count++;
    this.sample ??= typeof e.line === "string"
      ? e.line.slice(0, NON_JSON_SAMPLE_CHARS)
      : "(bytes that are not UTF-8)";
  }

  /** `error`, with what the server printed instead of JSON-RPC when it printed anything. */
  explain(error: unknown): unknown {
    if (this.sample === undefined || !(error instanceof Error)) return error;
    const more = this.count > 1 ? ` (and ${this.count - 1} more such line${this.count > 2 ? "s" : ""})` : "";
    error.message += `; the server printed output that is not JSON-RPC on stdout, e.g. ${
      JSON.stringify(this.sample)
    }${more}: its logs belong on stderr`;
    return error;
  }
}

/** The CLI's version (the package's). */
export const CLI_VERSION = "0.1.0";

/** How the era was decided, in plain words. */
export function negotiationInWords(client: ContextClient): string {
  const n = client.negotiation;
  const era = `${client.era} era, ${client.protocolVersion}`;
  const ms = `${n.elapsedMs.toFixed(0)} ms`;
  const words: Record<string, string> = {
    discovered_modern: `the server answered \`server/discover\`: ${era}`,
    reprobed_modern:
      `the server asked for another version on \`server/discover\` and then answered it: ${era}`,
    legacy_only_versions: `the server offers only legacy versions on \`server/discover\`: ${era}`,
    definitive_rejection:
      `the server answered \`initialize\` but not \`server/discover\` (method unknown): ${era}`,
    fallback_rpc_error: `the server answered \`initialize\` but \`server/discover\` with an error: ${era}`,
    fallback_malformed:
      `the server answered \`server/discover\` with something that is not a discover result, then \`initialize\`: ${era}`,
    fallback_no_shared_version:
      `the server shares no modern version with this client, so \`initialize\`: ${era}`,
    fallback_silence:
      `the server did not answer \`server/discover\` in time but answered \`initialize\`: ${era}`,
    fallback_respawned:
      `the server exited on \`server/discover\`; started again, it answered \`initialize\`: ${era}`,
    cached_modern: `remembered as modern and confirmed by \`server/discover\`: ${era}`,
    cached_legacy: `remembered as legacy, \`initialize\` only: ${era}`,
    requested_legacy: `legacy era requested (--era legacy), \`initialize\` only: ${era}`,
  };
  return `${words[n.outcome] ?? `${n.outcome}: ${era}`} (${ms})`;
}

/** Options of {@linkcode listPages}. */
export interface ListPagesOptions {
  /** Pages read at most. */
  maxPages: number;
  /** Items yielded at most (a page that crosses it is cut); unbounded when absent. */
  maxItems?: number;
  /** Called when the list still had a next cursor (or more items) after `maxPages` pages or `maxItems` items; `bound` names which. */
  onCut?(bound: string): void;
}

/**
 * Yields the items of each page of a list method as it arrives, following `nextCursor`, so a caller
 * that prints and drops each page holds one page at a time however long the list is.
 */
export async function* listPages(
  client: ContextClient,
  method: string,
  key: string,
  options: ListPagesOptions,
): AsyncGenerator<unknown[]> {
  let cursor: string | undefined;
  let room = options.maxItems ?? Number.POSITIVE_INFINITY;
  for (let page = 0; page < options.maxPages; page++) {
    const result = (await client.request(method, cursor ? { cursor } : {})) as Record<string, unknown>;
    const list = result[key];
    const items = Array.isArray(list) ? list : [];
    cursor = typeof result.nextCursor === "string" && result.nextCursor ? result.nextCursor : undefined;
    if (items.length > room || (items.length === room && cursor)) {
      yield items.slice(0, room);
      options.onCut?.(`${options.maxItems} items`);
      return;
    }
    yield items;
    room -= items.length;
    if (!cursor) return;
  }
  options.onCut?.(`${options.maxPages} pages`);
}
