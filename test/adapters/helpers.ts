/**
 * Shared bits of the Node process-adapter suites: where the runtimes and fixtures are, and a
 * `/proc` check for live members of a process group.
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const repo = fileURLToPath(new URL("../../", import.meta.url));
export const peer = fileURLToPath(new URL("../fixtures/processes/peer.mjs", import.meta.url));
export const denoBin = `${repo}node_modules/.bin/deno`;
export const bunBin = `${repo}node_modules/.bin/bun`;

/** Pids of processes in group `pgid` that are alive (zombies waiting for a reaper do not count). */
export function liveGroupMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …  — comm may hold spaces or parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    const pgrp = Number(fields[2]);
    if (pgrp === pgid && state !== "Z" && state !== "X") live.push(Number(name));
  }
  return live;
}

/** Resolves after `ms` (real time: these suites drive real processes). */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms until it holds or `ms` pass. */
export async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await sleep(20);
  }
  return true;
}
