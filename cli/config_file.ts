/**
 * Reading a server entry from the JSON files other MCP hosts use: `mcpServers` (Claude Desktop,
 * Cursor, Windsurf) and `servers` (VS Code's `mcp.json`, also under `mcp.servers` in its settings).
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Target } from "./args.ts";
import { UsageError } from "./args.ts";

type Entry = Record<string, unknown>;

function strings(value: unknown, what: string): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${what} must be an object of strings`);
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string") {
      throw new UsageError(`${what}.${k} must be a string, got ${JSON.stringify(v)}`);
    }
    out[k] = v;
  }
  return out;
}

/** The stdio or HTTP target of entry `name` (or the only entry) of config `file`. */
export function readConfigTarget(
  file: string,
  name: string | undefined,
): Exclude<Target, { kind: "config" } | { kind: "demo" }> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the config file ${file}: ${(error as Error).message}`);
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`The config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const mcp = json?.mcp as Record<string, unknown> | undefined;
  const servers = (json?.mcpServers ?? json?.servers ?? mcp?.servers) as Record<string, Entry> | undefined;
  if (typeof servers !== "object" || servers === null) {
    throw new UsageError(`The config file ${file} has no "mcpServers" or "servers" object`);
  }
  const names = Object.keys(servers);
  if (name === undefined) {
    if (names.length !== 1) {
      throw new UsageError(
        `The config file ${file} has ${names.length} servers; pick one with --server NAME (${
          names.join(", ") || "none"
        })`,
      );
    }
    name = names[0]!;
  }
  const entry = servers[name];
  if (typeof entry !== "object" || entry === null) {
    throw new UsageError(
      `The config file ${file} has no server ${JSON.stringify(name)} (it has: ${names.join(", ") || "none"})`,
    );
  }
  const what = `Server ${JSON.stringify(name)} in ${file}`;
  const type = entry.type;
  if (typeof entry.url === "string" || type === "http" || type === "streamable-http" || type === "sse") {
    if (typeof entry.url !== "string") {
      throw new UsageError(`${what} has type ${JSON.stringify(type)} but no "url"`);
    }
    return { kind: "http", url: entry.url, headers: strings(entry.headers, `${what}: headers`) };
  }
  if (typeof entry.command !== "string" || !entry.command) {
    throw new UsageError(`${what} has neither "command" nor "url"`);
  }
  const args = entry.args ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) {
    throw new UsageError(`${what}: "args" must be an array of strings`);
  }
  const cwd = typeof entry.cwd === "string" ? resolve(dirname(resolve(file)), entry.cwd) : undefined;
  return {
    kind: "stdio",
    command: entry.command,
    args: args as string[],
    env: strings(entry.env, `${what}: env`),
    cwd,
  };
}

/** The names of every server entry of config `file`, in file order. */
export function readConfigNames(file: string): string[] {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`Cannot read the config file ${file}: ${(error as Error).message}`);
  }
  const mcp = json?.mcp as Record<string, unknown> | undefined;
  const servers = json?.mcpServers ?? json?.servers ?? mcp?.servers;
  if (typeof servers !== "object" || servers === null) {
    throw new UsageError(`The config file ${file} has no "mcpServers" or "servers" object`);
  }
  return Object.keys(servers);
}
