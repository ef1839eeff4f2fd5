/**
 * Independent MCP clients against our ContextServer in a real child process: the legacy-only SDK 1.32
 * client, and the dual-era SDK 2.4 client in its legacy, auto and pinned modes.
 */
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const FIXTURE = join(ROOT, "test/fixtures/ours/context_server_stdio.mjs");
const SERVER_INFO = { name: "ours-fixture", version: "0.1.0", title: "onemodelcontext fixture" };
let dir: string;
let counter = 0;

interface LogEntry {
  pid: number;
  [key: string]: unknown;
}

/** A fresh log file and the spawn parameters that make the fixture write to it. */
function fixture(): {
  params: { command: string; args: string[]; env: Record<string, string>; stderr: "pipe" };
  log: () => LogEntry[];
} {
  const path = join(dir, `log-${++counter}.jsonl`);
  return {
    params: {
      command: process.execPath,
      args: [FIXTURE],
      env: { ...(process.env as Record<string, string>), FIXTURE_LOG: path },
      stderr: "pipe",
    },
    log: () => {
      try {
        return readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
      } catch {
        return [];
      }
    },
  };
}

/** Waits (bounded) until `check` holds for the log; real processes exit on their own schedule. */
async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("Condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(() => {
  ensureDist();
  dir = mkdtempSync(join(tmpdir(), "omc-server-interop-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("SDK 1.32 Client against ContextServer", () => {
  it("connects in the legacy era; tools/list and tools/call work; the server exits on stdin EOF", async () => {
    const { params, log } = fixture();
    const transport = new LegacyStdioClientTransport(params);
    const stderr: string[] = [];
    transport.stderr?.on("data", (d) => stderr.push(String(d)));
    const client = new LegacyClient({ name: "sdk-1.32", version: "1.32.2" });
    await client.connect(transport);
    expect(client.getServerVersion()).toEqual(SERVER_INFO);
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
    expect(client.getInstructions()).toBe("A fixture server with one echo tool.");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["echo"]);
    // Progress is checked as the SDK received it: the SDK runs notification handlers a microtask
    // later but responses at once, so when the progress notification and the response arrive in one
    // read, onprogress is skipped ("unknown token"). That race is the SDK's; the wire is ours.
    const received: { method?: string; params?: unknown }[] = [];
    const onmessage = transport.onmessage!;
    transport.onmessage = (message) => {
      received.push(message as { method?: string });
      onmessage(message);
    };
    const result = await client.callTool({ name: "echo", arguments: { text: "hello, legacy" } }, undefined, {
      onprogress: () => {},
    });
    expect(result.content).toEqual([{ type: "text", text: "hello, legacy" }]);
    expect(received.filter((m) => m.method === "notifications/progress").map((m) => m.params)).toEqual([
      { progressToken: expect.anything(), progress: 1, total: 1, message: "echoing" },
    ]);
    await client.close();
    await eventually(() => log().some((e) => e.served !== undefined));
    const entries = log();
    expect(entries.filter((e) => e.method === "tools/list")).toEqual([
      expect.objectContaining({ era: "legacy", protocolVersion: "2025-11-25", client: "sdk-1.32" }),
    ]);
    expect(entries.some((e) => e.method === "notifications/initialized")).toBe(true);
    expect(entries.find((e) => e.served !== undefined)).toMatchObject({ served: "eof" });
    expect(stderr.join("")).toBe("");
  });
});

describe("SDK 2.4 Client against ContextServer", () => {
  async function connect(mode: "legacy" | "auto" | { pin: string }) {
    const fx = fixture();
    const transport = new StdioClientTransport(fx.params);
    const client = new Client({ name: "sdk-2.4", version: "2.4.0" }, {
      versionNegotiation: { mode, probe: { timeoutMs: 10_000 } },
    });
    await client.connect(transport);
    return { client, transport, ...fx };
  }

  async function exercise(client: Client): Promise<void> {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["echo"]);
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    expect(client.getServerVersion()).toMatchObject({ name: "ours-fixture", version: "0.1.0" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });
  }

  it("mode legacy → legacy era", async () => {
    const { client, log } = await connect("legacy");
    expect(client.getProtocolEra()).toBe("legacy");
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    await exercise(client);
    await client.close();
    await eventually(() => log().some((e) => e.served !== undefined));
    const entries = log();
    expect(entries.filter((e) => e.in !== undefined).map((e) => e.in)).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/list",
      "tools/call",
    ]);
    expect(entries.filter((e) => e.era).map((e) => e.era)).toEqual(["legacy", "legacy"]);
  });

  it("mode auto → modern era; the probe sibling answered discover and was stopped calmly", async () => {
    const { client, log } = await connect("auto");
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(client.getDiscoverResult()).toMatchObject({
      supportedVersions: ["2026-07-28"],
      ttlMs: 0,
      cacheScope: "private",
    });
    await exercise(client);
    await client.close();
    await eventually(() =>
      new Set(log().filter((e) => e.served !== undefined || e.signal !== undefined).map((e) => e.pid))
        .size === 2
    );
    const entries = log();
    const pids = [...new Set(entries.map((e) => e.pid))];
    expect(pids).toHaveLength(2);
    const [sibling, session] = pids.map((pid) => entries.filter((e) => e.pid === pid));
    // The sibling saw only the probe, then went away (SIGTERM or stdin EOF) without any failure.
    expect(sibling.filter((e) => e.in !== undefined).map((e) => e.in)).toEqual(["server/discover"]);
    expect(sibling.some((e) => e.signal === "SIGTERM" || e.served === "eof")).toBe(true);
    expect(sibling.some((e) => e.served === "fault")).toBe(false);
    // The session process served modern requests, no initialize.
    expect(session.some((e) => e.in === "initialize")).toBe(false);
    expect(session.filter((e) => e.era).map((e) => [e.method, e.era, e.protocolVersion])).toEqual([
      ["tools/list", "modern", "2026-07-28"],
      ["tools/call", "modern", "2026-07-28"],
    ]);
  });

  it("mode { pin: 2026-07-28 } → modern era", async () => {
    const { client, log } = await connect({ pin: "2026-07-28" });
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    await exercise(client);
    await client.close();
    await eventually(() => log().some((e) => e.served !== undefined || e.signal !== undefined));
    const eras = log().filter((e) => e.era).map((e) => e.era);
    expect(eras).toEqual(["modern", "modern"]);
  });
});
