// @ts-check
// Serves the package on http://127.0.0.1:PORT (default 8123) for the browser example: in a clone (run
// `npm run build` first) or where npm installed it (`node node_modules/onemodelcontext/examples/browser/serve.mjs`),
// then open http://127.0.0.1:8123/examples/browser/
//
// The example imports the package by name ("onemodelcontext", "onemodelcontext/message-port"), as an
// application would. A browser cannot resolve a bare name by itself, and a module Worker ignores the
// page's import map, so this server does what a bundler or a dev server does: in every script it
// serves it rewrites each bare `from "onemodelcontext…"` (and the package's own dependencies, such as
// `@cfworker/json-schema`) to the file the package's `exports` name. A dependency is looked up the way
// Node looks it up, in the node_modules folders from the package's folder upwards (an installed
// package's dependencies sit beside it, not inside it), and served under /@modules/NAME/.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const { name, exports } = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
/** @type {Record<string, string>} */
const types = {
  ".html": "text/html",
  ".mjs": "text/javascript",
  ".js": "text/javascript",
  ".json": "application/json",
};
const port = Number(process.env.PORT ?? 8123);

/** @typedef {string | { [conditionOrSubpath: string]: ExportsTarget } | null | undefined} ExportsTarget */
/** @typedef {{ exports?: ExportsTarget, module?: string, main?: string }} PackageJson */

/**
 * The ESM file a package's `exports` (or `module`/`main`) names for `subpath`, from its package.json.
 * @param {PackageJson} pkgJson
 * @param {string} subpath
 * @returns {string | undefined}
 */
function entryOf(pkgJson, subpath) {
  const exported = pkgJson.exports;
  let target = typeof exported === "string" ? (subpath === "." ? exported : undefined) : exported?.[subpath];
  while (target && typeof target === "object") target = target.import ?? target.browser ?? target.default;
  target ??= subpath === "." ? (pkgJson.module ?? pkgJson.main) : undefined;
  return typeof target === "string" ? target.replace(/^\.\//, "") : undefined;
}

/**
 * `"onemodelcontext/message-port"` → `"/dist/adapters/message_port/mod.js"`, and a dependency such as
 * `"@cfworker/json-schema"` → `"/node_modules/@cfworker/json-schema/dist/esm/index.js"`, each from its
 * package.json; `undefined` for a specifier that is not a package this server can serve.
 * @param {string} specifier
 * @returns {Promise<string | undefined>}
 */
async function resolveBare(specifier) {
  const parts = specifier.split("/");
  const pkg = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  const subpath = specifier === pkg ? "." : `.${specifier.slice(pkg.length)}`;
  if (pkg === name) {
    const target = entryOf({ exports }, subpath);
    if (!target) {
      throw new Error(
        `Package ${name} exports no ${JSON.stringify(subpath)} (imported as ${JSON.stringify(specifier)})`,
      );
    }
    return `/${target}`;
  }
  const dir = packageDir(pkg);
  if (dir === undefined) return undefined; // not an installed package (a name the browser resolves itself): left as written
  const target = entryOf(JSON.parse(await readFile(join(dir, "package.json"), "utf8")), subpath);
  return target && `/@modules/${pkg}/${target}`;
}

/**
 * The folder of the installed package `pkg`, searched as Node does: node_modules from `root` upwards.
 * @param {string} pkg
 * @returns {string | undefined}
 */
function packageDir(pkg) {
  for (let dir = root;; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", pkg);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The file a request path names: under the package, or under a dependency's folder for /@modules/NAME/…;
 * `undefined` outside them.
 * @param {string} path
 * @returns {string | undefined}
 */
function fileOf(path) {
  const modules = /^[/\\]@modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)(.*)$/.exec(path);
  const base = modules ? packageDir(modules[1].replaceAll("\\", "/")) : root;
  if (base === undefined) return undefined;
  const file = join(base, modules ? modules[2] : path);
  return file === base || file.startsWith(base.endsWith(sep) ? base : base + sep) ? file : undefined;
}

/**
 * `source` with each bare specifier this server can serve rewritten to its path.
 * @param {string} source
 * @returns {Promise<string>}
 */
async function rewriteImports(source) {
  const pattern = /(from\s*|import\s*\(\s*)(["'])([^"'./][^"':]*)\2/g;
  const specifiers = new Set([...source.matchAll(pattern)].map((m) => m[3]));
  const resolved = new Map();
  for (const specifier of specifiers) resolved.set(specifier, await resolveBare(specifier));
  /** @type {(whole: string, before: string, quote: string, specifier: string) => string} */
  const rewrite = (whole, before, quote, specifier) => {
    const target = resolved.get(specifier);
    return target ? `${before}${quote}${target}${quote}` : whole;
  };
  return source.replace(pattern, rewrite);
}

createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(
    /^(\.\.[/\\])+/,
    "",
  );
  const file = fileOf(path.endsWith("/") || path.endsWith(sep) ? path + "index.html" : path);
  if (file === undefined) {
    res.writeHead(403).end();
    return;
  }
  /** @type {Buffer | string} */
  let body;
  try {
    body = await readFile(file);
  } catch (error) {
    // A missing file is a 404 for the browser to show; say which one on this terminal too.
    console.error(`404 ${req.url}: ${error instanceof Error ? error.message : String(error)}`);
    res.writeHead(404).end("not found");
    return;
  }
  const type = types[extname(file)] ?? "application/octet-stream";
  if (type === "text/javascript") body = await rewriteImports(body.toString("utf8"));
  res.writeHead(200, { "content-type": type }).end(body);
}).listen(port, "127.0.0.1", () => console.log(`http://127.0.0.1:${port}/examples/browser/`));
