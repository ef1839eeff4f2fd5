/** package.json and deno.json export the same subpaths from the same sources (api/check_exports.mjs, run by `npm run typecheck`). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportMismatches } from "../../api/check_exports.mjs";
import { ROOT } from "../fixtures/ours/build_dist.ts";

const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8"));
const entry = (source: string) => ({
  "onemodelcontext-source": `./${source}.ts`,
  types: `./dist/${source}.d.ts`,
  default: `./dist/${source}.js`,
});
const always = () => true;

describe("package.json and deno.json exports", () => {
  it("agree in this repository", () => {
    expect(exportMismatches(read("package.json"), read("deno.json"))).toEqual([]);
  });

  it("agree when both name the same subpaths and sources", () => {
    const pkg = { exports: { ".": entry("src/mod"), "./protocol": entry("src/protocol") } };
    const deno = { exports: { ".": "./src/mod.ts", "./protocol": "./src/protocol.ts" } };
    expect(exportMismatches(pkg, deno, always)).toEqual([]);
  });

  it("disagree on a subpath only one of them exports", () => {
    const pkg = { exports: { ".": entry("src/mod"), "./protocol": entry("src/protocol") } };
    const deno = { exports: { ".": "./src/mod.ts", "./redis": "./adapters/redis.ts" } };
    expect(exportMismatches(pkg, deno, always)).toEqual([
      "Subpath ./protocol is in package.json exports but not in deno.json",
      "Subpath ./redis is in deno.json exports but not in package.json",
    ]);
  });

  it("disagree on a subpath from two different sources, or a build that is not the source's", () => {
    const pkg = { exports: { ".": { ...entry("src/mod"), default: "./dist/src/other.js" } } };
    const deno = { exports: { ".": "./src/main.ts" } };
    expect(exportMismatches(pkg, deno, always)).toEqual([
      "Subpath . comes from ./src/mod.ts in package.json but from ./src/main.ts in deno.json",
      'Subpath . in package.json: "default" must be ./dist/src/mod.js, got "./dist/src/other.js"',
    ]);
  });

  it("requires the source condition first, and a source file that exists", () => {
    const { "onemodelcontext-source": source, ...rest } = entry("src/mod");
    const pkg = { exports: { ".": { ...rest, "onemodelcontext-source": source } } };
    const deno = { exports: { ".": "./src/mod.ts" } };
    expect(exportMismatches(pkg, deno, () => false)).toEqual([
      'Subpath . in package.json must list "onemodelcontext-source" first (conditions match in order), got ["types","default","onemodelcontext-source"]',
      "Subpath .: source ./src/mod.ts does not exist",
    ]);
  });
});
