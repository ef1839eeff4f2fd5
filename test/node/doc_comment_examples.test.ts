/** How scripts/doc_comment_examples.mjs finds the doc-comment examples of public modules and completes them. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { docCommentBlocks, docCommentExamples } from "../../scripts/doc_comment_examples.mjs";

const fence = "```";
let root: string | undefined;

/** A project with two entries (root and node), their API snapshots, and `files`. */
function project(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), "doc-examples-"));
  const write = (path: string, text: string) => {
    mkdirSync(join(root!, path, ".."), { recursive: true });
    writeFileSync(join(root!, path), text);
  };
  write(
    "package.json",
    JSON.stringify({
      exports: {
        ".": { "onemodelcontext-source": "./src/mod.ts" },
        "./node": { "onemodelcontext-source": "./src/node.ts" },
      },
    }),
  );
  write(
    "api/root.d.ts",
    "// ContextServer: value, from src/server.ts\n// Duplex: type, from src/duplex.ts\n",
  );
  write("api/node.d.ts", "// stdio: value, from src/node.ts\n// serve: value, from src/node.ts\n");
  write("src/mod.ts", "export {};\n");
  for (const [path, text] of Object.entries(files)) write(path, text);
  return root;
}

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe("doc-comment examples", () => {
  it("takes the ts blocks of doc comments with the line of their first code line and their info words", () => {
    const source = [
      "/**",
      " * Text.",
      ` * ${fence}ts`,
      " * const a = 1;",
      " *   indented();",
      ` * ${fence}`,
      ` * ${fence}sh`,
      " * npm test",
      ` * ${fence}`,
      " */",
      "export const x = 1;",
      "  /**",
      `   * ${fence}ts ignore (internal)`,
      "   * b();",
      `   * ${fence}`,
      "   */",
    ].join("\n");
    expect(docCommentBlocks(source)).toEqual([
      { line: 4, code: "const a = 1;\n  indented();", info: [] },
      { line: 14, code: "b();", info: ["ignore", "(internal)"] },
    ]);
  });

  it("imports the public names an example uses from their entries, after its last line, never a name it declares", () => {
    const dir = project({
      "src/server.ts": [
        "/**",
        ` * ${fence}ts`,
        ' * const server = new ContextServer({ name: "s", version: "1" });',
        " * declare const duplex: Duplex, stdio: unknown;",
        ' * await server.serve(duplex); // serve() is not used: it is in a comment, and "serve" a string',
        ` * ${fence}`,
        " */",
        "export class ContextServer {}",
      ].join("\n"),
      "src/internal.ts": `/**\n * ${fence}ts\n * hidden();\n * ${fence}\n */\nexport const y = 1;\n`,
    });
    const examples = docCommentExamples(dir);
    // internal.ts declares no public name: its example is checked as an internal module's, after the public ones
    expect(examples.map((e) => [e.file, e.internal])).toEqual([["src/server.ts", false], [
      "src/internal.ts",
      true,
    ]]);
    const [block] = examples[0]!.blocks;
    expect(block!.line).toBe(3);
    expect(block!.targets).toBeUndefined();
    const added = block!.code.split("\n").slice(3);
    expect(added).toEqual([
      "// Added for the check (scripts/doc_comment_examples.mjs):",
      'import { ContextServer, Duplex } from "onemodelcontext";',
      "export {};",
    ]);
  });

  it("imports from the entry of the example's module, and honours ignore and targets", () => {
    const dir = project({
      "src/node.ts": [
        "/**",
        ` * ${fence}ts`,
        " * await serve(stdio());",
        ` * ${fence}`,
        ` * ${fence}ts ignore`,
        " * x(",
        ` * ${fence}`,
        ` * ${fence}ts browser`,
        " * new ContextServer({});",
        ` * ${fence}`,
        " */",
        "export const stdio = 1, serve = 2;",
      ].join("\n"),
    });
    const [node] = docCommentExamples(dir);
    expect(node!.blocks.map((b) => b.targets)).toEqual([undefined, [], ["browser"]]);
    expect(node!.blocks[0]!.code).toContain('import { serve, stdio } from "onemodelcontext/node";');
    expect(node!.blocks[2]!.code).toContain('import { ContextServer } from "onemodelcontext";');
  });

  it("leaves the examples of a deferred folder unchecked, and marks them", () => {
    const dir = project({
      "api/node.d.ts": "// stdio: value, from adapters/node.ts\n",
      "adapters/node.ts": `/**\n * ${fence}ts\n * stdio();\n * ${fence}\n */\nexport const stdio = 1;\n`,
    });
    const [adapter] = docCommentExamples(dir, ["adapters/"]);
    expect(adapter!.blocks.map((b) => [b.targets, b.deferred])).toEqual([[[], true]]);
  });
});
