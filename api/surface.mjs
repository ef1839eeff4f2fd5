/**
 * The public surface as the compiler emits it. `generateSurface()` builds the declarations with
 * `tsc -p tsconfig.build.json --emitDeclarationOnly` into a temporary folder, then for each entry in
 * package.json `exports` lists every exported name with its declaration text (comments stripped),
 * following re-exports to the file that declares the name. `api/update.mjs` writes the result to
 * `api/<entry>.d.ts`; `test/src/api_snapshot.test.ts` regenerates it and compares.
 *
 * It also counts the `any` type in the emitted declarations of `src/`, per file.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The snapshot file of a package.json `exports` subpath: "." → "root", "./message-port" → "message-port". */
export function snapshotName(subpath) {
  return subpath === "." ? "root" : subpath.slice(2).replaceAll("/", "__");
}

/** Removes comments from TypeScript text, leaving strings and template literals intact. */
export function stripComments(text) {
  let out = "";
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 2;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Replaces the contents of string literals with nothing, so a word inside a string is not counted. */
function blankStrings(text) {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""');
}

/**
 * Top-level statements of emitted declaration text (comments already stripped). tsc prints every
 * top-level statement from column 0 and indents what is inside it, so a statement starts at each line
 * that begins at column 0 with anything but a bracket or a continuing operator, after a line that does
 * not end in one.
 */
export function topLevelStatements(text) {
  const statements = [];
  let current = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const continues = /^[\s{}()[\]|&>]/.test(line) || /[=|&,(<]$/.test(current.at(-1) ?? "");
    if (!continues && current.length) {
      statements.push(current.join("\n"));
      current = [];
    }
    current.push(line.replace(/\s+$/, ""));
  }
  if (current.length) statements.push(current.join("\n"));
  return statements;
}

const DECLARATION =
  /^(export\s+)?(default\s+)?(declare\s+)?(abstract\s+)?(class|interface|type|function|const|let|var|enum|namespace|module)\s+([\w$]+)/;
const VALUE_KINDS = new Set(["class", "function", "const", "let", "var", "enum", "namespace", "module"]);

function parseSpecifiers(list, typeOnly) {
  return list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const type = typeOnly || s.startsWith("type ");
      const [imported, local = imported] = s.replace(/^type\s+/, "").split(/\s+as\s+/);
      return { imported: imported.trim(), exported: local.trim(), type };
    });
}

/** What one declaration file declares, imports and exports. */
function parseModule(text) {
  const declared = new Map(); // name -> { kind, texts[] }
  const imports = new Map(); // local -> { from, imported }
  const reexports = []; // { from?, imported, exported, type }
  const stars = []; // { from, type }
  for (const statement of topLevelStatements(stripComments(text))) {
    const flat = statement.replace(/\s+/g, " ").trim();
    let m;
    if ((m = /^import (type )?\{([^}]*)\} from ["']([^"']+)["'];?$/.exec(flat))) {
      for (const s of parseSpecifiers(m[2], Boolean(m[1]))) {
        imports.set(s.exported, { from: m[3], imported: s.imported });
      }
    } else if ((m = /^import (type )?\* as ([\w$]+) from ["']([^"']+)["'];?$/.exec(flat))) {
      imports.set(m[2], { from: m[3], imported: "*" });
    } else if (/^import /.test(flat)) {
      // a side-effect import or a default import: declares nothing a re-export could name
    } else if ((m = /^export (type )?\* from ["']([^"']+)["'];?$/.exec(flat))) {
      stars.push({ from: m[2], type: Boolean(m[1]) });
    } else if ((m = /^export (type )?\* as ([\w$]+) from ["']([^"']+)["'];?$/.exec(flat))) {
      reexports.push({ from: m[3], imported: "*", exported: m[2], type: Boolean(m[1]) });
    } else if ((m = /^export (type )?\{([^}]*)\}(?: from ["']([^"']+)["'])?;?$/.exec(flat))) {
      for (const s of parseSpecifiers(m[2], Boolean(m[1]))) reexports.push({ from: m[3], ...s });
    } else if ((m = DECLARATION.exec(flat))) {
      const kind = m[5];
      const name = m[6];
      const entry = declared.get(name) ?? { kinds: new Set(), texts: [], exported: false };
      entry.kinds.add(kind);
      entry.texts.push(statement);
      entry.exported ||= Boolean(m[1]);
      declared.set(name, entry);
    } else if (flat !== "export {};") {
      throw new Error(`Unrecognised top-level declaration: ${JSON.stringify(flat.slice(0, 120))}`);
    }
  }
  return { declared, imports, reexports, stars };
}

/** Resolves an import specifier of an emitted .d.ts to the .d.ts file, or undefined outside the build. */
function resolveSpecifier(fromFile, specifier) {
  if (!specifier.startsWith(".")) return undefined;
  const target = resolve(dirname(fromFile), specifier).replace(/\.(m?js|ts)$/, "");
  return `${target}.d.ts`;
}

/**
 * Every name a declaration file exports: `{ name, kind: "value" | "type", file, texts }`, following
 * re-exports and `export *` to the declaring file. `file` is relative to `outDir`.
 */
export function exportedNames(outDir, file, cache = new Map(), seen = new Set()) {
  if (seen.has(file)) return new Map();
  seen.add(file);
  if (!cache.has(file)) cache.set(file, parseModule(readFileSync(file, "utf8")));
  const mod = cache.get(file);
  const result = new Map();
  const describe = (name, kind, from, texts, alias) => ({
    name,
    kind,
    file: relative(outDir, from),
    texts,
    alias,
  });
  const lookup = (name, typeOnly, alias) => {
    const own = mod.declared.get(name);
    if (own) {
      const value = [...own.kinds].some((k) => VALUE_KINDS.has(k));
      return describe(
        alias ?? name,
        value && !typeOnly ? "value" : "type",
        file,
        own.texts,
        alias ? name : undefined,
      );
    }
    const imported = mod.imports.get(name);
    if (imported) {
      const target = resolveSpecifier(file, imported.from);
      if (!target) {
        return {
          name: alias ?? name,
          kind: typeOnly ? "type" : "value",
          file: imported.from,
          texts: [],
          alias: imported.imported,
        };
      }
      const found = exportedNames(outDir, target, cache, new Set()).get(imported.imported);
      if (!found) {
        throw new Error(
          `${
            relative(outDir, file)
          } imports ${imported.imported} from ${imported.from}, which does not export it`,
        );
      }
      return { ...found, name: alias ?? name, kind: typeOnly ? "type" : found.kind };
    }
    throw new Error(`${relative(outDir, file)} exports ${name} but neither declares nor imports it`);
  };
  for (const star of mod.stars) {
    const target = resolveSpecifier(file, star.from);
    if (!target) {
      throw new Error(`${relative(outDir, file)}: export * from a package (${star.from}) cannot be listed`);
    }
    for (const [name, found] of exportedNames(outDir, target, cache, seen)) {
      if (name !== "default") result.set(name, star.type ? { ...found, kind: "type" } : found);
    }
  }
  for (const [name, own] of mod.declared) if (own.exported) result.set(name, lookup(name, false));
  for (const r of mod.reexports) {
    if (r.from === undefined) {
      result.set(r.exported, lookup(r.imported, r.type, r.exported === r.imported ? undefined : r.exported));
      continue;
    }
    const target = resolveSpecifier(file, r.from);
    if (!target) {
      result.set(r.exported, {
        name: r.exported,
        kind: r.type ? "type" : "value",
        file: r.from,
        texts: [],
        alias: r.imported,
      });
      continue;
    }
    if (r.imported === "*") {
      // `export * as Name from`: a namespace; listed by the names it holds, one line each.
      const members = [...exportedNames(outDir, target, cache, new Set()).values()].sort((
        a,
        b,
      ) => (a.name < b.name ? -1 : 1));
      const texts = [
        `export ${r.type ? "type " : ""}* as ${r.exported} from "${r.from}";`,
        ...members.map((m) => `//   ${r.exported}.${m.name}: ${r.type ? "type" : m.kind}`),
      ];
      const value = !r.type && members.some((m) => m.kind === "value");
      result.set(r.exported, {
        name: r.exported,
        kind: value ? "value" : "type",
        file: relative(outDir, target),
        texts,
      });
      continue;
    }
    const found = exportedNames(outDir, target, cache, new Set()).get(r.imported);
    if (!found) {
      throw new Error(
        `${relative(outDir, file)} re-exports ${r.imported} from ${r.from}, which does not export it`,
      );
    }
    result.set(r.exported, { ...found, name: r.exported, kind: r.type ? "type" : found.kind });
  }
  return result;
}

/** The snapshot text of one entry: a header with the counts, then each name with its declaration. */
export function entrySnapshot(outDir, subpath, dtsFile, packageName = "onemodelcontext") {
  const names = [...exportedNames(outDir, dtsFile).values()].sort((
    a,
    b,
  ) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const values = names.filter((n) => n.kind === "value").length;
  const types = names.length - values;
  const specifier = subpath === "." ? packageName : `${packageName}/${subpath.slice(2)}`;
  const lines = [
    `// API snapshot of "${specifier}": ${values} values, ${types} types.`,
    "// Every exported name with the declaration tsc emits for it (comments stripped), in name order.",
    "// Generated by `npm run api:update`; test/src/api_snapshot.test.ts fails when it is out of date.",
  ];
  for (const n of names) {
    const source = n.file.replace(/\.d\.ts$/, ".ts");
    lines.push("", `// ${n.name}: ${n.kind}, from ${source}${n.alias ? ` (declared as ${n.alias})` : ""}`);
    for (const text of n.texts) lines.push(text);
  }
  return {
    text: `${lines.join("\n")}\n`,
    values,
    types,
    names: names.map((n) => ({ name: n.name, kind: n.kind })),
  };
}

function declarationFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? declarationFiles(join(dir, d.name))
      : d.name.endsWith(".d.ts")
      ? [join(dir, d.name)]
      : []
  );
}

/** `any` in the emitted declarations under `outDir/src`: `[{ file, count, lines }]`, only files that have some. */
export function anyCounts(outDir) {
  const found = [];
  for (const file of declarationFiles(join(outDir, "src")).sort()) {
    const lines = blankStrings(stripComments(readFileSync(file, "utf8"))).split("\n");
    const hits = lines.filter((line) => /(?<![\w$.])any(?![\w$])/.test(line)).map((line) => line.trim());
    const count = hits.reduce((sum, line) => sum + (line.match(/(?<![\w$.])any(?![\w$])/g)?.length ?? 0), 0);
    if (count) found.push({ file: relative(outDir, file).replace(/\.d\.ts$/, ".ts"), count, lines: hits });
  }
  return found;
}

/** Emits the declarations of the build into a fresh temporary folder and returns its path. */
export function emitDeclarations() {
  const outDir = mkdtempSync(join(tmpdir(), "onemodelcontext-api-"));
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  try {
    execFileSync(process.execPath, [
      tsc,
      "-p",
      "tsconfig.build.json",
      "--outDir",
      outDir,
      "--emitDeclarationOnly",
    ], { cwd: ROOT, stdio: "pipe" });
  } catch (error) {
    // tsc still emits when a file has type errors (`npm run typecheck` reports those); only no output is fatal.
    if (!existsSync(join(outDir, "src"))) {
      throw new Error(`tsc emitted no declarations: ${error.stdout ?? error.message}`);
    }
  }
  return outDir;
}

/**
 * The whole surface: `{ entries: [{ subpath, file, text, values, types, names }], anys }`, where `file`
 * is the snapshot's path relative to the repository.
 */
export function generateSurface() {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const outDir = emitDeclarations();
  try {
    const entries = Object.entries(pkg.exports).map(([subpath, target]) => {
      const dts = join(outDir, target.types.replace(/^\.\/dist\//, ""));
      return {
        subpath,
        file: `api/${snapshotName(subpath)}.d.ts`,
        ...entrySnapshot(outDir, subpath, dts, pkg.name),
      };
    });
    return { entries, anys: anyCounts(outDir) };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
