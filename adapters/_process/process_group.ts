/**
 * Process groups: signalling a spawned server's whole group, the Linux `/proc` check that ignores
 * zombies, and the groups to SIGTERM when this process exits without closing its servers.
 * @module
 */
import type { GroupSignal } from "./shutdown_process.ts";

/** The synchronous file reads a `/proc` check needs; each runtime passes its own. */
export interface ProcReader {
  /** Entry names of `/proc`. */
  list(): Iterable<string>;
  /** Text of a file such as `/proc/123/stat`. */
  read(path: string): string;
}

/** Pids of the processes of group `pgid` that are alive and not zombies; undefined when `/proc` cannot be listed. */
export function liveGroupMembers(pgid: number, proc: ProcReader): number[] | undefined {
  let names: Iterable<string>;
  try {
    names = proc.list();
  } catch {
    return undefined; // no /proc (not Linux) or no permission: the caller falls back to kill(-pgid, 0)
  }
  const live: number[] = [];
  for (const name of names) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    try {
      const stat = proc.read(`/proc/${name}/stat`);
      // pid (comm) state ppid pgrp …: comm may hold spaces or parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") live.push(Number(name));
    } catch {
      // The process went away while we looked: it is not a live member.
    }
  }
  return live;
}

/**
 * Linux: whether a process of group `pgid` is alive and not a zombie. `kill(-pgid, 0)` also succeeds
 * for zombies no reaper has collected yet (common in containers whose init reaps slowly), which would
 * make the close sequence wait for them. Undefined when `/proc` cannot be listed.
 */
export function procGroupHasLiveMembers(pgid: number, proc: ProcReader): boolean | undefined {
  const live = liveGroupMembers(pgid, proc);
  return live === undefined ? undefined : live.length > 0;
}

/** What {@linkcode groupSignaller} needs of the runtime and of the child. */
export interface GroupSignalTarget {
  readonly pid: number;
  /** `"windows"`: taskkill the tree; `"linux"`: confirm a probe through `proc`. */
  readonly os: string;
  /** False when the child does not lead its own group: only the child itself is signalled. */
  readonly grouped: boolean;
  /** True once the child has been reaped. */
  reaped(): boolean;
  /** `kill(2)` on a pid or, negative, a group; signal 0 probes. Throws when nothing matches. */
  kill(pid: number, signal: GroupSignal): void;
  /** Signals the child itself. Throws when it is gone. */
  killChild(signal: "SIGTERM" | "SIGKILL"): void;
  /** Windows: ends the process tree of `pid`; throws when it could not. */
  killTree?(pid: number): void;
  proc?: ProcReader;
}

/** The `signal` of a process connection: the group on POSIX, the tree on Windows; never throws. */
export function groupSignaller(target: GroupSignalTarget): (signal: GroupSignal) => boolean {
  const { pid } = target;
  return (sig) => {
    if (target.os === "windows" || !target.grouped) {
      if (sig === 0) return !target.reaped();
      if (target.os === "windows" && attempt(() => target.killTree!(pid))) return true;
      return !target.reaped() && attempt(() => target.killChild(target.os === "windows" ? "SIGKILL" : sig));
    }
    if (attempt(() => target.kill(-pid, sig))) {
      if (sig !== 0 || target.os !== "linux" || !target.proc) return true;
      return procGroupHasLiveMembers(pid, target.proc) ?? true;
    }
    // ESRCH: no process of the group is left (or it never formed); try the leader itself.
    return sig !== 0 && !target.reaped() && attempt(() => target.killChild(sig));
  };
}

/** Runs `action`; false when it threw (a signal to a process that is gone). */
export function attempt(action: () => void): boolean {
  try {
    action();
    return true;
  } catch {
    return false;
  }
}

/**
 * Process groups of spawned servers still running, to SIGTERM when this process exits without closing
 * them. `install` registers the runtime's exit hook once; `kill` signals one group and never throws.
 */
export class GroupsAtExit {
  readonly #groups = new Set<number>();
  readonly #install: (onExit: () => void) => void;
  readonly #kill: (pgid: number) => void;
  #installed = false;

  constructor(install: (onExit: () => void) => void, kill: (pgid: number) => void) {
    this.#install = install;
    this.#kill = kill;
  }

  /** Remembers `pgid` until `exited` settles (the leader was reaped). */
  track(pgid: number, exited: Promise<unknown>): void {
    this.#groups.add(pgid);
    void exited.then(() => this.#groups.delete(pgid));
    if (this.#installed) return;
    this.#installed = true;
    this.#install(() => {
      for (const group of this.#groups) this.#kill(group);
    });
  }
}
