/**
 * `spawnProcess` on `Deno.Command`: the `Deno` namespace (the global one or a given one) mapped onto
 * {@linkcode defineProcessAdapter}'s `ProcessRuntime`.
 * @module
 */
import {
  defineProcessAdapter,
  type ProcessAdapter,
  type ProcessRuntime,
  type ProcessTransport,
  type SpawnOptions,
} from "../_process/define_process_adapter.ts";
import { type DenoLike, globalDeno } from "./_deno_like.ts";
import { attempt } from "../_process/process_group.ts";

/** Options of {@linkcode spawnProcess}. Every timeout is in milliseconds. */
export interface SpawnProcessOptions extends SpawnOptions {
  /**
   * The `Deno` namespace to use. Default: the global one.
   * @default the global one
   */
  deno?: DenoLike;
}

/** True when reading `path` is granted already: never trigger a permission prompt. */
const mayRead = (d: DenoLike, path: string): boolean =>
  d.permissions?.querySync?.({ name: "read", path }).state === "granted";

function denoRuntime(d: DenoLike): ProcessRuntime {
  const [major, minor] = (d.version?.deno ?? "0.0").split(".").map(Number);
  const detached = major > 2 || (major === 2 && minor >= 5);
  const setsid = detached
    ? undefined
    : ["/usr/bin/setsid", "/bin/setsid"].find((path) =>
      mayRead(d, path) && attempt(() => d.statSync?.(path))
    );
  const windows = d.build.os === "windows";
  return {
    os: d.build.os,
    cwd: () => d.cwd(),
    spawn(command, args, options) {
      const wrap = !windows && !detached && setsid !== undefined;
      const env = options.env &&
        Object.fromEntries(
          Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined),
        );
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
      return {
        pid,
        stdin,
        stdout,
        stderr,
        exited,
        grouped: detached || wrap,
        kill: (signal) => child.kill(signal),
      };
    },
    kill: (pid, signal) => d.kill(pid, signal as string),
    killTree: (pid) =>
      void new d.Command("taskkill", {
        args: ["/T", "/F", "/PID", String(pid)],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn(),
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
export function spawnProcess(
  command: string,
  args: readonly string[] = [],
  options: SpawnProcessOptions = {},
): ProcessTransport {
  const d = options.deno ?? globalDeno();
  if (!adapters.has(d)) adapters.set(d, defineProcessAdapter(denoRuntime(d)));
  return adapters.get(d)!.spawnProcess(command, args, options);
}
