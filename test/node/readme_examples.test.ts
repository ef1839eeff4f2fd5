/** The rule by which scripts/check_readme_examples.mjs picks README blocks and their targets. */
import { describe, expect, it } from "vitest";
import { extractBlocks } from "../../scripts/check_readme_examples.mjs";

const fence = "```";

describe("README example extraction", () => {
  it("takes every ts and typescript block with the line of its first code line, and nothing else", () => {
    const md = [
      "# T",
      `${fence}sh`,
      "npm test",
      fence,
      `${fence}ts`,
      "const a = 1;",
      fence,
      "",
      `${fence}typescript`,
      "const b = 2;",
      "const c = 3;",
      fence,
      `${fence}js`,
      "x",
      fence,
    ].join("\n");
    const blocks = extractBlocks(md);
    expect(blocks.map((b) => [b.line, b.code])).toEqual([[6, "const a = 1;"], [
      10,
      "const b = 2;\nconst c = 3;",
    ]]);
  });

  it("chooses targets from the imports: deno, bun, node, else node and browser", () => {
    const block = (code: string) => `${fence}ts\n${code}\n${fence}`;
    const md = [
      block('import { stdio } from "npm:onemodelcontext/deno";'),
      block('import { stdio } from "onemodelcontext/bun";'),
      block('import { stdio } from "onemodelcontext/node";'),
      block("process.exit(0);"),
      block('import { ContextClient } from "onemodelcontext";'),
    ].join("\n\n");
    expect(extractBlocks(md).map((b) => b.targets)).toEqual([["deno"], ["bun"], ["node"], ["node"], [
      "node",
      "browser",
    ]]);
  });

  it("a marker on the line before the fence overrides the choice; skip and `ts ignore` leave a fragment out", () => {
    const md = [
      "<!-- typecheck: browser -->",
      `${fence}ts`,
      'import "onemodelcontext/node";',
      fence,
      "<!-- typecheck: skip -->",
      "",
      `${fence}ts`,
      "fragment(",
      fence,
      `${fence}ts ignore`,
      "fragment(",
      fence,
      "<!-- typecheck: node deno -->",
      `${fence}ts`,
      "x",
      fence,
    ].join("\n");
    expect(extractBlocks(md).map((b) => b.targets)).toEqual([["browser"], [], [], ["node", "deno"]]);
  });

  it("an unknown target in a marker is an error naming it and its line", () => {
    expect(() => extractBlocks(["<!-- typecheck: firefox -->", `${fence}ts`, "x", fence].join("\n"))).toThrow(
      /line 1: unknown typecheck target firefox/,
    );
  });
});
