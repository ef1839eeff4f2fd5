// deno-lint-ignore-file no-explicit-any -- tests reach into loosely typed peer objects
/**
 * Drives the fault target (test/fixtures/faults/server.mjs) as a raw, possibly hostile, peer: bytes
 * in, lines out, nothing of our client library in between. Also reads the target's memory from /proc.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../fixtures/ours/build_dist.ts";

export const TARGET = join(ROOT, "test/fixtures/faults/server.mjs");
export const RUNTIMES = {
  node: [process.execPath],
  bun: [join(ROOT, "node_modules/.bin/bun")],
  deno: [join(ROOT, "node_modules/.bin/deno"), "run", "-A"],
} as const;
export type Runtime = keyof typeof RUNTIMES;

export const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "hostile-peer", version: "1" },
};

/** A modern request line for `method`. */
export function requestLine(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: ENVELOPE } }) + "\n";
}

/** The target's resident and peak resident memory in bytes (Linux /proc). */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) =>
    Number(/^(\w+):\s+(\d+) kB/m.exec(status.split("\n").find((l) => l.startsWith(key)) ?? "")?.[2] ?? 0) *
    1024;
  return { rss: kb("VmRSS:"), hwm: kb("VmHWM:") };
}

export interface Target {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  /** Writes and resolves when the pipe took it (waits on 'drain'). */
  write(data: string | Uint8Array): Promise<void>;
  /** Starts reading stdout (until then nothing is read: the pipe fills and the target's writes wait); again after `pauseReading`. */
  startReading(): void;
  /** Stops reading stdout (what the runtime already buffered, at most its high-water mark, is still delivered). */
  pauseReading(): void;
  /**
   * The target's counters and output queue state, asked for with SIGUSR2 and read from stderr (the
   * target runs with REPORT_CHANNEL=1): answers while stdout is not read.
   */
  channelStats(): Promise<Record<string, any>>;
  /** Lines read so far, parsed. */
  readonly messages: Record<string, any>[];
  /** Resolves when at least `n` messages have arrived. */
  waitForMessages(n: number, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  stderr(): string;
  kill(): void;
}

export function startTarget(runtime: Runtime = "node", env: Record<string, string> = {}): Target {
  const [command, ...args] = RUNTIMES[runtime];
  const child = spawn(command!, [...args, TARGET], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  let errLine = "";
  let statsWaiters: Array<(stats: Record<string, any>) => void> = [];
  child.stderr.on("data", (d) => {
    err = (err + String(d)).slice(-20_000);
    errLine += String(d);
    let nl: number;
    while ((nl = errLine.indexOf("\n")) !== -1) {
      const line = errLine.slice(0, nl);
      errLine = errLine.slice(nl + 1);
      if (!line.startsWith("channel ")) continue;
      const waiting = statsWaiters;
      statsWaiters = [];
      for (const resolve of waiting) resolve(JSON.parse(line.slice("channel ".length)));
    }
  });
  let reading = false;
  child.stdin.on("error", () => {});
  const messages: Record<string, any>[] = [];
  let waiters: Array<() => void> = [];
  let buffered = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, at: performance.now() }))
  );
  return {
    child,
    pid: child.pid!,
    write: (data) =>
      new Promise((resolve, reject) => {
        if (child.stdin.destroyed) return reject(new Error("stdin is closed"));
        if (child.stdin.write(data)) resolve();
        else child.stdin.once("drain", () => resolve());
      }),
    startReading() {
      if (reading) return void child.stdout.resume();
      reading = true;
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk: string) => {
        // Only the new chunk is searched for line ends: a 1 MiB line in 64 KiB chunks costs linear time.
        let start = 0;
        let nl: number;
        while ((nl = chunk.indexOf("\n", start)) !== -1) {
          messages.push(JSON.parse(buffered + chunk.slice(start, nl)));
          buffered = "";
          start = nl + 1;
        }
        buffered += chunk.slice(start);
        const w = waiters;
        waiters = [];
        for (const f of w) f();
      });
    },
    pauseReading: () => void child.stdout.pause(),
    channelStats: () =>
      new Promise((resolve, reject) => {
        statsWaiters.push(resolve);
        void exited.then(() => reject(new Error(`The target exited; stderr: ${err.slice(-2000)}`)));
        child.kill("SIGUSR2");
      }),
    messages,
    async waitForMessages(n, timeoutMs = 60_000) {
      const deadline = performance.now() + timeoutMs;
      while (messages.length < n) {
        if (performance.now() > deadline) {
          throw new Error(
            `Only ${messages.length} of ${n} messages within ${timeoutMs} ms; stderr: ${err.slice(-2000)}`,
          );
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    exited,
    stderr: () => err,
    kill: () => child.kill("SIGKILL"),
  };
}

/** Records figures for the README's reliability table; printed at the end of each suite. */
export const figures: Array<{ peer: string; measured: string; figure: string; bound: string }> = [];
export function record(peer: string, measured: string, figure: string, bound: string): void {
  figures.push({ peer, measured, figure, bound });
  console.log(`FIGURE | ${peer} | ${measured} | ${figure} | ${bound} |`);
}

export const MiB = 1024 * 1024;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
