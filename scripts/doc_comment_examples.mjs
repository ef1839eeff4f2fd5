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
 * The examples of the internal modules (every other `.ts` file under src/, adapters/ and testing/)
 * are checked too: a name the example uses that is not public is imported, for the check only, from
 * the built declarations of its own module if that exports it, else of the first module of its top
 * folder (src/, adapters/, testing/) that does, else of any (`./node_modules/onemodelcontext/dist/<file>.js`:
 * no user can write that import, so such examples are for contributors). A global (`Request`,
 * `Error`) is never imported: an example that means the protocol's `Request` imports it itself.
 *
 * Info string words after the `ts` of the fence: `ignore` leaves the example unchecked (say why in the text);
 * `node`, `browser`, `deno`, `bun` choose where it is checked instead of the automatic choice.
 * Otherwise an example is complete: what it needs besides the package it declares
 * (`declare const server: ContextServer;`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

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

/** The generated protocol types: their names reach examples through `onemodelcontext/protocol`. */
const GENERATED = /^src\/wire\/protocol\/v\d/;

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
    const [, name] of code.matchAll(
      /\b(?:const|let|var|using|function\*?|class|interface|type|enum)\s+([\w$]+)/g,
    )
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
 * `code` with imports, appended, of the public names it uses without declaring them; with `internal`
 * (an internal module's example), of the internal names too.
 * @param {string} code
 * @param {string | undefined} home the subpath of the example's module
 * @param {ReturnType<typeof entriesOf>} entries
 * @param {{ file: string, exports: Map<string, string> }} [internal] the example's file, and the
 *   internal modules' exported names (name → declaring file, the example's own file first)
 */
function withImports(code, home, entries, internal) {
  const declared = declaredIn(code);
  /** @type {Map<string, string[]>} */
  const imports = new Map();
  const order = [...entries.filter((e) => e.subpath === home), ...entries.filter((e) => e.subpath !== home)];
  const add = (/** @type {string} */ from, /** @type {string} */ name) =>
    imports.set(from, [...(imports.get(from) ?? []), name]);
  for (const name of identifiersOf(code)) {
    // A global (`Request`, `Error`) is the global: an example that means a protocol type imports it.
    if (declared.has(name) || name in globalThis) continue;
    const entry = order.find((e) => e.names.has(name));
    if (entry !== undefined) add(`onemodelcontext${entry.subpath.slice(1)}`, name);
    else if (internal?.exports.has(name)) {
      const file = /** @type {string} */ (internal.exports.get(name));
      add(`./node_modules/onemodelcontext/dist/${file.replace(/\.ts$/, ".js")}`, name);
    }
  }
  const deno = home === "./deno" || /["']npm:/.test(code);
  const lines = [...imports].map(([from, names]) =>
    `import { ${names.sort().join(", ")} } from "${deno && !from.startsWith(".") ? "npm:" : ""}${from}";`
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
 * The `.ts` files (relative to `root`) under src/, adapters/ and testing/.
 * @param {string} root
 */
function sourceFiles(root) {
  /** @type {string[]} */
  const found = [];
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith(".ts")) found.push(path);
    }
  };
  for (const dir of ["src", "adapters", "testing"]) if (existsSync(join(root, dir))) walk(dir);
  return found.sort();
}

/**
 * The names `source` exports by declaration (`export function f`, `export interface I`, …).
 * @param {string} source
 */
function exportedNames(source) {
  return [
    ...source.matchAll(
      /^export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|interface|type|const|let|var|enum)\s+([\w$]+)/gm,
    ),
  ].map((m) => /** @type {string} */ (m[1]));
}

/**
 * Every fenced `ts` example of a module's doc comments, public modules first, then the internal
 * ones: `{ file, internal, blocks: [{ line, code, targets }] }`, `code` with the imports it needs
 * appended, `targets` `[]` for an `ignore`d one or those of its info string, else `undefined` (the
 * caller chooses from what the code uses).
 * @param {string} root
 * @param {readonly string[]} [deferredPaths] folders and files left unchecked (default {@linkcode DEFERRED})
 */
export function docCommentExamples(root, deferredPaths = DEFERRED) {
  const { entries, homes } = publicModules(root);
  const publicFiles = [...homes.keys()].filter((f) => existsSync(join(root, f))).sort();
  const sources = sourceFiles(root);
  const texts = new Map(sources.map((f) => [f, readFileSync(join(root, f), "utf8")]));
  const topOf = (/** @type {string} */ file) => file.slice(0, file.indexOf("/"));
  /** @type {Map<string, Map<string, string>>} by top folder: every exported name → the first file that declares it */
  const exportsByTop = new Map();
  for (const [file, text] of texts) {
    if (GENERATED.test(file)) continue;
    if (!exportsByTop.has(topOf(file))) exportsByTop.set(topOf(file), new Map());
    const top = /** @type {Map<string, string>} */ (exportsByTop.get(topOf(file)));
    for (const name of exportedNames(text)) if (!top.has(name)) top.set(name, file);
  }
  /** Where an internal example's names come from: its own file, its top folder, then the others. */
  const lookupFor = (/** @type {string} */ file) => {
    const own = exportedNames(/** @type {string} */ (texts.get(file))).map((
      n,
    ) => /** @type {[string, string]} */ ([n, file]));
    const others = [...exportsByTop].filter(([top]) => top !== topOf(file)).flatMap((
      [, names],
    ) => [...names]);
    return new Map([...others, ...(exportsByTop.get(topOf(file)) ?? []), ...own]);
  };
  const internalFiles = sources.filter((f) => !homes.has(f));
  const modules = [
    ...publicFiles.map((file) => ({ file, internal: false })),
    ...internalFiles.map((file) => ({ file, internal: true })),
  ];
  return modules.map(({ file, internal }) => {
    const home = homes.get(file);
    const text = texts.get(file) ?? readFileSync(join(root, file), "utf8");
    const exports = internal ? lookupFor(file) : undefined;
    // DOC_EXAMPLES_ALL=1 checks the deferred folders too (to see what is left there).
    const deferred = process.env.DOC_EXAMPLES_ALL !== "1" &&
      deferredPaths.some((prefix) => file.startsWith(prefix));
    const blocks = docCommentBlocks(text).map((block) => {
      const ignored = deferred || block.info.includes("ignore");
      const targets = ignored ? [] : block.info.filter((w) => TARGETS.includes(w));
      return {
        line: block.line,
        code: withImports(block.code, home, entries, exports && { file, exports }),
        targets: targets.length || ignored ? targets : undefined,
        deferred,
      };
    });
    return { file, internal, blocks };
  }).filter((f) => f.blocks.length > 0);
}
