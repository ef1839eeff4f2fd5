/** Resident memory of another process, from /proc/<pid>/status (Linux). */
import { readFileSync, writeFileSync } from 'node:fs';

/** `{ rss, hwm }` in bytes, or undefined once the process is gone. */
export function readMemory(pid) {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : NaN;
  };
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** Resets VmHWM to the current RSS (`echo 5 > /proc/<pid>/clear_refs`); false when not allowed. */
export function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
