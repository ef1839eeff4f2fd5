#!/usr/bin/env node
// Type-checks every TypeScript example in README.md and docs/*.md the way a user's project would compile it: against
// the package's built declarations (dist/**/*.d.ts, as `npm install onemodelcontext` delivers them,
// resolved through package.json "exports"), with `strict: true` and `skipLibCheck: false`, so an error
// in the package's own .d.ts fails too. Part of `npm run typecheck` and of run_all.sh's typecheck step.
//
//   node scripts/check_readme_examples.mjs [FILE.md ...]      # default: README.md, CONTRIBUTING.md, docs/*.md
//
// The rule, for whoever writes the README:
// - Every ```ts / ```typescript block is one module (its own file; top-level await allowed), checked as
//   it stands. Two files in one block do not work: give each file its own block.
// - Where it is checked follows from what it uses, unless a marker on the line before the fence says so:
//     imports `onemodelcontext/deno` or `npm:…`, or uses `Deno.`  → deno    (`deno check`, no @types/node)
//     imports `onemodelcontext/bun`, or uses `Bun.`               → bun     (@types/bun)
//     imports `onemodelcontext/node` or `node:…`, or `process.`  → node    (@types/node)
//     anything else                                              → node and browser
//   node    = a Node project: module/moduleResolution NodeNext, lib es2022, types ["node"];
//   browser = a bundled web project: moduleResolution bundler, lib ["dom", "es2022"], no @types/node.
// - `<!-- typecheck: node browser -->` (any of node, browser, deno, bun) on the line before the fence
//   overrides the choice; `<!-- typecheck: skip -->` or the info string ```ts ignore``` leaves a
//   fragment unchecked (say why in the text). Prefer complete examples: declare what a fragment needs
//   (`declare const client: ContextClient;`) rather than skipping it.
//
// - The ```ts examples in the doc comments of the modules under src/, adapters/ and testing/, public and
//   internal, are checked the same way; how they are found and what they may leave out:
//   scripts/doc_comment_examples.mjs.
//   A `.ts` argument checks that file's doc-comment examples.
//
// Exit status 0 when every checked block compiles, 1 otherwise (each error with its file and line).
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFERRED, docCommentExamples } from "./doc_comment_examples.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The doc-comment examples of the public and the internal modules, by source file (absolute path). */
const EXAMPLE_MODULES = docCommentExamples(ROOT);
const DOC_COMMENTS = new Map(EXAMPLE_MODULES.map((f) => [join(ROOT, f.file), f.blocks]));
/** The internal modules among them (absolute paths). */
const INTERNAL = new Set(EXAMPLE_MODULES.filter((f) => f.internal).map((f) => join(ROOT, f.file)));
/**
 * The files whose blocks are checked: the arguments, or the README, CONTRIBUTING, docs/ and the
 * public modules' doc comments.
 */
const DOCS = process.argv.length > 2 ? process.argv.slice(2).map((f) => resolve(f)) : [
  join(ROOT, "README.md"),
  join(ROOT, "CONTRIBUTING.md"),
  ...(existsSync(join(ROOT, "docs"))
    ? readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) =>
      join(ROOT, "docs", f)
    )
    : []),
  ...DOC_COMMENTS.keys(),
].filter((f) => existsSync(f));
const BIN = join(ROOT, "node_modules", ".bin");
const TARGETS = ["node", "browser", "deno", "bun"];
const THIRD_PARTY = /node_modules\/(@types\/node|bun-types|undici-types)\//;

/** The README's TypeScript blocks: `{ line, code, targets }`, `line` = first code line (1-based). */
export function extractBlocks(markdown) {
  const lines = markdown.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)\b(.*)$/.exec(lines[i]);
    if (!open) {
      const other = /^\s*(`{3,}|~{3,})/.exec(lines[i]);
      if (other) { // skip any other fenced block whole
        const fence = other[1];
        for (i++; i < lines.length && !lines[i].trim().startsWith(fence); i++);
      }
      continue;
    }
    const fence = open[2];
    const info = open[4].trim().split(/\s+/).filter(Boolean);
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end].trim().startsWith(fence)) end++;
    const code = lines.slice(start, end).join("\n");
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === "") before--;
    const marker = before >= 0 ? /^<!--\s*typecheck:\s*([a-z ]+?)\s*-->$/.exec(lines[before].trim()) : null;
    let targets;
    if (info.includes("ignore")) targets = [];
    else if (marker) {
      const words = marker[1].split(/\s+/);
      if (words.includes("skip")) targets = [];
      else {
        const unknown = words.filter((w) => !TARGETS.includes(w));
        if (unknown.length) {
          throw new Error(
            `README line ${before + 1}: unknown typecheck target ${unknown.join(", ")} (targets: ${
              TARGETS.join(", ")
            }, skip)`,
          );
        }
        targets = words;
      }
    } else targets = autoTargets(code);
    blocks.push({ line: start + 1, code, targets });
    i = end;
  }
  return blocks;
}

function autoTargets(code) {
  if (/["']npm:|["']onemodelcontext\/deno["']|\bDeno\./.test(code)) return ["deno"];
  if (/["']onemodelcontext\/bun["']|\bBun\./.test(code)) return ["bun"];
  if (/["']onemodelcontext\/node["']|["']node:|\bprocess\./.test(code)) return ["node"];
  return ["node", "browser"];
}

/**
 * A module that imports every entry point `target` can load (and uses one value of each), so that the
 * whole public .d.ts is checked for that consumer even where no README block imports it.
 */
function entryPointsBlock(target, subpaths) {
  const wanted = subpaths.filter((s) => {
    if (s === "./deno") return target === "deno";
    if (s === "./bun") return target === "bun";
    if (s === "./node") return target !== "browser";
    return true;
  });
  const prefix = target === "deno" ? "npm:" : "";
  const code = wanted.map((s, i) =>
    `import * as entry${i} from "${prefix}onemodelcontext${s === "." ? "" : s.slice(1)}";`
  );
  code.push(
    `export const exported: number = ${wanted.map((_s, i) => `Object.keys(entry${i}).length`).join(" + ")};`,
  );
  return { line: 0, code: code.join("\n"), targets: [target], entries: true };
}

function run(command, args, cwd) {
  const r = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 300_000,
  });
  if (r.error) throw new Error(`${command} did not run: ${r.error.message}`);
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

function link(target, path) {
  if (existsSync(path)) return; // linked for an earlier block
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path, "dir");
}

/** The package as it would be installed: package.json and a fresh build in `dir` (built once per run). */
function buildPackage(dir) {
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, "package.json"), join(dir, "package.json"));
  const build = run(join(BIN, "tsc"), [
    "-p",
    join(ROOT, "tsconfig.build.json"),
    "--outDir",
    join(dir, "dist"),
  ], ROOT);
  if (!existsSync(join(dir, "dist", "src", "mod.d.ts"))) {
    throw new Error(`The declaration build failed:\n${build.output}`);
  }
}

/** A consumer project in `dir`: a copy of the built package in node_modules/onemodelcontext, and its dependencies. */
function installPackage(dir, built) {
  cpSync(built, join(dir, "node_modules", "onemodelcontext"), { recursive: true });
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  // Optional peer dependencies too (jose, for onemodelcontext/auth/jwt): a user of that entry installs them.
  for (const dep of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]) {
    link(join(ROOT, "node_modules", dep), join(dir, "node_modules", dep));
  }
}

const COMMON = {
  strict: true,
  skipLibCheck: false,
  noEmit: true,
  target: "ES2022",
  isolatedModules: true,
  allowImportingTsExtensions: false,
  verbatimModuleSyntax: false,
};

const PROJECTS = {
  node: {
    compilerOptions: {
      ...COMMON,
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2022"],
      types: ["node"],
    },
    typePackages: ["@types/node", "undici-types"],
  },
  browser: {
    compilerOptions: {
      ...COMMON,
      module: "ESNext",
      moduleResolution: "Bundler",
      lib: ["DOM", "ES2022"],
      types: [],
    },
    typePackages: [],
  },
  bun: {
    compilerOptions: {
      ...COMMON,
      module: "ESNext",
      moduleResolution: "Bundler",
      lib: ["ESNext"],
      types: ["bun"],
    },
    typePackages: ["@types/bun", "bun-types", "@types/node", "undici-types"],
  },
};

/** Type-checks `blocks` for one target in a fresh project; returns the error lines mapped to README lines. */
function checkTarget(target, blocks, work, built) {
  const dir = join(work, target);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: `readme-${target}`, private: true, type: "module" }),
  );
  installPackage(dir, built);
  // Packages a README block imports besides ours (zod in the server example): a user installs them
  // beside onemodelcontext, so the consumer project gets them from this repository's node_modules.
  for (const block of blocks) {
    for (const [, specifier] of block.code.matchAll(/from\s+["']([^"'./][^"']*)["']/g)) {
      const pkg = specifier.startsWith("@")
        ? specifier.split("/").slice(0, 2).join("/")
        : specifier.split("/")[0];
      if (pkg === "onemodelcontext" || pkg.startsWith("node:") || pkg.startsWith("npm:")) continue;
      if (existsSync(join(ROOT, "node_modules", pkg))) {
        link(join(ROOT, "node_modules", pkg), join(dir, "node_modules", pkg));
      }
    }
  }
  const files = blocks.map((b) => ({
    file: b.entries ? "entry_points.ts" : `doc${b.doc}_line_${b.line}.ts`,
    block: b,
  }));
  for (const { file, block } of files) writeFileSync(join(dir, file), `${block.code}\n`);
  let result;
  if (target === "deno") {
    result = run(join(BIN, "deno"), [
      "check",
      "--no-config",
      "--node-modules-dir=manual",
      "--no-lock",
      ...files.map((f) => f.file),
    ], dir);
  } else {
    const project = PROJECTS[target];
    for (const pkg of project.typePackages) {
      if (existsSync(join(ROOT, "node_modules", pkg))) {
        link(join(ROOT, "node_modules", pkg), join(dir, "node_modules", pkg));
      }
    }
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: project.compilerOptions, files: files.map((f) => f.file) }, null, 2),
    );
    result = run(join(BIN, "tsc"), ["-p", "tsconfig.json", "--pretty", "false"], dir);
  }
  // deno-lint-ignore no-control-regex
  const clean = result.output.replace(/\x1b\[[0-9;]*m/g, "").replace(/\n\s*Stack backtrace:[\s\S]*$/, "");
  // Map `docD_line_N.ts(L,C)` / `docD_line_N.ts:L:C` to line N + L - 1 of Markdown file D.
  const mapped = clean.replace(
    /(?:file:\/\/\S*\/)?doc(\d+)_line_(\d+)\.ts(?:\((\d+),(\d+)\)|:(\d+):(\d+))/g,
    (_m, doc, start, l1, c1, l2, c2) => {
      const line = Number(start) + Number(l1 ?? l2) - 1;
      return `${relative(ROOT, DOCS[Number(doc)])}:${line}:${c1 ?? c2}`;
    },
  ).replaceAll(`${dir}/`, "");
  const errors = mapped.split("\n").filter((l) => /error TS\d{4}|TS\d{4} \[ERROR\]/.test(l));
  // @types/bun 1.4 expects a newer @types/node than the 20.x this repository pins for its Node 20 build:
  // those two disagree in their own files. Such errors are shown, not counted; every other one counts.
  const thirdParty = target === "bun" ? errors.filter((l) => THIRD_PARTY.test(l)) : [];
  const counted = errors.filter((l) => !thirdParty.includes(l));
  const ok = result.status === 0 || (counted.length === 0 && thirdParty.length > 0);
  const output = ok && thirdParty.length
    ? `${thirdParty.length} error(s) inside @types/node or bun-types (third-party typings that disagree), not counted`
    : mapped.trim();
  return { ok, output, errors: counted };
}

function main() {
  const blocks = DOCS.flatMap((file, doc) =>
    file.endsWith(".ts")
      ? (DOC_COMMENTS.get(file) ?? []).map((block) => ({
        ...block,
        targets: block.targets ?? autoTargets(block.code),
        doc,
      }))
      : extractBlocks(readFileSync(file, "utf8")).map((block) => ({ ...block, doc }))
  );
  const work = mkdtempSync(join(tmpdir(), "onemodelcontext-readme-"));
  let failed = 0;
  let errorCount = 0;
  try {
    const sources = DOCS.filter((f) => f.endsWith(".ts"));
    if (sources.length) {
      const mine = blocks.filter((b) => DOCS[b.doc].endsWith(".ts"));
      const deferred = mine.filter((b) => b.deferred);
      const skipped = mine.filter((b) => b.targets.length === 0 && !b.deferred);
      const internal = mine.filter((b) => INTERNAL.has(DOCS[b.doc]));
      const modules = new Set(sources.filter((f) => INTERNAL.has(f)));
      console.log(
        `doc comments of ${sources.length} modules (${modules.size} internal): ${mine.length} TypeScript examples (${internal.length} in internal modules), ${skipped.length} marked ignore${
          skipped.length
            ? ` (${skipped.map((b) => `${relative(ROOT, DOCS[b.doc])}:${b.line}`).join(", ")})`
            : ""
        }${DEFERRED.length ? `, ${deferred.length} not checked yet (under ${DEFERRED.join(", ")})` : ""}`,
      );
    }
    for (const [doc, file] of DOCS.entries()) {
      if (file.endsWith(".ts")) continue;
      const mine = blocks.filter((b) => b.doc === doc);
      const skipped = mine.filter((b) => b.targets.length === 0);
      console.log(
        `${relative(ROOT, file)}: ${mine.length} TypeScript blocks, ${skipped.length} marked skip${
          skipped.length ? ` (lines ${skipped.map((b) => b.line).join(", ")})` : ""
        }`,
      );
    }
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const built = join(work, "package");
    buildPackage(built);
    for (const target of TARGETS) {
      const mine = [
        ...blocks.filter((b) => b.targets.includes(target)),
        entryPointsBlock(target, Object.keys(pkg.exports)),
      ];
      if (mine.length === 0) continue;
      const r = checkTarget(target, mine, work, built);
      const what = mine.map((b) =>
        b.entries ? "every entry point" : `${relative(ROOT, DOCS[b.doc])}:${b.line}`
      ).join(", ");
      console.log(`  ${target.padEnd(8)} ${r.ok ? "ok  " : "FAIL"} ${what}`);
      if (!r.ok) {
        failed++;
        errorCount += Math.max(1, r.errors.length);
      }
      if (!r.ok || r.output.includes("not counted")) {
        console.log(r.output.split("\n").map((l) => `    ${l}`).join("\n"));
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(
    failed
      ? `README examples: ${errorCount} type errors in ${failed} target(s)`
      : `README examples: every block of ${DOCS.length} files (Markdown and doc comments) compiles`,
  );
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
