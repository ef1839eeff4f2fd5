// @ts-check
/**
 * The parts of examples/deploy/run.mjs, importable by tests: free loopback ports, the nginx
 * configuration, nginx in the foreground with its own prefix directory, and replica processes.
 * Node only (node:child_process, node:net); nothing here is part of the library.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";

export const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";
const TEMPLATE = new URL("./nginx.conf.template", import.meta.url);

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`; rejects after `timeoutMs`, naming `what`. */
export async function waitForPort(port, { timeoutMs = 10_000, what = `port ${port}`, exited } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited?.()) throw new Error(`${what} exited before it accepted connections on 127.0.0.1:${port}`);
    const ok = await new Promise((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) {
      throw new Error(`${what} did not accept connections on 127.0.0.1:${port} within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The nginx configuration for `replicas` (`[{ name, port }]`) behind 127.0.0.1:`port`, from
 * nginx.conf.template. `sessions: true` adds the legacy session pin: a request whose Mcp-Session-Id
 * starts with `<name>.` goes to that replica; everything else round robin. `sessions: "hash"` renders
 * `hash $http_mcp_session_id consistent` instead, the pin that does not work (kept to show why).
 */
export function renderNginxConfig(
  {
    prefix,
    port,
    replicas,
    sessions = false,
    readTimeoutSeconds = 3600,
    upstreamKeepaliveTimeoutSeconds = 4,
    upstreamHeader = false,
  },
) {
  const server = (r) => `    server 127.0.0.1:${r.port} max_fails=1 fail_timeout=2s;`;
  const values = {
    PREFIX: prefix,
    LISTEN: `127.0.0.1:${port}`,
    SERVERS: replicas.map(server).join("\n"),
    BALANCE: sessions === "hash" ? "    hash $http_mcp_session_id consistent;" : "",
    SESSION_ROUTES: sessions === true
      ? replicas.map((r) => `    ~^${r.name}\\. mcp_${r.name};`).join("\n")
      : "",
    REPLICA_UPSTREAMS: sessions === true
      ? replicas.map((r) =>
        `  upstream mcp_${r.name} {\n    server 127.0.0.1:${r.port};\n    keepalive 8;\n    keepalive_timeout ${upstreamKeepaliveTimeoutSeconds}s;\n  }`
      ).join("\n")
      : "",
    READ_TIMEOUT: String(readTimeoutSeconds),
    UPSTREAM_KEEPALIVE_TIMEOUT: String(upstreamKeepaliveTimeoutSeconds),
    SESSION_GONE: sessions === true
      ? [
        "      error_page 502 = @replica_gone;",
        "    }",
        "",
        "    location @replica_gone {",
        "      default_type application/json;",
        "      if ($http_mcp_session_id) {",
        '        return 404 \'{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found: its replica is gone"}}\';',
        "      }",
        "      return 502;",
      ].join("\n")
      : "",
    DEBUG_HEADERS: upstreamHeader ? "      add_header X-Upstream-Addr $upstream_addr;" : "",
  };
  return readFileSync(TEMPLATE, "utf8")
    .split("\n")
    .filter((line) => !(line.startsWith("#") && line.includes("{{"))) // the template's own notes
    .join("\n")
    .replace(/\{\{(\w+)\}\}/g, (_, name) => {
      if (!(name in values)) throw new Error(`nginx.conf.template has an unknown placeholder {{${name}}}`);
      return values[name];
    });
}

/**
 * Starts nginx in the foreground (`daemon off`, `-p prefix -c prefix/nginx.conf`), never as a
 * service; resolves once it accepts connections. `stop()` sends SIGQUIT (graceful) and then SIGKILL
 * after 5 s; it resolves when nginx has exited.
 */
export async function startNginx(
  {
    prefix,
    replicas,
    port,
    sessions = false,
    readTimeoutSeconds,
    upstreamKeepaliveTimeoutSeconds,
    upstreamHeader,
    log = () => {},
  },
) {
  if (!existsSync(NGINX)) {
    throw new Error(
      `nginx is not installed at ${NGINX}: install Debian's nginx (apt-get install -y nginx; .ci/run installs it when missing), or set NGINX_PATH`,
    );
  }
  port ??= await freePort();
  mkdirSync(prefix, { recursive: true });
  const config = join(prefix, "nginx.conf");
  writeFileSync(
    config,
    renderNginxConfig({
      prefix,
      port,
      replicas,
      sessions,
      readTimeoutSeconds,
      upstreamKeepaliveTimeoutSeconds,
      upstreamHeader,
    }),
  );
  const child = spawn(NGINX, ["-p", prefix, "-c", config, "-e", join(prefix, "error.log")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stdout.on("data", (chunk) => log(String(chunk)));
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    log(String(chunk));
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  let done = false;
  exited.then(() => (done = true));
  try {
    await waitForPort(port, { what: "nginx", exited: () => done });
  } catch (error) {
    child.kill("SIGKILL");
    const errorLog = existsSync(join(prefix, "error.log"))
      ? readFileSync(join(prefix, "error.log"), "utf8")
      : "";
    throw new Error(`${error.message}\nnginx stderr: ${stderr}\nerror.log: ${errorLog}`);
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    prefix,
    child,
    exited,
    async stop() {
      if (done) return exited;
      child.kill("SIGQUIT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/**
 * Starts one replica: `command args... --http PORT` (or the port in `env.PORT` for stand-ins), with
 * `env` added to this process's environment; resolves once it accepts connections on its port.
 */
export async function startReplica(
  { name, command = process.execPath, args, port, env = {}, log = () => {}, startTimeoutMs = 10_000 },
) {
  port ??= await freePort();
  const child = spawn(command, [...args, "--http", String(port)], {
    env: { ...process.env, ...env, REPLICA_NAME: name, ONEMODELCONTEXT_REPLICA: name },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk) => {
    output += chunk;
    log(`[${name}] ${chunk}`);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  let done = false;
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  exited.then(() => (done = true));
  try {
    await waitForPort(port, { what: `replica ${name}`, exited: () => done, timeoutMs: startTimeoutMs });
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${error.message}\n${name} output: ${output}`);
  }
  return {
    name,
    port,
    child,
    exited,
    output: () => output,
    /** Sends `signal` (default SIGTERM) and resolves with the exit, SIGKILL after `graceMs`. */
    async stop(signal = "SIGTERM", graceMs = 10_000) {
      if (done) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}
