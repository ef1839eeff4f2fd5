// @ts-check
/**
 * The fenced `ts` examples in the doc comments of the package's public modules, as blocks for
 * scripts/check_readme_examples.mjs (which type-checks them like the README's, against the built
 * declarations).
 *
 * A public module is a source file that declares a name one of the package's entries exports (read
 * from the API snapshots, api/<entry>.d.ts: `// Name: kind, from src/file.ts`). An example is written
 * the way a reader sees it next to the symbol: without imports of the package's own names. Each name
 * of the public API that the example uses without declaring or importing it is imported for the check
 * from the entry of the example's module, else from the first entry that exports it (root first; the
 * Node entry before Deno's and Bun's). The imports go after the example's last line, so the line
 * numbers of errors stay those of the source file.
 *
 * Info string words after the `ts` of the fence: `ignore` leaves the example unchecked (say why in the text);
 * `node`, `browser`, `deno`, `bun` choose where it is checked instead of the automatic choice.
 * Otherwise an example is complete: what it needs besides the package it declares
 * (`declare const server: ContextServer;`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** API snapshot file → package subpath, in the order names are looked up. */
const ENTRY_ORDER = [
  ["root", "."],
  ["protocol", "./protocol"],
  ["middleware", "./middleware"],
  ["compose", "./compose"],
  ["redis", "./redis"],
  ["auth", "./auth"],
  ["auth__jwt", "./auth/jwt"],
  ["message-port", "./message-port"],
  ["testing", "./testing"],
  ["node", "./node"],
  ["deno", "./deno"],
  ["bun", "./bun"],
];

const TARGETS = ["node", "browser", "deno", "bun"];

/**
 * Files whose examples are not checked yet (a file moved while its example was being fixed); empty
 * when every public example is checked. `DOC_EXAMPLES_ALL=1 node scripts/check_readme_examples.mjs`
 * checks them anyway.
 * @type {readonly string[]}
 */
export const DEFERRED = [];

/**
 * Every entry's public names: `{ subpath, names: Map<name, declaring file> }`, from the API snapshots.
 * @param {string} root
 */
function entriesOf(root) {
  return ENTRY_ORDER.filter(([file]) => existsSync(join(root, "api", `${file}.d.ts`))).map(
    ([file, subpath]) => {
      const text = readFileSync(join(root, "api", `${file}.d.ts`), "utf8");
      /** @type {Map<string, string>} */
      const names = new Map();
      for (const [, name, from] of text.matchAll(/^\/\/ ([\w$]+): (?:value|type), from (\S+)$/gm)) {
        names.set(/** @type {string} */ (name), /** @type {string} */ (from));
      }
      return { subpath, names };
    },
  );
}

/**
 * The fenced `ts` blocks of the doc comments in `source`: `{ line, code, info }`, `line` the 1-based line of
 * the first code line.
 * @param {string} source
 */
export function docCommentBlocks(source) {
  const lines = source.split("\n");
  /** @type {{ line: number, code: string, info: string[] }[]} */
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*\*\s?(`{3,})\s*(ts|typescript)\b(.*)$/.exec(/** @type {string} */ (lines[i]));
    if (!open) continue;
    const fence = /** @type {string} */ (open[1]);
    const info = /** @type {string} */ (open[3]).trim().split(/\s+/).filter(Boolean);
    const start = i + 1;
    let end = start;
    const body = [];
    for (; end < lines.length; end++) {
      const line = /** @type {string} */ (lines[end]);
      const text = line.replace(/^\s*\*\s?/, "");
      if (text.trim().startsWith(fence) || /^\s*\*\//.test(line)) break;
      body.push(text);
    }
    blocks.push({ line: start + 1, code: body.join("\n"), info });
    i = end;
  }
  return blocks;
}

/**
 * The identifiers `code` uses outside comments and string literals.
 * @param {string} code
 */
function identifiersOf(code) {
  const bare = code
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/\/\/[^\n]*/g, " ")
    .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
  return new Set(bare.match(/(?<![.\w$])[A-Za-z_$][\w$]*/g) ?? []);
}

/**
 * The names `code` declares or imports itself at any level (a name it declares is never imported for it).
 * @param {string} code
 */
function declaredIn(code) {
  const names = new Set();
  for (
    const [, name] of code.matchAll(/\b(?:const|let|var|function\*?|class|interface|type|enum)\s+([\w$]+)/g)
  ) {
    names.add(name);
  }
  for (const [, list] of code.matchAll(/\b(?:const|let|var|import(?:\s+type)?)\s*[{[]([^}\]]*)[}\]]/g)) {
    for (const part of /** @type {string} */ (list).split(",")) {
      const name = /([\w$]+)\s*(?:=[^,]*)?$/.exec(part.trim().replace(/^\.\.\./, ""))?.[1];
      if (name) names.add(name);
    }
  }
  for (const [, name] of code.matchAll(/\bimport\s+(?:type\s+)?([\w$]+)\s*(?:,|from)/g)) names.add(name);
  // `declare const a: A, b: B;`: every declarator of the list.
  for (const [, list] of code.matchAll(/^\s*declare\s+(?:const|let|var)\s+([^;\n]*)/gm)) {
    for (const [, name] of /** @type {string} */ (list).matchAll(/(?:^|,)\s*([\w$]+)\s*:/g)) names.add(name);
  }
  for (const [, name] of code.matchAll(/\bimport\s*\*\s*as\s+([\w$]+)/g)) names.add(name);
  return names;
}

/**
 * `code` with imports, appended, of the public names it uses without declaring them.
 * @param {string} code
 * @param {string | undefined} home the subpath of the example's module
 * @param {ReturnType<typeof entriesOf>} entries
 */
function withImports(code, home, entries) {
  const declared = declaredIn(code);
  /** @type {Map<string, string[]>} */
  const imports = new Map();
  const order = [...entries.filter((e) => e.subpath === home), ...entries.filter((e) => e.subpath !== home)];
  for (const name of identifiersOf(code)) {
    if (declared.has(name)) continue;
    const entry = order.find((e) => e.names.has(name));
    if (entry === undefined) continue;
    imports.set(entry.subpath, [...(imports.get(entry.subpath) ?? []), name]);
  }
  const deno = home === "./deno" || /["']npm:/.test(code);
  const lines = [...imports].map(([subpath, names]) =>
    `import { ${names.sort().join(", ")} } from "${deno ? "npm:" : ""}onemodelcontext${subpath.slice(1)}";`
  );
  // `export {}`: a module even without imports (top-level await, no clash with DOM globals).
  return `${code}\n// Added for the check (scripts/doc_comment_examples.mjs):\n${
    [...lines, "export {};"].join("\n")
  }`;
}

/**
 * The source files (relative to `root`) of the public modules, and the entry each belongs to.
 * @param {string} root
 */
export function publicModules(root) {
  const entries = entriesOf(root);
  /** @type {Map<string, string>} */
  const homes = new Map();
  // The entry modules themselves (their module docs), then every module that declares a public name.
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const source = target?.["onemodelcontext-source"];
    if (typeof source === "string") homes.set(source.replace(/^\.\//, ""), subpath);
  }
  for (const entry of entries) {
    for (const file of entry.names.values()) if (!homes.has(file)) homes.set(file, entry.subpath);
  }
  return { entries, homes };
}

/**
 * Every fenced `ts` example of a public module's doc comments: `{ file, blocks: [{ line, code, targets }] }`,
 * `code` with the imports it needs appended, `targets` `[]` for an `ignore`d one or those of its info
 * string, else `undefined` (the caller chooses from what the code uses).
 * @param {string} root
 * @param {readonly string[]} [deferredPaths] folders and files left unchecked (default {@linkcode DEFERRED})
 */
export function docCommentExamples(root, deferredPaths = DEFERRED) {
  const { entries, homes } = publicModules(root);
  const files = [...homes.keys()].filter((f) => existsSync(join(root, f))).sort();
  return files.map((file) => {
    const home = homes.get(file);
    // DOC_EXAMPLES_ALL=1 checks the deferred folders too (to see what is left there).
    const deferred = process.env.DOC_EXAMPLES_ALL !== "1" &&
      deferredPaths.some((prefix) => file.startsWith(prefix));
    const blocks = docCommentBlocks(readFileSync(join(root, file), "utf8")).map((block) => {
      const ignored = deferred || block.info.includes("ignore");
      const targets = ignored ? [] : block.info.filter((w) => TARGETS.includes(w));
      return {
        line: block.line,
        code: withImports(block.code, home, entries),
        targets: targets.length || ignored ? targets : undefined,
        deferred,
      };
    });
    return { file, blocks };
  }).filter((f) => f.blocks.length > 0);
}

/**
 * The doc-comment examples that are not in a public module (not checked; listed so that they are seen).
 * @param {string} root
 */
export function unlistedDocCommentExamples(root) {
  const { homes } = publicModules(root);
  /** @type {string[]} */
  const found = [];
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith(".ts") && !homes.has(path)) {
        const blocks = docCommentBlocks(readFileSync(join(root, path), "utf8"));
        for (const block of blocks) found.push(`${path}:${block.line}`);
      }
    }
  };
  for (const dir of ["src", "adapters", "testing"]) if (existsSync(join(root, dir))) walk(dir);
  return found.map((f) => relative(".", f));
}
