/** The `onemodelcontext` CLI as a user runs it: the built bin, real server processes. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { spawnProcess } from "../../adapters/node/mod.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const BIN = join(ROOT, "dist/cli/main.js");

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => ensureDist(), 120_000);

describe("onemodelcontext CLI", () => {
  it("with no command inspects the bundled demo server and calls its echo tool", () => {
    const r = cli();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("onemodelcontext demo server");
    expect(r.stdout).toMatch(/Era\s+modern \(protocol 2026-07-28\)/);
    expect(r.stdout).toContain("echo");
    expect(r.stdout).toContain("hello from onemodelcontext");
    expect(r.stderr).toMatch(/connected: modern era/);
    expect(r.stdout).not.toMatch(/\[\s*\d+ ms\]/); // phase lines go to stderr only
  });

  it("inspect --json prints one JSON document with how the era was decided", () => {
    const r = cli("inspect", "--json");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.era).toBe("modern");
    expect(report.negotiation.outcome).toBe("discovered_modern");
    expect(typeof report.negotiation.elapsedMs).toBe("number");
    expect(report.tools.map((t: { name: string }) => t.name)).toEqual(["echo", "add", "count_slowly"]);
    expect(report.prompts).toHaveLength(1);
    expect(report.resources).toHaveLength(1);
  });

  it("--era legacy connects through initialize", () => {
    const r = cli("inspect", "--json", "--era", "legacy");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.era).toBe("legacy");
    expect(report.protocolVersion).toBe("2025-11-25");
  });

  it("call runs one tool and prints its result; --json wraps it", () => {
    const plain = cli("call", "add", '{"a":2,"b":40}');
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim()).toBe("42");
    const json = cli("call", "echo", '{"text":"x"}', "--json");
    expect(JSON.parse(json.stdout)).toEqual({
      tool: "echo",
      result: { content: [{ type: "text", text: "x" }], resultType: "complete", _meta: expect.any(Object) },
    });
  });

  it("exits 4 on a tool error and on an unknown tool", () => {
    expect(cli("call", "add", '{"a":"no"}').code).toBe(4);
    const unknown = cli("call", "nope");
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain("Unknown tool: nope");
  });

  it("exits 2 on usage errors", () => {
    expect(cli("bogus").code).toBe(2);
    expect(cli("call").code).toBe(2);
    expect(cli("call", "echo", "{not json").code).toBe(2);
    expect(cli("inspect", "--era", "future").code).toBe(2);
    expect(cli("inspect", "--").code).toBe(2);
  });

  it("exits 3 when the server dies and shows its stderr tail on stderr, not stdout", () => {
    const r = cli("inspect", "--", "sh", "-c", "echo 'fatal: no config' >&2; exit 7");
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("Connection failed");
    expect(r.stderr).toContain("fatal: no config");
    expect(r.stdout).toBe("");
  });

  it("talks to any server command after --, here the demo server on Deno", () => {
    const deno = join(ROOT, "node_modules/.bin/deno");
    const r = cli(
      "call",
      "echo",
      '{"text":"from deno"}',
      "--",
      deno,
      "run",
      "-A",
      join(ROOT, "examples/demo_server.mjs"),
    );
    expect(r.stderr).toMatch(/connected: modern era/);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("from deno");
  });

  it("demo serves the demo server on stdin/stdout to any MCP client", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const client = await ContextClient.connect(spawnProcess(process.execPath, [BIN, "demo"]), {
        era,
        eraCache: new EraCache(),
      });
      try {
        expect(client.era).toBe(era);
        const result = (await client.request("tools/call", { name: "echo", arguments: { text: era } })) as {
          content: { text: string }[];
        };
        expect(result.content[0]!.text).toBe(era);
      } finally {
        await client.close();
      }
    }
  });
});
