/**
 * Command-line arguments of `onemodelcontext`.
 * @module
 */

/** What the command line asked for. */
export interface CliArgs {
  command: "tour" | "inspect" | "call" | "demo" | "help";
  era: "auto" | "modern" | "legacy";
  json: boolean;
  tool?: string;
  toolArgs?: Record<string, unknown>;
  /** The server to spawn; undefined means the bundled demo server. */
  server?: { command: string; args: string[] };
}

/** A usage error: exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export const USAGE = `Usage:
  onemodelcontext                                   inspect the bundled demo server and call its echo tool
  onemodelcontext inspect [--era auto|modern|legacy] [--json] [-- COMMAND ARGS...]
  onemodelcontext call TOOL [JSON_ARGS] [--era ...] [--json] [-- COMMAND ARGS...]
  onemodelcontext demo                              serve the demo server on stdin/stdout

Without "-- COMMAND", inspect and call run against the bundled demo server.
Exit codes: 0 success, 2 usage error, 3 connection failure, 4 tool or request error.`;

/** Parses `argv` (without the node and script paths). Throws {@linkcode UsageError}. */
export function parseArgs(argv: string[]): CliArgs {
  const dashdash = argv.indexOf("--");
  const own = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const serverArgv = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  if (dashdash !== -1 && serverArgv.length === 0) throw new UsageError('Expected a server command after "--"');
  const result: CliArgs = { command: "tour", era: "auto", json: false };
  if (serverArgv.length) result.server = { command: serverArgv[0]!, args: serverArgv.slice(1) };
  const positional: string[] = [];
  for (let i = 0; i < own.length; i++) {
    const arg = own[i]!;
    if (arg === "--json") result.json = true;
    else if (arg === "--help" || arg === "-h") result.command = "help";
    else if (arg === "--era" || arg.startsWith("--era=")) {
      const value = arg === "--era" ? own[++i] : arg.slice("--era=".length);
      if (value !== "auto" && value !== "modern" && value !== "legacy") throw new UsageError(`Option --era must be auto, modern or legacy, got ${JSON.stringify(value)}`);
      result.era = value;
    } else if (arg.startsWith("-")) throw new UsageError(`Unknown option ${arg}`);
    else positional.push(arg);
  }
  if (result.command === "help") return result;
  const [command, ...rest] = positional;
  if (command === undefined) {
    if (result.server || result.json || result.era !== "auto") result.command = "inspect";
    return result;
  }
  if (command === "inspect" || command === "demo") {
    if (rest.length) throw new UsageError(`Unexpected argument ${JSON.stringify(rest[0])} after ${command}`);
    result.command = command;
    return result;
  }
  if (command === "call") {
    const [tool, json, extra] = rest;
    if (!tool) throw new UsageError("The call command needs a TOOL name");
    if (extra !== undefined) throw new UsageError(`Unexpected argument ${JSON.stringify(extra)}: pass the tool's arguments as one JSON object`);
    result.command = "call";
    result.tool = tool;
    if (json !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(json);
      } catch (error) {
        throw new UsageError(`JSON_ARGS is not valid JSON (${(error as Error).message}): ${json}`);
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError("JSON_ARGS must be a JSON object");
      result.toolArgs = parsed as Record<string, unknown>;
    }
    return result;
  }
  throw new UsageError(`Unknown command ${JSON.stringify(command)}`);
}
