#!/usr/bin/env node
// @ts-check
/**
 * No import cycles in `src/`, checked: the graph of every file's static imports and re-exports,
 * `import type` included (a type-only cycle still ties the modules' layers together). Prints each
 * cycle group (a strongly connected set of files) with one cycle through it, and exits 1 on any.
 *
 *   node scripts/check_import_cycles.mjs [ROOT]     # ROOT: the project folder (default: this script's project)
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { tsFilesUnder, withoutComments } from "./source_text.mjs";

const ROOT = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
const SRC = join(ROOT, "src");

/** The relative specifiers of `import … from "x"`, `import "x"` and `export … from "x"`. */
function importsOf(/** @type {string} */ text) {
  const specifiers = [];
  const pattern = /(?:^|[;\n}])\s*(?:import|export)\s+(?:[^;"'`]*?\bfrom\s*)?["']([^"']+)["']/g;
  for (const match of withoutComments(text).matchAll(pattern)) {
    if (match[1].startsWith(".")) specifiers.push(match[1]);
  }
  return specifiers;
}

const files = tsFilesUnder(SRC);
/** @type {Map<string, string[]>} */
const graph = new Map();
for (const file of files) {
  const targets = importsOf(readFileSync(file, "utf8"))
    .map((specifier) => resolve(dirname(file), specifier))
    .filter((target) => existsSync(target) && target.startsWith(SRC));
  graph.set(file, [...new Set(targets)]);
}

// Tarjan's strongly connected components, iteratively (deep import chains would overflow recursion).
/** @type {Map<string, number>} */
const index = new Map();
/** @type {Map<string, number>} */
const low = new Map();
/** @type {string[]} */
const stack = [];
const onStack = new Set();
/** @type {string[][]} */
const groups = [];
let next = 0;
for (const root of files) {
  if (index.has(root)) continue;
  /** @type {[string, number][]} */
  const work = [[root, 0]];
  index.set(root, next), low.set(root, next++), stack.push(root), onStack.add(root);
  while (work.length > 0) {
    const frame = work[work.length - 1];
    const [node, at] = frame;
    const targets = graph.get(node) ?? [];
    if (at < targets.length) {
      frame[1]++;
      const target = targets[at];
      if (!index.has(target)) {
        index.set(target, next), low.set(target, next++), stack.push(target), onStack.add(target);
        work.push([target, 0]);
      } else if (onStack.has(target)) {
        low.set(
          node,
          Math.min(/** @type {number} */ (low.get(node)), /** @type {number} */ (index.get(target))),
        );
      }
      continue;
    }
    work.pop();
    if (work.length > 0) {
      const parent = work[work.length - 1][0];
      low.set(
        parent,
        Math.min(/** @type {number} */ (low.get(parent)), /** @type {number} */ (low.get(node))),
      );
    }
    if (low.get(node) === index.get(node)) {
      /** @type {string[]} */
      const group = [];
      let member;
      do {
        member = /** @type {string} */ (stack.pop());
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || (graph.get(node) ?? []).includes(node)) groups.push(group.sort());
    }
  }
}

/** One cycle inside `group`, from its first file back to it (breadth-first: the shortest). */
function cycleIn(/** @type {string[]} */ group) {
  const members = new Set(group);
  const start = group[0];
  /** @type {Map<string, string>} */
  const cameFrom = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = /** @type {string} */ (queue.shift());
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(/** @type {string} */ (cameFrom.get(path[0])));
        return [...path, start];
      }
      if (!cameFrom.has(target)) cameFrom.set(target, node), queue.push(target);
    }
  }
  return [start];
}

const name = (/** @type {string} */ file) => relative(SRC, file).replaceAll("\\", "/");
for (const group of groups) {
  console.log(`import cycle among ${group.length} files in src/: ${cycleIn(group).map(name).join(" -> ")}`);
  if (group.length > 2) console.log(`  group: ${group.map(name).join(", ")}`);
}
console.log(`import cycles: ${groups.length} group(s) in src/ (${files.length} files)`);
process.exitCode = groups.length > 0 ? 1 : 0;
