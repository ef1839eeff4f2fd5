/**
 * How to run a fixture on each runtime, and which modules a fixture that serves on `stdio()` imports
 * there: Deno and Bun load the TypeScript sources, Node (20 cannot run .ts) the built `dist/`.
 * @module
 */
import type { ProcessAdapterUnderTest } from "./process_suite.ts";

export type Runtime = "node" | "deno" | "bun";

const repo = new URL("../../", import.meta.url);
const url = (path: string): string => new URL(path, repo).href;

/** The runtimes' executables, from the repository's own `node_modules` (Node: the one on PATH). */
export const runtimeBin: Record<Runtime, string> = {
  node: "node",
  deno: new URL("node_modules/.bin/deno", repo).pathname,
  bun: new URL("node_modules/.bin/bun", repo).pathname,
};

/** The command line that runs `script` with `args` on `runtime`. */
export function runOn(runtime: Runtime, script: string, ...args: string[]): [string, string[]] {
  const bin = runtimeBin[runtime];
  return runtime === "deno" ? [bin, ["run", "-A", script, ...args]] : [bin, [script, ...args]];
}

/** The adapter module and `ContextServer` module a fixture on `runtime` imports. */
export function moduleUrls(runtime: Runtime): { adapter: string; contextServer: string } {
  return runtime === "node"
    ? { adapter: url("dist/adapters/node/mod.js"), contextServer: url("dist/src/server/context_server.js") }
    : { adapter: url(`adapters/${runtime}/mod.ts`), contextServer: url("src/server/context_server.ts") };
}

/** The runtime-neutral part of an adapter under test on `runtime`. */
export function processAdapterOn(
  runtime: Runtime,
  own: Pick<ProcessAdapterUnderTest, "spawnProcess" | "stdioExitsAfterDestroy" | "memoryBytes" | "env">,
): ProcessAdapterUnderTest {
  const { adapter, contextServer } = moduleUrls(runtime);
  return {
    runtime,
    run: (script, ...args) => runOn(runtime, script, ...args),
    stdioAdapterUrl: adapter,
    contextServerUrl: contextServer,
    ...own,
  };
}

/** Where the context-server fixture is. */
export const contextServerFixture = new URL("test/fixtures/processes/context_server.mjs", repo).pathname;
