/**
 * `onemodelcontext/deno`: spawned servers on `Deno.Command`, and `Deno.stdin`/`Deno.stdout` for servers.
 *
 * The close sequence, process groups and exit hook are {@linkcode defineProcessAdapter}'s. Process
 * groups: `detached: true` (Deno ≥ 2.5) calls `setsid()` in the child; older Deno runs the child
 * through `/usr/bin/setsid` or `/bin/setsid` when present, else only the server itself is signalled.
 * Needs `--allow-run` (and `--allow-read` for the `/proc` check that ignores zombies on Linux). An
 * `unload` listener SIGTERMs the groups of servers still running when this process exits. On Windows
 * both signal steps run `taskkill /T /F /PID <pid>`.
 * @module
 */
import type { TransportConnection } from "../src/rpc/transport.ts";
import { defineProcessAdapter, type ProcessAdapter, type ProcessRuntime, type ProcessTransport, type SpawnOptions } from "./process/define_process_adapter.ts";
import type { DenoLike } from "./deno_like.ts";
import { attempt } from "./process/process_group.ts";
import { stdioConnection } from "./stdio_connection.ts";
import { endOnSignals, type SignalRuntime } from "./end_on_signals.ts";

export type { ProcessTransport } from "./process/define_process_adapter.ts";
export type { ProcessConnection, StderrMode } from "./process/process_connection.ts";
export type { ExitStatus } from "./process/shutdown_process.ts";
export type { DenoChildProcessLike, DenoLike } from "./deno_like.ts";
export { serve, type FetchHandler, type HttpServer, type ServeOptions } from "./http/deno.ts";

/** Options of {@linkcode spawnProcess}. Every timeout is in milliseconds. */
export interface SpawnProcessOptions extends SpawnOptions {
  /** The `Deno` namespace to use. Default: the global one. */
  deno?: DenoLike;
}

const global = (): DenoLike => (globalThis as unknown as { Deno: DenoLike }).Deno;
/** True when reading `path` is granted already: never trigger a permission prompt. */
const mayRead = (d: DenoLike, path: string): boolean => d.permissions?.querySync?.({ name: "read", path }).state === "granted";

function denoRuntime(d: DenoLike): ProcessRuntime {
  const [major, minor] = (d.version?.deno ?? "0.0").split(".").map(Number);
  const detached = major > 2 || (major === 2 && minor >= 5);
  const setsid = detached ? undefined : ["/usr/bin/setsid", "/bin/setsid"].find((path) => mayRead(d, path) && attempt(() => d.statSync?.(path)));
  const windows = d.build.os === "windows";
  return {
    os: d.build.os,
    cwd: () => d.cwd(),
    spawn(command, args, options) {
      const wrap = !windows && !detached && setsid !== undefined;
      const env = options.env && Object.fromEntries(Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined));
      const child = new d.Command(wrap ? setsid : command, {
        args: wrap ? [command, ...args] : args,
        ...(env ? { clearEnv: true, env } : {}),
        ...(detached && !windows ? { detached: true } : {}),
        cwd: options.cwd,
        stdin: "piped",
        stdout: "piped",
        stderr: options.stderr === "inherit" ? "inherit" : "piped",
      }).spawn();
      const exited = child.status.then(
        ({ code, signal }) => ({ exitCode: signal ? null : code, signal }),
        () => ({ exitCode: null, signal: null }),
      );
      const { pid, stdin, stdout } = child;
      const stderr = options.stderr === "inherit" ? undefined : child.stderr;
      return { pid, stdin, stdout, stderr, exited, grouped: detached || wrap, kill: (signal) => child.kill(signal) };
    },
    kill: (pid, signal) => d.kill(pid, signal as string),
    killTree: (pid) => void new d.Command("taskkill", { args: ["/T", "/F", "/PID", String(pid)], stdin: "null", stdout: "null", stderr: "null" }).spawn(),
    onExit: (hook) => globalThis.addEventListener?.("unload", hook),
    proc: {
      list() {
        if (!mayRead(d, "/proc")) throw new Error("Cannot list /proc: no read permission was granted");
        return [...d.readDirSync!("/proc")].map((entry) => entry.name);
      },
      read: (path) => d.readTextFileSync!(path),
    },
  };
}

const adapters = new WeakMap<DenoLike, ProcessAdapter>();

/**
 * A respawnable transport that runs `command` with `args` as a server, talking over its stdin/stdout.
 *
 * @example
 * ```ts
 * import { spawnProcess } from "onemodelcontext/deno";
 * const client = await ContextClient.connect(spawnProcess("deno", ["run", "server.ts"]), { era: "auto" });
 * ```
 */
export function spawnProcess(command: string, args: readonly string[] = [], options: SpawnProcessOptions = {}): ProcessTransport {
  const d = options.deno ?? global();
  if (!adapters.has(d)) adapters.set(d, defineProcessAdapter(denoRuntime(d)));
  return adapters.get(d)!.spawnProcess(command, args, options);
}

/** Options of {@linkcode stdio}. */
export interface StdioOptions {
  /** The `Deno` namespace to use. Default: the global one. */
  deno?: DenoLike;
  /**
   * Signals that end input like an EOF instead of killing the process at once: running handlers
   * finish within the EOF bounds, their replies are written, then the process ends by the signal.
   * A second signal, or one after input already ended, ends it at once. Default `["SIGTERM"]` with
   * the global `Deno`, `[]` when `deno` is given; `[]` turns it off. Skipped where Deno cannot
   * listen to the signal (SIGTERM on Windows).
   */
  gracefulSignals?: readonly string[];
}

/** Deno's signal primitives, for {@linkcode endOnSignals}. */
function denoSignals(d: DenoLike): SignalRuntime {
  return {
    listen(signal, handler) {
      if (!d.addSignalListener) throw new Error("This Deno has no addSignalListener");
      d.addSignalListener(signal, handler);
    },
    unlisten: (signal, handler) => d.removeSignalListener?.(signal, handler),
    raise: (signal) => d.kill(d.pid!, signal),
  };
}

/**
 * `Deno.stdin` and `Deno.stdout` as a duplex, for a server. A write resolves once Deno wrote the bytes
 * to fd 1. Closing the writable leaves fd 1 open. Limitation (Deno 2.9.6): a write the OS is blocking
 * on (the client stopped reading) cannot be abandoned by `destroy()`; the client's close sequence
 * SIGTERMs such a server, and a server that must leave at once calls `Deno.exit()`. SIGTERM ends input
 * like an EOF, so a request in flight is still answered (see `gracefulSignals`).
 *
 * @example
 * ```ts
 * import { stdio } from "onemodelcontext/deno";
 * await server.serve(stdio());
 * ```
 */
export function stdio(options: StdioOptions = {}): TransportConnection {
  const d = options.deno ?? global();
  const output = d.stdout.writable.getWriter();
  const writable = new WritableStream<Uint8Array>(
    { write: (chunk) => output.write(chunk), close: () => output.ready, abort: (reason) => output.abort(reason) },
    { highWaterMark: 1 },
  );
  const connection = stdioConnection(d.stdin.readable.getReader(), writable, {
    destroy: (reason) => void output.abort(reason).catch(() => {}), // stdout may be gone already
    close: () => output.releaseLock(),
  });
  return endOnSignals(connection, options.gracefulSignals ?? (options.deno === undefined ? ["SIGTERM"] : []), denoSignals(d));
}
