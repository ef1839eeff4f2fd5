#!/usr/bin/env node
// Builds dist/ (what the package's exports and bin point at) with `tsc -p tsconfig.build.json`.
// package.json runs it as `prepare` (after `npm install`/`npm ci` in a clone, and when npm installs the
// package from a git URL) and as `prepack --clean` (before `npm pack`/`npm publish`).
//
//   node scripts/build_dist.mjs            # prepare: build; type errors are shown but do not fail
//                                          # the install as long as every export and the bin were emitted
//   node scripts/build_dist.mjs --clean    # prepack: empty dist/ first (nothing stale is packed) and
//                                          # fail on any type error (nothing broken is packed)
//
// Type errors fail `npm run typecheck` and `npm test` anyway; `prepare` only must not make `npm ci`
// fail on a tree that still builds. Exit 1 when tsc cannot run or an export's file is missing; prepare
// without typescript installed (`npm ci --omit=dev` in a clone) only warns and leaves dist/ as it is.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const strict = process.argv.includes("--clean");

function fail(message) {
  console.error(`build_dist: ${message}`);
  process.exit(1);
}

let tsc;
try {
  tsc = join(
    dirname(createRequire(join(ROOT, "package.json")).resolve("typescript/package.json")),
    "bin",
    "tsc",
  );
} catch {
  // `npm ci --omit=dev` in a clone has no compiler: prepare leaves dist/ as it is rather than fail the install.
  if (!strict) {
    console.error(
      "build_dist: typescript (a devDependency) is not installed, so dist/ was not built; run `npm ci` with dev dependencies, then `npm run build`",
    );
    process.exit(0);
  }
  fail("typescript is not installed (a devDependency): run `npm ci` first");
}

if (strict) rmSync(join(ROOT, "dist"), { recursive: true, force: true });
const r = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
if (r.error) fail(`tsc did not run: ${r.error.message}`);

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const expected = [
  ...Object.values(pkg.exports).flatMap((target) => [target.types, target.default]),
  ...Object.values(typeof pkg.bin === "string" ? { bin: pkg.bin } : (pkg.bin ?? {})),
];
const missing = expected.filter((file) => !existsSync(join(ROOT, file)));
if (missing.length) fail(`tsc exited ${r.status} and did not emit ${missing.join(", ")}`);
if (r.status !== 0) {
  if (strict) fail(`tsc exited ${r.status}: not packing a package with type errors`);
  console.error(
    `build_dist: tsc reported type errors (above); dist/ was emitted, so the install goes on. Run \`npm run typecheck\`.`,
  );
}
