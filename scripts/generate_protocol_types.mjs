#!/usr/bin/env node
// Generates src/wire/protocol/{v2025_11_25,v2026_07_28,current,era_method_maps}.ts and
// test/src/wire/protocol_current_equal.ts from the published MCP schema files.
//
// Usage:
//   node scripts/generate_protocol_types.mjs <spec> [--commit <sha>] [--out <repo root>]
//
// <spec> is a checkout of github.com/modelcontextprotocol/modelcontextprotocol (a directory that holds
// schema/2025-11-25/schema.ts and schema/2026-07-28/schema.ts) or a bare git directory of it; a bare
// git directory is read at HEAD and its commit is recorded in the headers. The generator reads only
// local files: it never touches the network. It fails (exit code 1) when the schema has a shape it
// does not know, rather than writing something half right.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REVISIONS = [
  { version: "2025-11-25", file: "v2025_11_25", alias: "L", era: "legacy" },
  { version: "2026-07-28", file: "v2026_07_28", alias: "M", era: "modern" },
];
const SPEC_REPO_URL = "https://github.com/modelcontextprotocol/modelcontextprotocol";
const SPEC_SITE_URL = "https://modelcontextprotocol.io";

function fail(message) {
  console.error(`generate_protocol_types: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = {
    spec: undefined,
    commit: undefined,
    out: resolve(dirname(fileURLToPath(import.meta.url)), ".."),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--commit") args.commit = argv[++i];
    else if (arg === "--out") args.out = resolve(argv[++i]);
    else if (arg.startsWith("--")) fail(`Unknown option ${JSON.stringify(arg)}`);
    else if (args.spec === undefined) args.spec = resolve(arg);
    else fail(`Unexpected argument ${JSON.stringify(arg)}`);
  }
  if (args.spec === undefined) {
    fail("Missing the path of the specification repository (a checkout or a bare git directory)");
  }
  return args;
}

/** Reads schema/<version>/schema.ts from a checkout or from HEAD of a bare git directory. */
function readSchema(spec, version) {
  const path = join(spec, "schema", version, "schema.ts");
  if (existsSync(path)) return readFileSync(path, "utf8");
  if (existsSync(join(spec, "HEAD"))) {
    return execFileSync("git", ["--git-dir", spec, "show", `HEAD:schema/${version}/schema.ts`], {
      encoding: "utf8",
      maxBuffer: 1 << 26,
    });
  }
  fail(`Found neither ${path} nor a git directory at ${spec}`);
}

function gitCommit(spec) {
  if (!existsSync(join(spec, "HEAD")) && !existsSync(join(spec, ".git"))) return undefined;
  const gitDir = existsSync(join(spec, ".git")) ? join(spec, ".git") : spec;
  try {
    return execFileSync("git", ["--git-dir", gitDir, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Transformation of one schema file

/** Removes comments and string contents' influence for the `any` check and for comparisons. */
function stripComments(text) {
  let out = "";
  for (let i = 0; i < text.length;) {
    if (text.startsWith("/*", i)) {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
      out += " ";
    } else if (text.startsWith("//", i)) {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
    } else if (text[i] === '"' || text[i] === "'" || text[i] === "`") {
      const quote = text[i];
      let j = i + 1;
      while (j < text.length && text[j] !== quote) j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += text[i++];
    }
  }
  return out;
}

function transformSchema(source, revision, commit) {
  const examplesBase = `${SPEC_REPO_URL}/blob/${commit ?? "main"}/schema/${revision.version}/examples/`;
  const lines = source.replace(/\r\n/g, "\n").split("\n");
  const out = [];
  let anyRewrites = 0;
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    // The schema types the open `params` of the base Request and Notification as `{ [key: string]: any }`
    // so that every params interface extends it. This library emits no `any`: they become `object`, the
    // widest type every params interface is assignable to (an interface has no implicit index signature,
    // so `{ [key: string]: unknown }` would reject them).
    if (/^\s*\/\/ eslint-disable-next-line @typescript-eslint\/no-explicit-any\s*$/.test(line)) continue;
    if (line.includes("{ [key: string]: any }")) {
      line = line.replace("{ [key: string]: any }", "object");
      anyRewrites++;
    }
    // Relative links to the specification site become absolute.
    line = line.replace(/\]\(\/specification\//g, `](${SPEC_SITE_URL}/specification/`);
    // `{@includeCode ./examples/…}` points into the schema folder, which is not copied: link to it.
    const example = /^(\s*\*) @example (.*)$/.exec(line);
    const include = /^(\s*\*) \{@includeCode \.\/examples\/([^}]+)\}\s*$/;
    if (example && include.test(lines[i + 1] ?? "")) {
      const [, prefix, file] = include.exec(lines[i + 1]);
      out.push(`${prefix} Example (${example[2].trim()}): {@link ${examplesBase}${file}}`);
      i++;
      continue;
    }
    const lone = include.exec(line);
    if (lone) {
      out.push(`${lone[1]} Example: {@link ${examplesBase}${lone[2]}}`);
      continue;
    }
    if (line.includes("@includeCode")) {
      fail(`${revision.version}: unexpected @includeCode form: ${line.trim()}`);
    }
    out.push(line);
  }
  if (anyRewrites !== 2) {
    fail(`${revision.version}: expected 2 open params with \`any\`, found ${anyRewrites}`);
  }
  const body = out.join("\n").trimEnd() + "\n";
  if (/\bany\b/.test(stripComments(body).replace(/"[^"\n]*"/g, '""'))) {
    fail(`${revision.version}: \`any\` left in the code after the rewrite`);
  }
  const header = [
    "/**",
    ` * MCP protocol types, revision ${revision.version} (${revision.era} era). GENERATED: do not edit; run`,
    " * `node scripts/generate_protocol_types.mjs <spec repository>` (see that script).",
    " *",
    ` * Source: schema/${revision.version}/schema.ts of ${SPEC_REPO_URL}`,
    commit ? ` * at commit ${commit}.` : " * (commit not recorded).",
    " * The declarations and their doc comments are the published Model Context Protocol schema, copied",
    " * unchanged except: the open `params` of `Request` and `Notification` are `object` where the schema",
    " * has `{ [key: string]: any }`; relative specification links are made absolute; `@example` file inclusions become",
    " * links to the example files in the source repository.",
    " *",
    " * License of the source: Copyright (c) 2024-2025 Model Context Protocol a Series of LF Projects, LLC.",
    " * Licensed under the MIT License; contributions whose authors consented to relicensing are under the",
    " * Apache License 2.0 (see the LICENSE file of the source repository). The MIT License applies:",
    " * Permission is hereby granted, free of charge, to any person obtaining a copy of this software and",
    ' * associated documentation files (the "Software"), to deal in the Software without restriction,',
    " * including without limitation the rights to use, copy, modify, merge, publish, distribute,",
    " * sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is",
    " * furnished to do so, subject to the following conditions: The above copyright notice and this",
    " * permission notice shall be included in all copies or substantial portions of the Software.",
    ' * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING',
    " * BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND",
    " * NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,",
    " * DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,",
    " * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.",
    " * @module",
    " */",
    "",
  ].join("\n");
  return header + body;
}

// ---------------------------------------------------------------------------------------------
// Declarations: the schema is prettier-formatted, so every top-level declaration starts with
// `export` at column 0 and ends before the next column-0 line that opens a comment or a declaration.

function parseDeclarations(source, version) {
  const lines = source.split("\n");
  const decls = new Map();
  for (let i = 0; i < lines.length; i++) {
    const match = /^export (interface|type|const) ([A-Za-z_][A-Za-z0-9_]*)/.exec(lines[i]);
    if (!match) {
      if (/^export\b/.test(lines[i])) fail(`${version}: unknown top-level form: ${lines[i]}`);
      continue;
    }
    let end = i + 1;
    while (end < lines.length && !/^(\/|export\b)/.test(lines[end])) end++;
    const text = lines.slice(i, end).join("\n").trimEnd();
    const [, kind, name] = match;
    if (decls.has(name)) fail(`${version}: ${name} is declared twice`);
    decls.set(name, { kind, name, text, code: stripComments(text).replace(/\s+/g, " ").trim() });
  }
  return decls;
}

function identifiersOf(code) {
  return new Set(code.replace(/"[^"]*"/g, '""').match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
}

/** Names declared identically in both revisions, including everything they refer to. */
function sharedNames(legacy, modern) {
  const candidates = new Set(
    [...legacy.keys()].filter((name) => modern.get(name)?.code === legacy.get(name).code),
  );
  let changed = true;
  while (changed) {
    changed = false;
    for (const name of candidates) {
      for (const ref of identifiersOf(legacy.get(name).code)) {
        if (ref === name) continue;
        if ((legacy.has(ref) || modern.has(ref)) && !candidates.has(ref)) {
          candidates.delete(name);
          changed = true;
          break;
        }
      }
    }
  }
  return [...candidates].filter((name) => legacy.get(name).kind !== "const").sort();
}

/** Member names of a top-level `export type X = A | B | …;` union. */
function unionMembers(decls, name, version) {
  const decl = decls.get(name);
  if (!decl || decl.kind !== "type") fail(`${version}: ${name} is not a type alias`);
  const rhs = decl.code.replace(/^export type \w+ =/, "").replace(/;$/, "");
  const members = rhs.split("|").map((part) => part.trim()).filter(Boolean);
  for (const member of members) {
    if (!/^[A-Za-z_]\w*$/.test(member)) {
      fail(`${version}: ${name} has a member that is not a name: ${member}`);
    }
  }
  return members;
}

/** The method literal and the params type text of a request or notification interface. */
function messageShape(decls, name, version) {
  const decl = decls.get(name);
  if (!decl || decl.kind !== "interface") fail(`${version}: ${name} is not an interface`);
  const method = /\bmethod: "([^"]+)";/.exec(decl.code);
  if (!method) fail(`${version}: ${name} has no method literal`);
  const params = /\bparams(\??): ([A-Za-z_]\w*);/.exec(decl.code);
  const inherited = !/\bparams\??:/.test(decl.code);
  return {
    name,
    method: method[1],
    paramsName: params ? params[2] : undefined,
    paramsOptional: params ? params[1] === "?" : /\bparams\?:/.test(decl.code),
    inherited,
  };
}

function paramsType(alias, shape) {
  if (shape.paramsName) return `${alias}.${shape.paramsName}`;
  return `NonNullable<${alias}.${shape.name}["params"]>`;
}

/** The result of a request: `<X>ResultResponse["result"]` when the schema has one, else `<X>Result`, else `EmptyResult`. */
function resultType(decls, alias, requestName, version) {
  const base = requestName.replace(/Request$/, "");
  if (decls.has(`${base}ResultResponse`)) {
    return { text: `${alias}.${base}ResultResponse["result"]`, from: `${base}ResultResponse` };
  }
  if (decls.has(`${base}Result`)) return { text: `${alias}.${base}Result`, from: `${base}Result` };
  if (!decls.has("EmptyResult")) fail(`${version}: no result for ${requestName} and no EmptyResult`);
  return { text: `${alias}.EmptyResult`, from: "EmptyResult" };
}

// ---------------------------------------------------------------------------------------------

function main() {
  const args = parseArgs(process.argv.slice(2));
  const commit = args.commit ?? gitCommit(args.spec);
  const parsed = {};
  // Everything is computed before anything is written: a schema the generator does not understand
  // leaves the committed files untouched.
  const outputs = [];
  const write = (path, text) => outputs.push([join(args.out, path), text]);
  for (const revision of REVISIONS) {
    const source = readSchema(args.spec, revision.version);
    const text = transformSchema(source, revision, commit);
    const target = `src/wire/protocol/${revision.file}.ts`;
    write(target, text);
    parsed[revision.era] = { revision, decls: parseDeclarations(text, revision.version) };
    const decls = parsed[revision.era].decls;
    const counts = { interface: 0, type: 0, const: 0 };
    for (const decl of decls.values()) counts[decl.kind]++;
    console.log(
      `${revision.version}: ${counts.interface} interfaces, ${counts.type} type aliases, ${counts.const} constants -> ${target}`,
    );
  }
  const { legacy, modern } = parsed;
  const generatedBy = "GENERATED by scripts/generate_protocol_types.mjs: do not edit; run the generator.";

  // current.ts: the types that are the same in both revisions.
  const shared = sharedNames(legacy.decls, modern.decls);
  write(
    "src/wire/protocol/current.ts",
    [
      "/**",
      ` * The MCP protocol types declared identically in revisions ${legacy.revision.version} and ${modern.revision.version},`,
      " * together with every type they refer to, so one name serves both eras. Types that differ between",
      " * the revisions are reached through the `Legacy` and `Modern` namespaces of `./mod.ts`.",
      ` * ${generatedBy}`,
      " * @module",
      " */",
      `export type {\n${
        shared.map((name) => `  ${name},`).join("\n")
      }\n} from "./${modern.revision.file}.ts";`,
      "",
    ].join("\n"),
  );
  console.log(`current: ${shared.length} types shared by both revisions`);

  // test/src/wire/protocol_current_equal.ts: each shared name is the same type in both files.
  write(
    "test/src/wire/protocol_current_equal.ts",
    [
      "// Type-level check, run by `npx tsc -p tsconfig.json`: every type that src/wire/protocol/current.ts",
      "// exports as shared is mutually assignable between the two revisions' files.",
      `// ${generatedBy}`,
      `import type * as L from "../../../src/wire/protocol/${legacy.revision.file}.ts";`,
      `import type * as M from "../../../src/wire/protocol/${modern.revision.file}.ts";`,
      "",
      "type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;",
      "type Holds<T extends true> = T;",
      "",
      "export type SharedTypesAreEqual = [",
      ...shared.map((name) => `  Holds<Same<L.${name}, M.${name}>>,`),
      "];",
      "",
    ].join("\n"),
  );

  // era_method_maps.ts: the exact method maps of each revision, from the schema's message unions.
  const sections = [];
  const constants = [];
  const report = [];
  const addRequestMap = (era, union, mapName, constName, doc) => {
    const { revision, decls } = parsed[era];
    const alias = revision.alias;
    const shapes = unionMembers(decls, union, revision.version).map((name) =>
      messageShape(decls, name, revision.version)
    );
    const entries = shapes.map((shape) => {
      const result = resultType(decls, alias, shape.name, revision.version);
      report.push(`  ${revision.version} ${union}: ${shape.method} (${shape.name}) -> ${result.from}`);
      const optional = shape.paramsOptional ? " Its `params` may be omitted." : "";
      return `  /** {@link ${alias}.${shape.name}}.${optional} */\n  ${
        JSON.stringify(shape.method)
      }: { params: ${paramsType(alias, shape)}; result: ${result.text} };`;
    });
    sections.push(`/**\n * ${doc}\n */\nexport interface ${mapName} {\n${entries.join("\n")}\n}`);
    constants.push({
      constName,
      mapName,
      methods: shapes.map((shape) => shape.method),
      version: revision.version,
      union,
    });
  };
  const addNotificationMap = (era, union, mapName, constName, doc) => {
    const { revision, decls } = parsed[era];
    const alias = revision.alias;
    const shapes = unionMembers(decls, union, revision.version).map((name) =>
      messageShape(decls, name, revision.version)
    );
    const entries = shapes.map((shape) => {
      report.push(`  ${revision.version} ${union}: ${shape.method} (${shape.name})`);
      const optional = shape.paramsOptional ? " Its `params` may be omitted." : "";
      return `  /** {@link ${alias}.${shape.name}}.${optional} */\n  ${JSON.stringify(shape.method)}: ${
        paramsType(alias, shape)
      };`;
    });
    sections.push(`/**\n * ${doc}\n */\nexport interface ${mapName} {\n${entries.join("\n")}\n}`);
    constants.push({
      constName,
      mapName,
      methods: shapes.map((shape) => shape.method),
      version: revision.version,
      union,
    });
  };
  const lv = legacy.revision.version;
  const mv = modern.revision.version;
  addRequestMap(
    "legacy",
    "ClientRequest",
    "LegacyClientRequestMap",
    "LEGACY_CLIENT_REQUEST_METHODS",
    `Client→server requests of ${lv} (the schema's \`ClientRequest\`): method → exact \`params\` and \`result\`.`,
  );
  addRequestMap(
    "legacy",
    "ServerRequest",
    "LegacyServerRequestMap",
    "LEGACY_SERVER_REQUEST_METHODS",
    `Server→client requests of ${lv} (the schema's \`ServerRequest\`): method → exact \`params\` and \`result\`.`,
  );
  addNotificationMap(
    "legacy",
    "ClientNotification",
    "LegacyClientNotificationMap",
    "LEGACY_CLIENT_NOTIFICATION_METHODS",
    `Client→server notifications of ${lv} (the schema's \`ClientNotification\`): method → \`params\`.`,
  );
  addNotificationMap(
    "legacy",
    "ServerNotification",
    "LegacyServerNotificationMap",
    "LEGACY_SERVER_NOTIFICATION_METHODS",
    `Server→client notifications of ${lv} (the schema's \`ServerNotification\`): method → \`params\`.`,
  );
  addRequestMap(
    "modern",
    "ClientRequest",
    "ModernClientRequestMap",
    "MODERN_CLIENT_REQUEST_METHODS",
    `Client→server requests of ${mv} (the schema's \`ClientRequest\`): method → exact \`params\` (with the required \`_meta\` envelope) and \`result\`.`,
  );
  addRequestMap(
    "modern",
    "InputRequest",
    "ModernInputRequestMap",
    "MODERN_INPUT_REQUEST_METHODS",
    `Requests a ${mv} server embeds in an \`input_required\` result (the schema's \`InputRequest\`; never sent as JSON-RPC requests): method → \`params\` and the \`result\` the client puts in \`inputResponses\`.`,
  );
  addNotificationMap(
    "modern",
    "ClientNotification",
    "ModernClientNotificationMap",
    "MODERN_CLIENT_NOTIFICATION_METHODS",
    `Client→server notifications of ${mv} (the schema's \`ClientNotification\`): method → \`params\`.`,
  );
  addNotificationMap(
    "modern",
    "ServerNotification",
    "ModernServerNotificationMap",
    "MODERN_SERVER_NOTIFICATION_METHODS",
    `Server→client notifications of ${mv} (the schema's \`ServerNotification\`): method → \`params\`.`,
  );
  const constText = constants.map(
    (c) =>
      `/** The methods of {@link ${c.mapName}}, in the order of the schema's \`${c.union}\` union (${c.version}). */\nexport const ${c.constName} = [\n${
        c.methods.map((m) => `  ${JSON.stringify(m)},`).join("\n")
      }\n] as const satisfies readonly (keyof ${c.mapName})[];`,
  );
  write(
    "src/wire/protocol/era_method_maps.ts",
    [
      "/**",
      ` * The method maps of each revision, exactly as the schema types them, read from its message unions.`,
      " * A request's result is the schema's `<Name>ResultResponse[\"result\"]` when it declares one (so the",
      " * modern `tools/call`, `prompts/get` and `resources/read` include `InputRequiredResult`), else",
      " * `<Name>Result`, else `EmptyResult`. Legacy task-augmented calls (`params.task`) answer with",
      " * `CreateTaskResult` instead; these maps give the plain result.",
      ` * ${generatedBy}`,
      " * @module",
      " */",
      `import type * as L from "./${legacy.revision.file}.ts";`,
      `import type * as M from "./${modern.revision.file}.ts";`,
      "",
      sections.join("\n\n"),
      "",
      constText.join("\n\n"),
      "",
    ].join("\n"),
  );
  for (const [path, text] of outputs) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  console.log(report.join("\n"));
  console.log(`wrote ${outputs.map(([path]) => path).join(", ")}`);
}

main();
