#!/usr/bin/env node
// @ts-check
/**
 * N replicas of an MCP server behind nginx on loopback, the way a scaled-out deployment runs them.
 *
 *   node examples/deploy/run.mjs [--replicas 3] [--port 8080] [--sessions] [--prefix DIR] [-- COMMAND ARGS...]
 *
 * Starts COMMAND (default: `node examples/everything/server.mjs`) N times with `--http PORT` on free
 * loopback ports, all sharing ONEMODELCONTEXT_STATE_KEY (generated when unset, so a request-state
 * token sealed by one replica opens on another), then nginx in the foreground with its own prefix
 * directory (default: a fresh temporary folder) on --port (default: a free one). Prints the URL;
 * Ctrl-C or SIGTERM stops nginx (graceful) and then the replicas (SIGTERM, each drains and exits).
 *
 * --redis URL (no pin): the default everything replicas get `--redis URL` and keep legacy sessions,
 * the events of resumable streams and relayed replies in Redis, so nginx round robin needs no pin
 * and a dead replica's sessions go on elsewhere (docs/resumability.md).
 *
 * --sessions renders the legacy session pin (see nginx.conf.template): replicas are named r1..rN
 * (REPLICA_NAME in their environment) and must start their session ids with `<name>.`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startNginx, startReplica } from "./deploy_kit.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function parseArgs(argv) {
  const options = { replicas: 3, port: undefined, sessions: false, prefix: undefined, command: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === "--replicas") options.replicas = Number(value());
    else if (arg === "--port") options.port = Number(value());
    else if (arg === "--prefix") options.prefix = value();
    else if (arg === "--sessions") options.sessions = true;
    else if (arg === "--redis") options.redis = value();
    else if (arg === "--") {
      options.command = argv.slice(i + 1);
      break;
    } else {throw new Error(
        `Unknown option ${
          JSON.stringify(arg)
        } (options: --replicas N, --port P, --sessions, --redis URL, --prefix DIR, -- COMMAND ARGS...)`,
      );}
  }
  if (!Number.isInteger(options.replicas) || options.replicas < 1) {
    throw new Error(`--replicas must be a positive integer, got ${options.replicas}`);
  }
  if (
    options.port !== undefined &&
    !(Number.isInteger(options.port) && options.port > 0 && options.port < 65536)
  ) throw new Error(`--port must be a TCP port, got ${options.port}`);
  if (options.command?.length === 0) throw new Error("-- must be followed by a command");
  return options;
}

/**
 * Starts the deployment; resolves with `{ url, nginx, replicas, stop() }`. Used by the CLI below and
 * by tests (with a stand-in replica command).
 */
export async function deploy(
  {
    replicas = 3,
    port,
    sessions = false,
    prefix,
    command,
    stateKey,
    env = {},
    upstreamKeepaliveTimeoutSeconds,
    upstreamHeader = false,
    replicaStartTimeoutMs,
    log = (line) => process.stderr.write(line),
  } = {},
) {
  const [executable, ...args] = command ?? [process.execPath, join(ROOT, "examples/everything/server.mjs")];
  const key = stateKey ?? process.env.ONEMODELCONTEXT_STATE_KEY ?? randomBytes(32).toString("hex");
  prefix ??= mkdtempSync(join(tmpdir(), "onemodelcontext-nginx-"));
  const started = [];
  const stopAll = async () => {
    await Promise.all(started.map((r) => r.stop("SIGTERM")));
  };
  try {
    const results = await Promise.allSettled(
      Array.from(
        { length: replicas },
        (_, i) =>
          startReplica({
            name: `r${i + 1}`,
            command: executable,
            args,
            env: { ...env, ONEMODELCONTEXT_STATE_KEY: key },
            log,
            startTimeoutMs: replicaStartTimeoutMs,
          }),
      ),
    );
    for (const result of results) if (result.status === "fulfilled") started.push(result.value);
    const failed = results.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    const nginx = await startNginx({
      prefix,
      port,
      sessions,
      replicas: started,
      upstreamKeepaliveTimeoutSeconds,
      upstreamHeader,
      log,
    });
    return {
      url: nginx.url,
      nginx,
      replicas: started,
      stateKey: key,
      async stop() {
        await nginx.stop();
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
  // --redis URL (no pin): the default replicas keep legacy sessions and stream events in Redis.
  if (options.redis && !options.command) {
    options.command = [
      process.execPath,
      join(ROOT, "examples/everything/server.mjs"),
      "--redis",
      options.redis,
    ];
  }
  const deployment = await deploy(options);
  console.log(
    `${deployment.replicas.length} replicas (${
      deployment.replicas.map((r) => `${r.name} :${r.port}`).join(", ")
    }) behind nginx`,
  );
  console.log(`MCP endpoint: ${deployment.url}/mcp   (nginx prefix: ${deployment.nginx.prefix})`);
  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal}: stopping nginx, then the replicas`);
    await deployment.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  deployment.nginx.exited.then(({ code, signal }) => {
    if (!stopping) {
      console.error(`nginx exited (${signal ?? `code ${code}`}); see ${deployment.nginx.prefix}/error.log`);
      stop("nginx exit");
    }
  });
}
