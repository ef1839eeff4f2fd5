/** scripts/check_adapters.mjs: the folder rule of adapters/ holds on this tree and catches each kind of breach. */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/ours/build_dist.ts";

const SCRIPT = join(ROOT, "scripts/check_adapters.mjs");
const run = (root?: string) =>
  spawnSync(process.execPath, [SCRIPT, ...(root ? [root] : [])], { encoding: "utf8" });

let tree: string | undefined;
afterEach(() => tree && rmSync(tree, { recursive: true, force: true }));

/** A project with `files` (paths from its root). */
function project(files: Record<string, string>): string {
  tree = mkdtempSync(join(tmpdir(), "adapters-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
  return tree;
}

describe("check_adapters", () => {
  it("finds no breach in this project", () => {
    const result = run();
    expect(result.stdout).toContain("adapters: 0 breaches");
    expect(result.status).toBe(0);
  });

  it("accepts runtime folders over shared _ glue, imported through their entries", () => {
    const root = project({
      "adapters/_process/kit.ts": "export const kit = 1;\n",
      "adapters/node/mod.ts": 'export { spawn } from "./_spawn.ts";\n',
      "adapters/node/_spawn.ts":
        'import { kit } from "../_process/kit.ts";\nimport { request } from "undici";\nexport const spawn = [kit, request];\n',
      "test/node.test.ts": 'import { kit } from "../adapters/_process/kit.ts";\nexport const t = kit;\n',
      "examples/app.ts": 'import { spawn } from "../adapters/node/mod.ts";\nexport const a = spawn;\n',
    });
    const result = run(root);
    expect(result.stdout.trim()).toBe("adapters: 0 breaches");
    expect(result.status).toBe(0);
  });

  it("reports a loose file, a missing entry, an unmarked file, cross-runtime imports, undici elsewhere and internals reached from outside", () => {
    const root = project({
      "adapters/loose.ts": "export const x = 1;\n",
      "adapters/deno/_serve.ts": 'import { a } from "../node/_spawn.ts";\nexport const s = a;\n',
      "adapters/node/mod.ts": 'export { a } from "./_spawn.ts";\n',
      "adapters/node/_spawn.ts": "export const a = 1;\n",
      "adapters/node/helper.ts": "export const h = 1;\n",
      "adapters/_http/glue.ts":
        'import { a } from "../node/mod.ts";\nimport { fetch } from "undici";\nexport const g = [a, fetch];\n',
      "src/mod.ts": '/** import { a } from "../adapters/node/_spawn.ts"; */\nexport const ok = 1;\n',
      "cli/main.ts": 'import { g } from "../adapters/_http/glue.ts";\nexport const m = g;\n',
    });
    const result = run(root);
    expect(result.status).toBe(1);
    expect(result.stdout.trim().split("\n")).toEqual([
      "adapters/deno/: a runtime folder without its entry mod.ts",
      "adapters/loose.ts: a file beside the runtime folders (move it into one, or a _ folder)",
      "adapters/node/helper.ts: not the entry (mod.ts), so its name must start with _",
      "adapters/_http/glue.ts: imports ../node/mod.ts: the shared glue imports no runtime folder",
      "adapters/_http/glue.ts: imports undici, allowed only in adapters/node/",
      "adapters/deno/_serve.ts: imports ../node/_spawn.ts: a runtime folder imports no other runtime",
      "cli/main.ts: imports ../adapters/_http/glue.ts, internal to adapters/ (import the entry mod.ts)",
      "adapters: 7 breaches",
    ]);
  });
});
