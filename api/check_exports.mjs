#!/usr/bin/env node
/**
 * `npm run typecheck` runs this: package.json and deno.json must export the same subpaths, each from
 * the same source file. package.json names the source under the "onemodelcontext-source" condition
 * (what the type check of cli/ and examples/ resolves) and the build under "types"/"default", which
 * must be that source's emitted .d.ts/.js in dist/. Exits 1 with one line per mismatch.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Every mismatch between the two manifests, as sentences; empty when they agree. */
export function exportMismatches(pkg, deno, exists = (path) => existsSync(root + path)) {
  const problems = [];
  const npm = pkg.exports ?? {};
  const jsr = deno.exports ?? {};
  for (const subpath of Object.keys(npm)) {
    if (!(subpath in jsr)) {
      problems.push(`Subpath ${subpath} is in package.json exports but not in deno.json`);
    }
  }
  for (const subpath of Object.keys(jsr)) {
    if (!(subpath in npm)) {
      problems.push(`Subpath ${subpath} is in deno.json exports but not in package.json`);
    }
  }
  for (const [subpath, target] of Object.entries(npm)) {
    if (typeof target !== "object" || target === null) {
      problems.push(`Subpath ${subpath} in package.json must map conditions, got ${JSON.stringify(target)}`);
      continue;
    }
    const source = target["onemodelcontext-source"];
    const keys = Object.keys(target);
    if (keys[0] !== "onemodelcontext-source") {
      problems.push(
        `Subpath ${subpath} in package.json must list "onemodelcontext-source" first (conditions match in order), got ${
          JSON.stringify(keys)
        }`,
      );
    }
    if (typeof source !== "string" || !source.endsWith(".ts")) {
      problems.push(
        `Subpath ${subpath} in package.json has no .ts "onemodelcontext-source", got ${
          JSON.stringify(source)
        }`,
      );
      continue;
    }
    if (subpath in jsr && jsr[subpath] !== source) {
      problems.push(
        `Subpath ${subpath} comes from ${source} in package.json but from ${jsr[subpath]} in deno.json`,
      );
    }
    const built = `./dist/${source.slice(2, -3)}`;
    if (target.types !== `${built}.d.ts`) {
      problems.push(
        `Subpath ${subpath} in package.json: "types" must be ${built}.d.ts, got ${
          JSON.stringify(target.types)
        }`,
      );
    }
    if (target.default !== `${built}.js`) {
      problems.push(
        `Subpath ${subpath} in package.json: "default" must be ${built}.js, got ${
          JSON.stringify(target.default)
        }`,
      );
    }
    if (!exists(source.slice(2))) problems.push(`Subpath ${subpath}: source ${source} does not exist`);
  }
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const read = (file) => JSON.parse(readFileSync(root + file, "utf8"));
  const problems = exportMismatches(read("package.json"), read("deno.json"));
  for (const problem of problems) console.error(problem);
  if (problems.length) process.exit(1);
  console.log(
    `package.json and deno.json export the same ${
      Object.keys(read("package.json").exports).length
    } subpaths from the same sources`,
  );
}
