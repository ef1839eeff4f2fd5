#!/usr/bin/env node
// @ts-check
/**
 * The layer rule of `src/`, checked: every file imports only web APIs, the runtime dependencies named
 * below, and folders on its own floor or below (LAYOUT.md); it never touches `node:` modules, the
 * `Deno`/`Bun`/`process` globals, or the host clock (`setTimeout`, `setInterval`, `Date.now`,
 * `AbortSignal.timeout`) outside the time provider. Prints one line per breach and exits 1 on any.
 *
 *   node scripts/check_layers.mjs [ROOT]     # ROOT: the project folder (default: this script's project)
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { tsFilesUnder, withoutComments } from "./source_text.mjs";

const ROOT = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
const SRC = join(ROOT, "src");

/**
 * The floors, bottom to top. A file may import its own folder and any folder on a lower floor; a
 * folder missing here is a breach until it is given a floor.
 */
const FLOORS = {
  wire: 0,
  stream: 1,
  schema: 1,
  rpc: 2,
  telemetry: 3,
  tasks: 3.5, // the tasks extension's store and engine, under server/
  server: 4,
  client: 4,
  compose: 5,
  http: 6,
  auth: 7,
  redis: 8, // above auth: RedisOAuthLock implements the auth layer's OAuthLock
  ".": 9, // src/mod.ts, src/protocol.ts: the entry points
};

/** Bare specifiers `src/` may import, by folder (`*`: anywhere). */
const PACKAGES = {
  "@cfworker/json-schema": ["schema"],
  "eventsource-parser": ["http"],
  "eventsource-parser/stream": ["http"],
  "oauth4webapi": ["auth"],
  "jose": ["auth"],
  "@opentelemetry/api": ["telemetry"],
};

/** Only the time provider may reach the host clock. */
const CLOCK_OWNER = "stream/time_provider.ts";

const FORBIDDEN_GLOBALS = [
  [/\bDeno\s*\./, "the Deno global"],
  [/\bBun\s*\./, "the Bun global"],
  [/(?<![.\w])process\s*\./, "the process global"],
  [/(?<![.\w])require\s*\(/, "require()"],
];
const CLOCK = [
  [/(?<![.\w])setTimeout\s*\(/, "setTimeout"],
  [/(?<![.\w])setInterval\s*\(/, "setInterval"],
  [/\bDate\.now\s*\(/, "Date.now"],
  [/\bAbortSignal\.timeout\s*\(/, "AbortSignal.timeout"],
];

/** Source without comments and string contents (template text included), so words there never count. */
function codeOnly(/** @type {string} */ text) {
  return withoutComments(text)
    .replace(/`(?:\\[\s\S]|[^`\\])*`/g, "``")
    .replace(/"(?:\\.|[^"\\\n])*"/g, '""')
    .replace(/'(?:\\.|[^'\\\n])*'/g, "''");
}

/** The folder of `src/` a file sits in (its first segment), "." for the entry points. */
function floorOf(/** @type {string} */ fileInSrc) {
  const first = fileInSrc.split("/")[0];
  return fileInSrc.includes("/") ? first : ".";
}

const breaches = [];
for (const file of tsFilesUnder(SRC)) {
  const rel = relative(SRC, file).replaceAll("\\", "/");
  const text = withoutComments(readFileSync(file, "utf8"));
  if (rel.startsWith("wire/protocol/v20")) continue; // generated types: no code
  const folder = floorOf(rel);
  const floor = FLOORS[folder];
  if (floor === undefined) {
    breaches.push(`src/${rel}: folder '${folder}' has no floor in scripts/check_layers.mjs`);
  }
  const specifiers = [...text.matchAll(/(?:^|[\s;])(?:import|export)\b[^;'"]*?from\s*["']([^"']+)["']/g)]
    .concat([...text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)])
    .concat([...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm)])
    .map((m) => m[1]);
  for (const spec of specifiers) {
    if (spec.startsWith(".")) {
      const target = relative(SRC, resolve(dirname(file), spec)).replaceAll("\\", "/");
      if (target.startsWith("..")) {
        breaches.push(`src/${rel}: imports ${spec}, outside src/`);
        continue;
      }
      const to = floorOf(target);
      const toFloor = FLOORS[to];
      if (floor !== undefined && toFloor !== undefined && to !== folder && toFloor >= floor) {
        breaches.push(
          `src/${rel}: imports ${spec} (src/${to}/, floor ${toFloor}) from floor ${floor} (src/${folder}/)`,
        );
      }
    } else if (spec.startsWith("node:")) {
      breaches.push(`src/${rel}: imports ${spec}: src/ uses web APIs only`);
    } else {
      const allowed = PACKAGES[spec];
      if (!allowed) breaches.push(`src/${rel}: imports the package '${spec}', not one src/ may use`);
      else if (!allowed.includes("*") && !allowed.includes(folder)) {
        breaches.push(`src/${rel}: imports '${spec}', allowed only in src/${allowed.join(", src/")}/`);
      }
    }
  }
  const code = codeOnly(text);
  for (const [pattern, what] of FORBIDDEN_GLOBALS) {
    if (pattern.test(code)) breaches.push(`src/${rel}: uses ${what}`);
  }
  if (rel !== CLOCK_OWNER) {
    for (const [pattern, what] of CLOCK) {
      if (pattern.test(code)) breaches.push(`src/${rel}: calls ${what}: use the injected TimeProvider`);
    }
  }
}

for (const line of breaches) console.log(line);
console.log(`layers: ${breaches.length} breach${breaches.length === 1 ? "" : "es"} in src/`);
process.exitCode = breaches.length ? 1 : 0;
