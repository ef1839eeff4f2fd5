// The README's "Using a client" example type-checks against the sources (package imports mapped to src/).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** The first ```ts block after `heading` in the README. */
function example(heading: string): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf(heading));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error(`No ts example under ${heading}`);
  return match[1]!;
}

describe("README: Using a client", () => {
  it("the example type-checks", () => {
    const dir = join(ROOT, ".tmp", `readme-client-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      const code = example("## Using a client")
        .replaceAll('from "onemodelcontext/node"', 'from "../../adapters/node.ts"')
        .replaceAll('from "onemodelcontext"', 'from "../../src/mod.ts"');
      writeFileSync(join(dir, "example.ts"), `${code}\nexport {};\n`);
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: "../../tsconfig.json", include: ["example.ts"] }));
      let output = "";
      try {
        execFileSync(join(ROOT, "node_modules/.bin/tsc"), ["-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(output).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
