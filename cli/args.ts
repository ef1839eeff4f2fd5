/**
 * Command-line arguments of `onemodelcontext`.
 * @module
 */

/** The server a command talks to. */
export type Target =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { kind: "http"; url: string; headers: Record<string, string> }
  | { kind: "config"; file: string; server?: string }
  | { kind: "demo" };

/** Every subcommand. */
export type Command =
  | "tour"
  | "inspect"
  | "call"
  | "read"
  | "prompt"
  | "complete"
  | "listen"
  | "task"
  | "ping"
  | "demo"
  | "serve"
  | "help"
  | "version";

/** What the command line asked for. */
export interface CliArgs {
  command: Command;
  era: "auto" | "modern" | "legacy";
  json: boolean;
  quiet: boolean;
  /** Milliseconds a request may go without an answer or progress; undefined: the library's default. */
  timeout?: number;
  target: Target;
  /** `call TOOL --help`: print the tool's schema instead of calling it. */
  toolHelp?: boolean;
  /** `call`'s tool, `prompt`'s name, `read`'s URI. */
  name?: string;
  /** `key=value` pairs as typed (coerced later, by the tool's input schema for `call`). */
  pairs: [string, string][];
  /** `--args JSON` or a JSON object after the tool name. */
  jsonArgs?: Record<string, unknown>;
  /** `task`: the action on the task named by `name` (its id). */
  taskAction?: "get" | "cancel" | "wait";
  /** `complete`: what is completed. */
  completion?: { ref: "prompt" | "resource"; name: string; argument: string; value: string };
  /** `listen`: which changes (all list kinds when none is given) and resource URIs. */
  listen: { tools: boolean; prompts: boolean; resources: boolean; uris: string[] };
  /** Where images, audio and binary resources are written. */
  outDir?: string;
  /** `serve --http PORT`. */
  http?: { port: number; host: string; maxSessions: number; idleSeconds: number };
  logLevel: string;
  /** OAuth for URL targets: on unless `--no-oauth`; runs only when the server answers 401. */
  oauth: { enabled: boolean; clientId?: string; clientSecret?: string; scope?: string };
}

/** A usage error: exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  connect: 3,
  request: 4,
  timeout: 5,
  interrupted: 130,
} as const;

export const USAGE = `Usage: onemodelcontext [COMMAND] [OPTIONS] [TARGET]

Commands:
  (none)                       inspect the bundled demo server and call its echo tool
  inspect                      era, version, capabilities, tools, resources, templates, prompts
  call TOOL [key=value...]     call a tool; values are coerced by the tool's input schema
  call TOOL --args JSON        ... or pass the arguments as one JSON object
  call TOOL --help             the tool's parameters and input schema
  read URI                     read a resource
  prompt NAME [key=value...]   get a prompt
  complete prompt NAME ARG [PARTIAL]     completions of a prompt argument
  complete resource TEMPLATE ARG [PARTIAL]  completions of a resource-template variable
  listen [--tools] [--prompts] [--resources] [--uri URI]...  print change events until Ctrl-C
  task get|cancel|wait TASK_ID the status (and progress) of a task, cancel it, or wait for its result
                               (2026-07-28 servers with the io.modelcontextprotocol/tasks extension)
  ping                         check that the server answers
  serve --http PORT [--host H] [--max-sessions N] [--idle SECONDS] -- COMMAND ARGS...
                               expose a stdio server over Streamable HTTP at /mcp, both eras: modern
                               requests share one process, each legacy session gets its own
                               (default 127.0.0.1, 32 sessions, 300 s idle); elicitation, sampling
                               and roots cross it (legacy: while a request is in flight)
  serve --http PORT --config FILE
                               every server of the file behind one endpoint: tools and prompts named
                               SERVER_NAME; a child that dies is started again with backoff
  demo                         serve the demo server on stdin/stdout

Targets (default: the bundled demo server):
  -- COMMAND ARGS...           a stdio server; with -e KEY=VALUE (repeatable) and --cwd DIR
  --url URL, -- URL            a Streamable HTTP endpoint; with --header "Name: value" (repeatable)
                               a 401 starts OAuth: the authorization URL is printed on stderr and a
                               listener on 127.0.0.1 takes the redirect; --client-id ID and
                               --client-secret S for a pre-registered client, --scope "A B",
                               --no-oauth to turn it off
  --config FILE [--server NAME]  an entry of an mcpServers (Claude Desktop, Cursor) or servers (VS Code) file

Options:
  --json                       machine-readable output on stdout (every command)
  --quiet, -q                  no phase lines, progress or server logs on stderr
  --timeout SECONDS            how long a request may go without an answer or progress (default 60)
  --era auto|modern|legacy     which protocol era to use (default auto)
  --log-level LEVEL            server log messages shown from this level (default info)
  --out DIR                    where images, audio and binary resources are written (default: a temp folder)
  --version, -V                the CLI's version
  --help, -h                   this text

Exit codes: 0 success, 1 unexpected failure, 2 usage error, 3 connection failure (the server could not
be started or reached, or closed), 4 the request or tool failed, 5 timeout, 130 interrupted (Ctrl-C).`;

const COMMANDS = new Set<string>([
  "inspect",
  "call",
  "read",
  "prompt",
  "complete",
  "listen",
  "task",
  "ping",
  "demo",
  "serve",
]);

function header(value: string): [string, string] {
  const colon = value.indexOf(":");
  if (colon <= 0) throw new UsageError(`Option --header needs "Name: value", got ${JSON.stringify(value)}`);
  return [value.slice(0, colon).trim(), value.slice(colon + 1).trim()];
}

function pair(value: string, option: string): [string, string] {
  const eq = value.indexOf("=");
  if (eq <= 0) throw new UsageError(`${option} needs KEY=VALUE, got ${JSON.stringify(value)}`);
  return [value.slice(0, eq), value.slice(eq + 1)];
}

function jsonObject(text: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON (${(error as Error).message}): ${text}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${what} must be a JSON object, got ${text}`);
  }
  return parsed as Record<string, unknown>;
}

/** Parses `argv` (without the node and script paths). Throws {@linkcode UsageError}. */
export function parseArgs(argv: string[]): CliArgs {
  const dashdash = argv.indexOf("--");
  const own = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const serverArgv = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  if (dashdash !== -1 && serverArgv.length === 0) {
    throw new UsageError('Expected a server command or URL after "--"');
  }
  const result: CliArgs = {
    command: "tour",
    era: "auto",
    json: false,
    quiet: false,
    target: { kind: "demo" },
    pairs: [],
    listen: { tools: false, prompts: false, resources: false, uris: [] },
    logLevel: "info",
    oauth: { enabled: true },
  };
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  let cwd: string | undefined;
  let url: string | undefined;
  let config: string | undefined;
  let serverName: string | undefined;
  let http: string | undefined;
  let hostOpt: string | undefined;
  let maxSessions: string | undefined;
  let idle: string | undefined;
  const positional: string[] = [];
  const value = (i: number, name: string): string => {
    const v = own[i];
    if (v === undefined) throw new UsageError(`Option ${name} needs a value`);
    return v;
  };
  for (let i = 0; i < own.length; i++) {
    let arg = own[i]!;
    let inline: string | undefined;
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq > 2) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    const take = (): string => inline ?? value(++i, arg);
    switch (arg) {
      case "--json":
        result.json = true;
        break;
      case "--quiet":
      case "-q":
        result.quiet = true;
        break;
      case "--help":
      case "-h":
        result.command = "help";
        break;
      case "--version":
      case "-V":
        result.command = "version";
        break;
      case "--era": {
        const era = take();
        if (era !== "auto" && era !== "modern" && era !== "legacy") {
          throw new UsageError(`Option --era must be auto, modern or legacy, got ${JSON.stringify(era)}`);
        }
        result.era = era;
        break;
      }
      case "--timeout": {
        const text = take();
        const seconds = Number(text);
        if (!(seconds > 0)) {
          throw new UsageError(
            `Option --timeout needs a positive number of seconds, got ${JSON.stringify(text)}`,
          );
        }
        result.timeout = seconds * 1000;
        break;
      }
      case "-e":
      case "--env": {
        const [k, v] = pair(take(), "Option -e");
        env[k] = v;
        break;
      }
      case "--cwd":
        cwd = take();
        break;
      case "--header":
      case "-H": {
        const [k, v] = header(take());
        headers[k] = v;
        break;
      }
      case "--url":
        url = take();
        break;
      case "--no-oauth":
        result.oauth.enabled = false;
        break;
      case "--client-id":
        result.oauth.clientId = take();
        break;
      case "--client-secret":
        result.oauth.clientSecret = take();
        break;
      case "--scope":
        result.oauth.scope = take();
        break;
      case "--config":
        config = take();
        break;
      case "--server":
        serverName = take();
        break;
      case "--args":
        result.jsonArgs = jsonObject(take(), "Option --args");
        break;
      case "--out":
        result.outDir = take();
        break;
      case "--log-level":
        result.logLevel = take();
        break;
      case "--http":
        http = take();
        break;
      case "--host":
        hostOpt = take();
        break;
      case "--max-sessions":
        maxSessions = take();
        break;
      case "--idle":
        idle = take();
        break;
      case "--tools":
        result.listen.tools = true;
        break;
      case "--prompts":
        result.listen.prompts = true;
        break;
      case "--resources":
        result.listen.resources = true;
        break;
      case "--uri":
        result.listen.uris.push(take());
        break;
      default:
        if (arg.startsWith("-")) throw new UsageError(`Unknown option ${arg}`);
        positional.push(own[i]!);
    }
  }
  // `call TOOL --help` asks for one tool's schema; `--help` anywhere else, for this text.
  const wantsToolHelp = result.command === "help" && positional[0] === "call" && positional[1] !== undefined;
  if (wantsToolHelp) result.command = "tour";
  if (result.command === "help" || result.command === "version") return result;

  // The target.
  const urlAfterDashes = serverArgv.length === 1 && /^https?:\/\//i.test(serverArgv[0]!)
    ? serverArgv[0]
    : undefined;
  const targets = [url ?? urlAfterDashes, config, serverArgv.length && !urlAfterDashes ? "--" : undefined]
    .filter((t) => t !== undefined);
  if (targets.length > 1) throw new UsageError("Give one target: -- COMMAND, a URL, or --config FILE");
  if (url ?? urlAfterDashes) {
    const u = (url ?? urlAfterDashes)!;
    if (!/^https?:\/\//i.test(u)) {
      throw new UsageError(`The URL must start with http:// or https://, got ${JSON.stringify(u)}`);
    }
    result.target = { kind: "http", url: u, headers };
  } else if (config !== undefined) {
    result.target = { kind: "config", file: config, server: serverName };
  } else if (serverArgv.length) {
    result.target = { kind: "stdio", command: serverArgv[0]!, args: serverArgv.slice(1), env, cwd };
  }
  if (serverName !== undefined && config === undefined) {
    throw new UsageError("Option --server names an entry of --config FILE");
  }
  if (
    (Object.keys(env).length || cwd !== undefined) && result.target.kind !== "stdio" &&
    result.target.kind !== "config"
  ) throw new UsageError("Options -e and --cwd apply to a server command (-- COMMAND ARGS)");
  if (Object.keys(headers).length && result.target.kind !== "http" && result.target.kind !== "config") {
    throw new UsageError("Option --header applies to a URL target");
  }
  const oauthOptions = result.oauth.clientId !== undefined || result.oauth.clientSecret !== undefined ||
    result.oauth.scope !== undefined;
  if (oauthOptions && result.target.kind !== "http" && result.target.kind !== "config") {
    throw new UsageError("Options --client-id, --client-secret and --scope apply to a URL target");
  }
  if (result.oauth.clientSecret !== undefined && result.oauth.clientId === undefined) {
    throw new UsageError("Option --client-secret needs --client-id");
  }
  if (result.target.kind === "config") Object.assign(result.target, { env, cwd, headers });

  const [command, ...rest] = positional;
  if (command === undefined) {
    if (result.target.kind !== "demo" || result.json || result.era !== "auto") result.command = "inspect";
    return result;
  }
  if (!COMMANDS.has(command)) throw new UsageError(`Unknown command ${JSON.stringify(command)}`);
  result.command = command as Command;
  const none = (): void => {
    if (rest.length) throw new UsageError(`Unexpected argument ${JSON.stringify(rest[0])} after ${command}`);
  };
  switch (command) {
    case "inspect":
    case "demo":
    case "ping":
    case "listen":
      none();
      break;
    case "serve": {
      none();
      if (http === undefined) throw new UsageError("The serve command needs --http PORT");
      const port = Number(http);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new UsageError(`Option --http needs a port from 0 to 65535, got ${JSON.stringify(http)}`);
      }
      if (result.target.kind !== "stdio" && result.target.kind !== "config") {
        throw new UsageError("The serve command needs a stdio server: -- COMMAND ARGS or --config FILE");
      }
      const max = Number(maxSessions ?? 32);
      if (!Number.isInteger(max) || max < 1) {
        throw new UsageError(
          `Option --max-sessions needs a positive integer, got ${JSON.stringify(maxSessions)}`,
        );
      }
      const idleSeconds = Number(idle ?? 300);
      if (!(idleSeconds > 0)) {
        throw new UsageError(`Option --idle needs a positive number of seconds, got ${JSON.stringify(idle)}`);
      }
      result.http = { port, host: hostOpt ?? "127.0.0.1", maxSessions: max, idleSeconds };
      break;
    }
    case "call":
    case "prompt": {
      const [name, ...more] = rest;
      if (!name) {
        throw new UsageError(`The ${command} command needs a ${command === "call" ? "TOOL" : "NAME"}`);
      }
      result.name = name;
      if (wantsToolHelp) result.toolHelp = true;
      for (const item of more) {
        if (command === "call" && item.trimStart().startsWith("{") && result.jsonArgs === undefined) {
          result.jsonArgs = jsonObject(item, "The JSON arguments");
        } else result.pairs.push(pair(item, "An argument"));
      }
      break;
    }
    case "task": {
      const [action, taskId, extra] = rest;
      if ((action !== "get" && action !== "cancel" && action !== "wait") || !taskId || extra !== undefined) {
        throw new UsageError("Usage: task get|cancel|wait TASK_ID");
      }
      result.taskAction = action;
      result.name = taskId;
      break;
    }
    case "read": {
      if (rest.length !== 1) throw new UsageError("The read command needs exactly one URI");
      result.name = rest[0];
      break;
    }
    case "complete": {
      const [ref, name, argument, partial = "", extra] = rest;
      if ((ref !== "prompt" && ref !== "resource") || !name || !argument || extra !== undefined) {
        throw new UsageError(
          "Usage: complete prompt NAME ARG [PARTIAL] or complete resource TEMPLATE ARG [PARTIAL]",
        );
      }
      result.completion = { ref, name, argument, value: partial };
      break;
    }
  }
  return result;
}
