#!/usr/bin/env node
/**
 * Top frames by self time of a .cpuprofile (node --cpu-prof): `node bench/profile_summary.mjs FILE [--top=25]`.
 * Frames are named function (file:line); files under dist/ and node: internals are shortened.
 */
import { readFileSync } from "node:fs";

const file = process.argv[2];
const top = Number(process.argv.find((a) => a.startsWith("--top="))?.slice(6) ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const deltas = profile.timeDeltas;
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  const dt = deltas[i] ?? 0;
  total += dt;
  const { functionName, url, lineNumber } = node.callFrame;
  const short = url.replace(/^.*\/(dist|node_modules)\//, "$1/").replace(/^file:\/\//, "");
  const key = `${functionName || "(anonymous)"} ${short ? `${short}:${lineNumber + 1}` : ""}`.trim();
  self.set(key, (self.get(key) ?? 0) + dt);
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
for (const [key, us] of rows) console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`);
