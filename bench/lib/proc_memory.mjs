/** Resident memory of another process, from /proc/<pid>/status (Linux). */
import { readFileSync, writeFileSync } from "node:fs";

/** `{ rss, hwm }` in bytes, or undefined once the process is gone. */
export function readMemory(pid) {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const field = (name) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status);
    return match ? Number(match[1]) * 1024 : NaN;
  };
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

/** Resets VmHWM to the current RSS (`echo 5 > /proc/<pid>/clear_refs`); false when not allowed. */
export function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU time (ms, user + system) and read/write syscall counts of a process, or undefined once it is gone. */
export function readCpuAndIo(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cpuMs = (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime (fields 14, 15)
    const io = readFileSync(`/proc/${pid}/io`, "utf8");
    const count = (name) => Number(new RegExp(`^${name}: (\\d+)`, "m").exec(io)?.[1] ?? NaN);
    return { cpuMs, reads: count("syscr"), writes: count("syscw") };
  } catch {
    return undefined;
  }
}
