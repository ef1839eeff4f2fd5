// Serves the repository on http://127.0.0.1:PORT (default 8123) for the browser example. Run
// `npm run build` first, then open http://127.0.0.1:8123/examples/browser/
//
// The example imports the package by name ("onemodelcontext", "onemodelcontext/message-port"), as an
// application would. A browser cannot resolve a bare name by itself, and a module Worker ignores the
// page's import map, so this server does what a bundler or a dev server does: in the example's own
// scripts it rewrites each `from "onemodelcontext…"` to the file the package's `exports` name.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const examples = fileURLToPath(new URL("..", import.meta.url));
const { name, exports } = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
const types = { ".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript", ".json": "application/json" };
const port = Number(process.env.PORT ?? 8123);

/** `"onemodelcontext/message-port"` → `"/dist/adapters/message_port/mod.js"`, from package.json `exports`. */
function resolveBare(specifier) {
  const subpath = specifier === name ? "." : `.${specifier.slice(name.length)}`;
  const target = exports[subpath]?.default;
  if (!target) throw new Error(`Package ${name} exports no ${JSON.stringify(subpath)} (imported as ${JSON.stringify(specifier)})`);
  return target.slice(1);
}

function rewriteImports(source) {
  const pattern = new RegExp(`(from\\s*|import\\s*\\(\\s*)(["'])(${name}(?:/[\\w-]+)?)\\2`, "g");
  return source.replace(pattern, (_, before, quote, specifier) => `${before}${quote}${resolveBare(specifier)}${quote}`);
}

createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
  const file = join(root, path.endsWith("/") ? path + "index.html" : path);
  if (!file.startsWith(root)) return res.writeHead(403).end();
  let body;
  try {
    body = await readFile(file);
  } catch (error) {
    // A missing file is a 404 for the browser to show; say which one on this terminal too.
    console.error(`404 ${req.url}: ${error.message}`);
    return res.writeHead(404).end("not found");
  }
  const type = types[extname(file)] ?? "application/octet-stream";
  if (file.startsWith(examples) && type === "text/javascript") body = rewriteImports(body.toString("utf8"));
  res.writeHead(200, { "content-type": type }).end(body);
}).listen(port, "127.0.0.1", () => console.log(`http://127.0.0.1:${port}/examples/browser/`));
