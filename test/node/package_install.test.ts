/**
 * The package as a user installs it: `npm pack` (its `prepack` builds dist/ from a clean slate) of a copy
 * of the sources, then `npm install <tarball>` into an empty project, which imports every entry point
 * on Node, Deno and Bun and runs the bin. The runtime dependencies resolve from the npm cache that
 * `npm ci` filled (`--prefer-offline`).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/ours/build_dist.ts";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
};
const SUBPATHS = Object.keys(pkg.exports);
/** Entry points each runtime can load: the Deno and Bun adapters need their runtime's globals. */
const ENTRIES = {
  node: SUBPATHS.filter((s) => s !== "./deno" && s !== "./bun"),
  deno: SUBPATHS.filter((s) => s !== "./bun"),
  bun: SUBPATHS.filter((s) => s !== "./deno"),
};
const specifier = (
  subpath: string,
): string => (subpath === "." ? "onemodelcontext" : `onemodelcontext/${subpath.slice(2)}`);

/** The `// server.ts` and `// client.ts` blocks of a Markdown file, each with the runtime its imports name. */
function examplePairs(file: string): { runtime: string; file: string; code: string }[] {
  const markdown = readFileSync(join(ROOT, file), "utf8");
  const found: { runtime: string; file: string; code: string }[] = [];
  for (const m of markdown.matchAll(/```ts\n(\/\/ (server|client)\.ts\b[^\n]*\n[\s\S]*?)```/g)) {
    const code = m[1]!;
    const runtime = /onemodelcontext\/deno/.test(code)
      ? "deno"
      : /onemodelcontext\/bun/.test(code)
      ? "bun"
      : /onemodelcontext\/node/.test(code)
      ? "node"
      : "other";
    found.push({ runtime, file: `${m[2]}.ts`, code });
  }
  return found;
}

/** The README's first example: its shell lines, its tsconfig.json and its server and client. */
function readmeFirstExample(): { commands: string[][]; tsconfig: string; server: string; client: string } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(
    readme.indexOf("## A first server and client"),
    readme.indexOf("## Over HTTP"),
  );
  const sh = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const commands = sh.split("\n").map((line) => line.replace(/#.*$/, "").trim()).filter(Boolean)
    .map((line) => line.split(/\s+/));
  const tsconfig = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const pair = examplePairs("README.md").filter((b) => b.runtime === "node");
  return {
    commands,
    tsconfig,
    server: pair.find((b) => b.file === "server.ts")?.code ?? "",
    client: pair.find((b) => b.file === "client.ts")?.code ?? "",
  };
}

/** examples/browser/serve.mjs as installed, on a free port; resolves once it prints its URL. */
async function serveInstalledBrowserExample(): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, [
    join(project, "node_modules/onemodelcontext/examples/browser/serve.mjs"),
  ], {
    cwd: project,
    env: { ...process.env, PORT: String(21_000 + (process.pid % 9_000)) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").once("data", (d: string) => resolve(d));
    child.once("exit", (code) => reject(new Error(`serve.mjs exited (${code}): ${stderr}`)));
  });
  return { url: new URL("/", line.trim()), child };
}

/** The text of `#out` once the browser example's page says "done", in headless Chromium. */
async function openInChromium(url: string): Promise<string> {
  const { chromium } = await import("playwright");
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(url);
    await page.waitForFunction(() => document.querySelector("#out")?.textContent?.includes("done"), null, {
      timeout: 30_000,
    });
    expect(errors).toEqual([]);
    return (await page.textContent("#out")) ?? "";
  } finally {
    await browser.close();
  }
}

let work: string;
let project: string;
let tarball: string;
let packedFiles: string[];

/** The environment for a nested npm: none of the npm_* variables of an `npm test` that runs this. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  return { ...env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
}

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, {
      cwd,
      env: npmEnv(),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 240_000,
    });
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(" ")} failed (exit ${e.status}): ${e.message}\n${e.stdout ?? ""}\n${
        e.stderr ?? ""
      }`,
    );
  }
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "onemodelcontext-install-"));
  // A copy of what a clone has (minus tests), so that prepack's clean build never touches this tree's dist/.
  const copy = join(work, "package");
  mkdirSync(copy);
  for (
    const entry of [
      "package.json",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "tsconfig.json",
      "tsconfig.build.json",
      "src",
      "adapters",
      "testing",
      "cli",
      "examples",
      "scripts",
    ]
  ) {
    if (existsSync(join(ROOT, entry))) {
      cpSync(join(ROOT, entry), join(copy, entry), {
        recursive: true,
        filter: (p) => !p.includes("/.cache"),
      });
    }
  }
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], copy)) as {
    filename: string;
    files: { path: string }[];
  }[];
  packedFiles = packed[0]!.files.map((f) => f.path);
  tarball = join(work, packed[0]!.filename);
  project = join(work, "project");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }),
  );
  // jose is an optional peer dependency: a user of onemodelcontext/auth/jwt installs it beside the package.
  const jose = `jose@${JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies.jose}`;
  run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball, jose],
    project,
  );
  for (const [runtime, subpaths] of Object.entries(ENTRIES)) {
    const lines = subpaths.map((s, i) => `import * as m${i} from ${JSON.stringify(specifier(s))};`);
    lines.push(
      `console.log(JSON.stringify({ ${
        subpaths.map((s, i) => `${JSON.stringify(s)}: Object.keys(m${i}).length`).join(", ")
      } }));`,
    );
    writeFileSync(join(project, `imports_${runtime}.mjs`), `${lines.join("\n")}\n`);
  }
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("ships dist/, the examples the CLI runs and the README, built by prepack, and no tests or sources", () => {
    expect(packedFiles).toContain("dist/src/mod.js");
    expect(packedFiles).toContain("dist/src/mod.d.ts");
    expect(packedFiles).toContain("dist/cli/main.js");
    expect(packedFiles).toContain("examples/demo_server.mjs");
    expect(packedFiles).toContain("examples/demo_tools.mjs");
    expect(packedFiles).toContain("README.md");
    expect(packedFiles.filter((f) => /^(test|src|adapters|cli|testing)\/|\.test\.|^dist\/test\//.test(f)))
      .toEqual([]);
    expect(packedFiles.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it("installs into an empty project with its runtime dependencies", () => {
    for (const dependency of Object.keys(pkg.dependencies)) {
      expect(existsSync(join(project, "node_modules", dependency, "package.json"))).toBe(true);
    }
    expect(existsSync(join(project, "node_modules/onemodelcontext/dist/src/mod.js"))).toBe(true);
  });

  it("imports every entry point on Node", () => {
    const counts = JSON.parse(run(process.execPath, ["imports_node.mjs"], project)) as Record<string, number>;
    expect(Object.keys(counts)).toEqual(ENTRIES.node);
    for (const count of Object.values(counts)) expect(count).toBeGreaterThan(0);
  });

  it("imports every entry point on Deno", () => {
    const counts = JSON.parse(
      run(join(ROOT, "node_modules/.bin/deno"), [
        "run",
        "-A",
        "--no-config",
        "--node-modules-dir=manual",
        "imports_deno.mjs",
      ], project),
    ) as Record<string, number>;
    expect(Object.keys(counts)).toEqual(ENTRIES.deno);
    for (const count of Object.values(counts)) expect(count).toBeGreaterThan(0);
  });

  it("imports every entry point on Bun", () => {
    const counts = JSON.parse(
      run(join(ROOT, "node_modules/.bin/bun"), ["imports_bun.mjs"], project),
    ) as Record<string, number>;
    expect(Object.keys(counts)).toEqual(ENTRIES.bun);
    for (const count of Object.values(counts)) expect(count).toBeGreaterThan(0);
  });

  it("follows the README's first example as written: npm init -y, its settings, its server and client", () => {
    const example = readmeFirstExample();
    const dir = join(work, "first");
    mkdirSync(dir);
    const versions = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies;
    run("npm", ["init", "-y"], dir);
    expect(example.commands.length).toBeGreaterThanOrEqual(3);
    for (const [npm, ...args] of example.commands) {
      expect(npm).toBe("npm");
      // The install line names the tarball this test packed; the dev tools are the versions this
      // repository pins, so that the test does not follow the registry's latest.
      const resolved = args.map((arg) =>
        arg.endsWith(".tgz") ? tarball : arg in versions ? `${arg}@${versions[arg]}` : arg
      );
      const offline = resolved[0] === "install" ? ["--prefer-offline", "--no-audit", "--no-fund"] : [];
      run("npm", [...resolved, ...offline], dir);
    }
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg.type).toBe("module");
    expect(Object.keys(pkg.dependencies)).toContain("onemodelcontext");
    writeFileSync(join(dir, "tsconfig.json"), example.tsconfig);
    writeFileSync(join(dir, "server.ts"), example.server);
    writeFileSync(join(dir, "client.ts"), example.client);
    run(join(dir, "node_modules/.bin/tsc"), [], dir); // `npx tsc`
    const r = spawnSync(process.execPath, ["client.js"], { cwd: dir, encoding: "utf8", timeout: 120_000 });
    expect(`exit ${r.status}: ${r.stderr}`).toBe(`exit 0: ${r.stderr}`);
    expect(r.stdout).toMatch(/^connected: (modern|legacy) era, \d{4}-\d{2}-\d{2}$/m);
    expect(r.stdout).toContain("[ 'echo' ]");
    expect(r.stdout).toMatch(/text: 'You said: hi'/);
  });

  it("runs the Deno and Bun examples of docs/runtimes.md", () => {
    const blocks = examplePairs("docs/runtimes.md");
    const path = `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`;
    const runtimes = [
      {
        name: "deno",
        dir: "runtimes-deno",
        client: [join(ROOT, "node_modules/.bin/deno"), "run", "-A", "client.ts"],
      },
      { name: "bun", dir: "runtimes-bun", client: [join(ROOT, "node_modules/.bin/bun"), "client.ts"] },
    ];
    for (const runtime of runtimes) {
      const pair = blocks.filter((b) => b.runtime === runtime.name);
      expect(pair.map((b) => b.file), runtime.name).toEqual(["server.ts", "client.ts"]);
      const dir = join(project, runtime.dir);
      mkdirSync(dir);
      symlinkSync(join(project, "node_modules"), join(dir, "node_modules"), "dir");
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({ name: `runtimes-${runtime.name}`, private: true, type: "module" }),
      );
      for (const block of pair) writeFileSync(join(dir, block.file), block.code);
      const r = spawnSync(runtime.client[0]!, runtime.client.slice(1), {
        cwd: dir,
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, PATH: path },
      });
      expect(`${runtime.name} exit ${r.status}: ${r.stderr}`).toBe(`${runtime.name} exit 0: ${r.stderr}`);
      expect(r.stdout, runtime.name).toMatch(/\[ ["']echo["'] \]/);
      expect(r.stdout, runtime.name).toMatch(/You said: hi/);
    }
  });

  // Issue 29.6: the browser example failed to resolve @cfworker/json-schema from an installed package
  // (its server looked for dependencies inside the package's folder; npm puts them beside it).
  it("serves the browser example from the installed package: every module the page and the Worker import resolves", async () => {
    const served = await serveInstalledBrowserExample();
    try {
      const seen = new Map<string, number>();
      const queue = ["examples/browser/page.mjs", "examples/browser/worker.mjs"].map((p) =>
        new URL(p, served.url)
      );
      while (queue.length > 0) {
        const url = queue.shift()!;
        if (seen.has(url.href)) continue;
        const response = await fetch(url);
        seen.set(url.href, response.status);
        if (!response.ok) continue;
        expect(response.headers.get("content-type"), url.href).toBe("text/javascript");
        const source = await response.text();
        for (const m of source.matchAll(/(?:from\s*|import\s*\(\s*)["']([^"']+)["']/g)) {
          const specifier = m[1]!;
          expect(/^(\.{1,2}\/|\/)/.test(specifier), `bare import ${specifier} left in ${url.pathname}`).toBe(
            true,
          );
          queue.push(new URL(specifier, url));
        }
      }
      expect([...seen].filter(([, status]) => status !== 200)).toEqual([]);
      expect([...seen.keys()].some((u) => u.includes("/@modules/@cfworker/json-schema/"))).toBe(true);
      if (existsSync(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium")) {
        const text = await openInChromium(new URL("examples/browser/", served.url).href);
        expect(text).toContain("modern 2026-07-28 worker-demo: tools=shout -> HELLO FROM THE MODERN ERA");
        expect(text).toContain("legacy 2025-11-25 worker-demo: tools=shout -> HELLO FROM THE LEGACY ERA");
      }
    } finally {
      served.child.kill();
    }
  });

  it("runs its bin: the CLI calls the bundled demo server's echo tool", () => {
    const r = spawnSync(join(project, "node_modules/.bin/onemodelcontext"), [
      "call",
      "echo",
      '{"text":"installed"}',
    ], { cwd: project, encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toMatch(/connected: modern era/);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe("installed");
  });
});
