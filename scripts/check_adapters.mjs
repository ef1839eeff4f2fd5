#!/usr/bin/env node
// @ts-check
/**
 * The folder rule of `adapters/`, checked (CONTRIBUTING.md, "Where things live"):
 *
 * - one folder per runtime (`node/`, `deno/`, …), whose entry is `mod.ts`; every other file or folder
 *   in `adapters/` starts with `_` (internal): the shared glue (`_process/`, `_http/`, `_stdio/`) and
 *   the files behind each entry;
 * - a runtime folder imports no other runtime folder; the shared glue imports no runtime folder;
 * - an internal module is imported only from `adapters/` (a runtime's `_` files only from its own
 *   folder) and from the tests (`test/`, `bench/`), never from `src/`, `cli/`, `testing/` or `examples/`;
 * - `undici` is imported only under `adapters/node/`.
 *
 * Prints one line per breach and exits 1 on any.
 *
 *   node scripts/check_adapters.mjs [ROOT]     # ROOT: the project folder (default: this script's project)
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
const ADAPTERS = join(ROOT, "adapters");
/** Folders whose code may not reach into adapters/ internals (tests and benchmarks may). */
const CONSUMERS = ["src", "cli", "testing", "examples"];

/** The entries of `dir`, by name (the report's order does not depend on the file system). */
const entries = (/** @type {string} */ dir) =>
  readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** @param {string} dir @returns {string[]} */
function walk(dir) {
  if (!existsSync(dir)) return [];
  return entries(dir).flatMap((entry) =>
    entry.isDirectory()
      ? entry.name === "node_modules" ? [] : walk(join(dir, entry.name))
      : /\.(m?[jt]s)$/.test(entry.name) && !entry.name.endsWith(".d.ts")
      ? [join(dir, entry.name)]
      : []
  );
}

/** Relative and bare specifiers of a file's static and dynamic imports and re-exports, comments left out. */
function specifiers(/** @type {string} */ file) {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(
    /(^|[^:"'`\\])\/\/.*$/gm,
    "$1",
  );
  return [...text.matchAll(/(?:^|[\s;])(?:import|export)\b[^;'"]*?from\s*["']([^"']+)["']/g)]
    .concat([...text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)])
    .concat([...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm)])
    .map((m) => m[1]);
}

/** `adapters/`-relative path segments of `file`, or undefined outside adapters/. */
function inAdapters(/** @type {string} */ file) {
  const rel = relative(ADAPTERS, file).replaceAll("\\", "/");
  return rel.startsWith("..") ? undefined : rel.split("/");
}

const internal = (/** @type {string[]} */ segments) => segments.some((s) => s.startsWith("_"));
const breaches = [];
const show = (/** @type {string} */ file) => relative(ROOT, file).replaceAll("\\", "/");

// The shape: runtime folders with a mod.ts, everything else marked.
for (const entry of existsSync(ADAPTERS) ? entries(ADAPTERS) : []) {
  if (entry.name.startsWith("_")) continue;
  if (!entry.isDirectory()) {
    breaches.push(
      `adapters/${entry.name}: a file beside the runtime folders (move it into one, or a _ folder)`,
    );
    continue;
  }
  if (!existsSync(join(ADAPTERS, entry.name, "mod.ts"))) {
    breaches.push(`adapters/${entry.name}/: a runtime folder without its entry mod.ts`);
  }
  for (const { name: file } of entries(join(ADAPTERS, entry.name))) {
    if (file !== "mod.ts" && !file.startsWith("_")) {
      breaches.push(`adapters/${entry.name}/${file}: not the entry (mod.ts), so its name must start with _`);
    }
  }
}

// Imports inside adapters/.
for (const file of walk(ADAPTERS)) {
  const from = /** @type {string[]} */ (inAdapters(file));
  const fromRuntime = from[0].startsWith("_") ? undefined : from[0];
  for (const spec of specifiers(file)) {
    if (spec === "undici" || spec.startsWith("undici/")) {
      if (fromRuntime !== "node") {
        breaches.push(`${show(file)}: imports undici, allowed only in adapters/node/`);
      }
      continue;
    }
    if (!spec.startsWith(".")) continue;
    const to = inAdapters(resolve(dirname(file), spec));
    if (!to || to.length < 2) continue;
    const toRuntime = to[0].startsWith("_") ? undefined : to[0];
    if (toRuntime && toRuntime !== fromRuntime) {
      breaches.push(
        fromRuntime
          ? `${show(file)}: imports ${spec}: a runtime folder imports no other runtime`
          : `${show(file)}: imports ${spec}: the shared glue imports no runtime folder`,
      );
    }
  }
}

// Imports of adapters/ internals from outside.
for (const folder of CONSUMERS) {
  for (const file of walk(join(ROOT, folder))) {
    for (const spec of specifiers(file)) {
      if (!spec.startsWith(".")) continue;
      const to = inAdapters(resolve(dirname(file), spec));
      if (to && internal(to)) {
        breaches.push(`${show(file)}: imports ${spec}, internal to adapters/ (import the entry mod.ts)`);
      }
    }
  }
}

for (const line of breaches) console.log(line);
console.log(`adapters: ${breaches.length} breach${breaches.length === 1 ? "" : "es"}`);
process.exitCode = breaches.length ? 1 : 0;
