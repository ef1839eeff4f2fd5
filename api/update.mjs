#!/usr/bin/env node
/** `npm run api:update`: rewrites api/<entry>.d.ts from a fresh declaration build and prints the counts. */
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateSurface, ROOT } from "./surface.mjs";

const { entries, anys } = generateSurface();
const keep = new Set(entries.map((e) => e.file));
for (const name of readdirSync(join(ROOT, "api"))) {
  if (name.endsWith(".d.ts") && !keep.has(`api/${name}`)) rmSync(join(ROOT, "api", name)); // an entry that no longer exists
}
for (const entry of entries) {
  writeFileSync(join(ROOT, entry.file), entry.text);
  console.log(`${entry.file}: ${entry.values} values, ${entry.types} types`);
}
const total = anys.reduce((sum, a) => sum + a.count, 0);
console.log(
  `any in the emitted .d.ts of src/: ${total}${anys.map((a) => `\n  ${a.file}: ${a.count}`).join("")}`,
);
