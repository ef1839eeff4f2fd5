/** Running the built CLI in tests, and the everything server over HTTP for it to reach. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../fixtures/ours/build_dist.ts";

export const BIN = join(ROOT, "dist/cli/main.js");
export const EVERYTHING = join(ROOT, "examples/everything/server.mjs");
export const DEMO = join(ROOT, "examples/demo_server.mjs");
export const FIXTURES = join(ROOT, "test/node/fixtures/cli");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion. */
export function cli(...args: string[]): CliRun {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The CLI as a running child, with its output collected and a wait for a pattern. */
export class CliChild {
  readonly child: ChildProcess;
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;
  constructor(args: string[]) {
    this.child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    this.child.stdout!.setEncoding("utf8").on("data", (d: string) => (this.stdout += d));
    this.child.stderr!.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) =>
      this.child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : null)))
    );
  }
  /** Resolves once `stream` matches `pattern`; rejects if the CLI exits first. */
  async waitFor(stream: "stdout" | "stderr", pattern: RegExp): Promise<void> {
    while (!pattern.test(this[stream])) {
      const done = await Promise.race([
        this.exited.then(() => true),
        new Promise((r) => setTimeout(r, 25)).then(() => false),
      ]);
      if (done && !pattern.test(this[stream])) {
        throw new Error(`The CLI exited before ${pattern} on ${stream}:\n${this.stdout}\n${this.stderr}`);
      }
    }
  }
}

/** The everything server on an ephemeral port over HTTP; `url` once it listens. */
export function startHttpEverything(): Promise<{ url: string; stop(): Promise<void> }> {
  return startHttpServer([EVERYTHING, "--http", "0"]);
}

/** A Node script that prints "serving URL" on stderr once it listens. */
export async function startHttpServer(argv: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      err += d;
      const m = /serving (http:\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`The HTTP server exited (${code}): ${err}`)));
  });
  const exited = new Promise((r) => child.once("exit", r));
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** True while a process with `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
