/** What the figures were measured on. */
import { readFileSync } from "node:fs";
import os from "node:os";

export function machine() {
  let cpu = os.cpus()[0]?.model ?? "unknown";
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8").split("\n").find((l) => l.startsWith("model name"));
    if (line) cpu = line.split(":")[1].trim();
  } catch { /* not readable here: leave it out */ }
  return {
    cpu,
    cores: os.availableParallelism?.() ?? os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    load: os.loadavg().map((l) => l.toFixed(2)).join(" "),
  };
}
