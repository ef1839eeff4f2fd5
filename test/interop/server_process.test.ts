// deno-lint-ignore-file no-explicit-any -- tests reach into loosely typed peer objects
/**
 * Our ContextServer in a real Node child process, driven with raw JSON lines: probed and then killed,
 * a first message that is an ordinary modern request, stdin EOF with a request in flight, and a
 * client that stops reading.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const FIXTURE = join(ROOT, "test/fixtures/ours/context_server_stdio.mjs");
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

interface Child {
  child: ChildProcessWithoutNullStreams;
  send(message: unknown): void;
  next(): Promise<Record<string, any>>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

function start(env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d) => (err += String(d)));
  child.stdin.on("error", () => {}); // EPIPE once the child is gone
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal }))
  );
  return {
    child,
    send: (message) => child.stdin.write(JSON.stringify(message) + "\n"),
    next: async () => {
      const { value, done } = await lines.next();
      if (done) throw new Error("The server closed its output");
      return JSON.parse(value);
    },
    exit,
    stderr: () => err,
  };
}

beforeAll(() => ensureDist());

describe("ContextServer in a real process", () => {
  for (const defaultSigterm of [false, true]) {
    it(`answers server/discover first and takes a SIGTERM right after calmly (${defaultSigterm ? "Node's default SIGTERM" : "SIGTERM handler"})`, async () => {
      const server = start(defaultSigterm ? { FIXTURE_DEFAULT_SIGTERM: "1" } : {});
      server.send({
        jsonrpc: "2.0",
        id: "server-discover-probe-1",
        method: "server/discover",
        params: { _meta: ENVELOPE },
      });
      const reply = await server.next();
      expect(reply.result).toMatchObject({ resultType: "complete", supportedVersions: ["2026-07-28"] });
      server.child.kill("SIGTERM");
      const exit = await server.exit;
      expect(defaultSigterm ? exit.signal : exit.code).toBe(defaultSigterm ? "SIGTERM" : 0);
      expect(server.stderr()).toBe("");
    });
  }

  it("takes a SIGTERM that lands while the probe is still being answered", async () => {
    const server = start();
    server.send({ jsonrpc: "2.0", id: "p", method: "server/discover", params: { _meta: ENVELOPE } });
    server.child.kill("SIGTERM");
    // Before the fixture installs its handler Node dies by the signal; after, it exits 0. Both are calm.
    const exit = await server.exit;
    expect(exit.code === 0 || exit.signal === "SIGTERM").toBe(true);
    expect(server.stderr()).toBe("");
  });

  it("serves a session whose first message is an ordinary modern request, then exits on stdin EOF", async () => {
    const server = start();
    server.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "first" }, _meta: ENVELOPE },
    });
    const reply = await server.next();
    expect(reply).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        content: [{ type: "text", text: "first" }],
        resultType: "complete",
        _meta: {
          "io.modelcontextprotocol/serverInfo": {
            name: "ours-fixture",
            version: "0.1.0",
            title: "onemodelcontext fixture",
          },
        },
      },
    });
    server.child.stdin.end();
    expect(await server.exit).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toBe("");
  });

  it("finishes a request in flight after stdin EOF (half-close), then exits", async () => {
    const server = start();
    server.send({
      jsonrpc: "2.0",
      id: 7,
      method: "slow/echo",
      params: { text: "late", ms: 300, _meta: ENVELOPE },
    });
    server.child.stdin.end();
    const reply = await server.next();
    expect(reply.id).toBe(7);
    expect(reply.result).toMatchObject({ echoed: "late", era: "modern", resultType: "complete" });
    expect((await server.exit).code).toBe(0);
  });

  it("answers a pre-initialize request without envelope with -32602 and keeps serving", async () => {
    const server = start();
    server.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    expect((await server.next()).error.code).toBe(-32602);
    server.send({
      jsonrpc: "2.0",
      id: 2,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    expect((await server.next()).result.protocolVersion).toBe("2025-06-18");
    server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    server.send({ jsonrpc: "2.0", id: 3, method: "tools/list", params: {} });
    expect((await server.next()).result.tools).toHaveLength(1);
    server.child.stdin.end();
    expect((await server.exit).code).toBe(0);
  });

  it("exits calmly when the client stops reading and goes away with a reply pending", async () => {
    const server = start();
    server.send({
      jsonrpc: "2.0",
      id: 1,
      method: "slow/echo",
      params: { text: "x".repeat(100_000), ms: 100, _meta: ENVELOPE },
    });
    server.child.stdout.destroy(); // the client's read end is gone: the reply hits EPIPE
    server.child.stdin.end();
    const exit = await server.exit;
    expect(exit.signal).toBeNull();
    expect(server.stderr()).not.toMatch(/Unhandled| {4}at /);
  });
});
