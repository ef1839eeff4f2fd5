#!/usr/bin/env node
/**
 * CPU profile of the modern-era echo loop on both sides:
 *   node --cpu-prof --cpu-prof-dir=DIR bench/profile_modern.mjs [--era=modern] [--seconds=10] [--in-flight=64] [--dir=DIR]
 * The client runs in this process (profile it with --cpu-prof); the server child gets
 * --cpu-prof --cpu-prof-dir=DIR/server on its command line and writes its profile when it exits on stdin EOF.
 * Then summarise: node bench/profile_summary.mjs DIR/*.cpuprofile
 */
import { join } from "node:path";
import { ECHO_TEXT } from "./lib/payloads.mjs";
import { loadOurs } from "./lib/ours.mjs";

const option = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const era = option("era", "modern");
const seconds = Number(option("seconds", 10));
const inFlight = Number(option("in-flight", 64));
const dir = option("dir", "prof");
const { ContextClient, spawnProcess } = await loadOurs();
const server = new URL("./peers/ours_server.mjs", import.meta.url).pathname;
// Node 20 does not take --cpu-prof in NODE_OPTIONS: it goes on the child's command line.
const transport = spawnProcess(process.execPath, [
  "--cpu-prof",
  `--cpu-prof-dir=${join(dir, "server")}`,
  server,
], { stderr: "inherit" });
const client = await ContextClient.connect(transport, { era, eraCache: null });
let completed = 0;
const deadline = performance.now() + seconds * 1000;
await Promise.all(Array.from({ length: inFlight }, async () => {
  while (performance.now() < deadline) {
    await client.request("tools/call", { name: "echo", arguments: { text: ECHO_TEXT } });
    completed++;
  }
}));
process.stderr.write(`${era}: ${completed} round trips in ${seconds} s at ${inFlight} in flight\n`);
await client.close();
