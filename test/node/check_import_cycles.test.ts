/** scripts/check_import_cycles.mjs: src/ has no import cycle, and the check catches one however it closes. */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/ours/build_dist.ts";

const SCRIPT = join(ROOT, "scripts/check_import_cycles.mjs");
const run = (root?: string) =>
  spawnSync(process.execPath, [SCRIPT, ...(root ? [root] : [])], { encoding: "utf8" });

let tree: string | undefined;
afterEach(() => tree && rmSync(tree, { recursive: true, force: true }));

/** A project with `files` (paths from its root). */
function project(files: Record<string, string>): string {
  tree = mkdtempSync(join(tmpdir(), "cycles-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
  return tree;
}

describe("check_import_cycles", () => {
  it("finds no cycle in this project", () => {
    const result = run();
    expect(result.stdout).toMatch(/^import cycles: 0 group\(s\) in src\//m);
    expect(result.status).toBe(0);
  });

  it("accepts a tree whose only back references are in comments and strings", () => {
    const root = project({
      "src/wire/a.ts":
        'export const a = 1;\n/** import { b } from "../stream/b.ts"; */\nexport const path = "../stream/b.ts";\n',
      "src/stream/b.ts":
        'import { a } from "../wire/a.ts";\nimport type {\n  C,\n} from "./c.ts";\nexport const b: C = a;\n',
      "src/stream/c.ts": 'export type C = number;\n// import { b } from "./b.ts";\n',
    });
    const result = run(root);
    expect(result.stdout.trim()).toBe("import cycles: 0 group(s) in src/ (3 files)");
    expect(result.status).toBe(0);
  });

  it("reports a cycle closed by an import type, one through three files and one through a re-export", () => {
    const root = project({
      "src/stream/channel.ts":
        'import { watch } from "./watch.ts";\nexport class Channel {}\nexport const w = watch;\n',
      "src/stream/watch.ts":
        'import type { Channel } from "./channel.ts";\nexport const watch = (c: Channel) => c;\n',
      "src/server/a.ts": 'import { b } from "./b.ts";\nexport const a = b;\n',
      "src/server/b.ts": 'import {\n  c,\n} from "./c.ts";\nexport const b = c;\n',
      "src/server/c.ts": 'import type { a } from "./a.ts";\nexport const c = 1;\nexport type A = typeof a;\n',
      "src/client/x.ts": 'export { y } from "./y.ts";\nexport const x = 1;\n',
      "src/client/y.ts": 'export type { x } from "./x.ts";\nexport const y = 2;\n',
    });
    const result = run(root);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(
      "import cycle among 2 files in src/: stream/channel.ts -> stream/watch.ts -> stream/channel.ts",
    );
    expect(result.stdout).toContain(
      "import cycle among 3 files in src/: server/a.ts -> server/b.ts -> server/c.ts -> server/a.ts",
    );
    expect(result.stdout).toContain(
      "import cycle among 2 files in src/: client/x.ts -> client/y.ts -> client/x.ts",
    );
    expect(result.stdout).toContain("import cycles: 3 group(s) in src/ (7 files)");
  });
});
