/** scripts/check_layers.mjs: the layer rule of src/ holds on this tree and catches each kind of breach. */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/ours/build_dist.ts";

const SCRIPT = join(ROOT, "scripts/check_layers.mjs");
const run = (root?: string) =>
  spawnSync(process.execPath, [SCRIPT, ...(root ? [root] : [])], { encoding: "utf8" });

let tree: string | undefined;
afterEach(() => tree && rmSync(tree, { recursive: true, force: true }));

function project(files: Record<string, string>): string {
  tree = mkdtempSync(join(tmpdir(), "layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, "src", path)), { recursive: true });
    writeFileSync(join(tree, "src", path), text);
  }
  return tree;
}

describe("check_layers", () => {
  it("finds no breach in this project's src/", () => {
    const result = run();
    expect(result.stdout).toContain("layers: 0 breaches in src/");
    expect(result.status).toBe(0);
  });

  it("reports an upward import, a node: module, a runtime global, the host clock and an unknown package", () => {
    const root = project({
      "wire/a.ts": 'import { X } from "../rpc/x.ts";\nexport const a = X;\n',
      "rpc/x.ts": 'import { readFileSync } from "node:fs";\nexport const X = readFileSync;\n',
      "stream/b.ts": "export const b = () => Deno.exit(1);\n",
      "server/c.ts": "export const c = () => setTimeout(() => {}, 1) ?? Date.now();\n",
      "client/d.ts": 'import leftpad from "left-pad";\nexport const d = leftpad;\n',
      "client/ok.ts": '/** import x from "node:fs"; setTimeout(f) */\nexport const ok = "setTimeout(1)";\n',
    });
    const result = run(root);
    expect(result.status).toBe(1);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^src\/wire\/a\.ts: imports \.\.\/rpc\/x\.ts \(src\/rpc\/, floor 2\) from floor 0/,
        ),
        "src/rpc/x.ts: imports node:fs: src/ uses web APIs only",
        "src/stream/b.ts: uses the Deno global",
        "src/server/c.ts: calls setTimeout: use the injected TimeProvider",
        "src/server/c.ts: calls Date.now: use the injected TimeProvider",
        "src/client/d.ts: imports the package 'left-pad', not one src/ may use",
      ]),
    );
    expect(lines.some((line) => line.startsWith("src/client/ok.ts"))).toBe(false);
    expect(lines.at(-1)).toBe("layers: 6 breaches in src/");
  });
});
