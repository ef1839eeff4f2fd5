/** The CLI's targets: a stdio command (with -e and --cwd), an HTTP URL (with --header), a host's config file. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";
import { cli, DEMO, FIXTURES, startHttpEverything, startHttpServer } from "./cli_helpers.ts";

let http: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  ensureDist();
  http = await startHttpEverything();
}, 120_000);
afterAll(async () => {
  await http?.stop();
});

describe("CLI targets", () => {
  it("-e passes environment variables to the stdio server", () => {
    const script =
      'test "$CLI_SERVER_OK" = yes || { echo "CLI_SERVER_OK is not set" >&2; exit 9; }; exec node "$0"';
    const withEnv = cli("ping", "-q", "-e", "CLI_SERVER_OK=yes", "--", "sh", "-c", script, DEMO);
    expect(withEnv.stdout).toMatch(/The server answered (ping|server\/discover) in/);
    expect(withEnv.code).toBe(0);
    const without = cli("ping", "-q", "--", "sh", "-c", script, DEMO);
    expect(without.code).toBe(3);
    expect(without.stderr).toContain("CLI_SERVER_OK is not set");
  });

  it("--cwd runs the stdio server in that folder", () => {
    const r = cli("ping", "-q", "--cwd", join(ROOT, "examples/everything"), "--", "node", "server.mjs");
    expect(r.code).toBe(0);
    expect(cli("ping", "-q", "--", "node", "server.mjs").code).toBe(3); // not found from the repository root
  });

  it("an http URL after -- or --url is a Streamable HTTP target, modern and legacy", () => {
    const modern = JSON.parse(cli("inspect", "--json", "-q", "--", http.url).stdout);
    expect(modern.era).toBe("modern");
    expect(modern.tools.length).toBeGreaterThan(20);
    const legacy = cli(
      "call",
      "test_simple_text",
      "-q",
      "--era",
      "legacy",
      "--url",
      http.url,
      "--header",
      "X-Anything: yes",
    );
    expect(legacy.code).toBe(0);
    expect(legacy.stdout.trim()).toBe("This is a simple text response for testing.");
  });

  it("--header is sent with every request, in both eras", async () => {
    const keyed = await startHttpServer([join(FIXTURES, "keyed_http_server.mjs")]);
    try {
      for (const era of ["modern", "legacy"]) {
        const ok = cli(
          "call",
          "echo",
          "text=in",
          "-q",
          "--era",
          era,
          "--url",
          keyed.url,
          "--header",
          "X-Api-Key: secret",
        );
        expect(ok.stdout.trim()).toBe("in");
        expect(ok.code).toBe(0);
      }
      const without = cli("call", "echo", "text=in", "-q", "--url", keyed.url);
      expect(without.code).toBe(3);
      expect(without.stderr).toContain("401");
    } finally {
      await keyed.stop();
    }
  });

  it("an unreachable URL is a connection failure (exit 3)", () => {
    const r = cli("ping", "-q", "--url", "http://127.0.0.1:9/mcp");
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Connection failed/);
  });

  it("--config --server reads a Claude Desktop mcpServers entry (command, args, cwd relative to the file, env)", () => {
    const file = join(FIXTURES, "claude_desktop_config.json");
    const read = cli("read", "test://static-text", "-q", "--config", file, "--server", "everything");
    expect(read.code).toBe(0);
    expect(read.stdout).toContain("This is the content of the static text resource.");
    const call = cli("call", "add", "a=1", "b=2", "-q", "--config", file, "--server", "demo");
    expect(call.stdout.trim()).toBe("3");
  });

  it("--config reads VS Code's servers key, and picks the only entry without --server", () => {
    const r = cli("inspect", "--json", "-q", "--config", join(FIXTURES, "vscode_mcp.json"));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).serverInfo.name).toBe("onemodelcontext-everything");
  });

  it("--config reads url and headers entries of type http and streamable-http", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-config-"));
    const file = join(dir, "mcp.json");
    const keyed = await startHttpServer([join(FIXTURES, "keyed_http_server.mjs")]);
    try {
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            web: { type: "streamable-http", url: keyed.url, headers: { "X-Api-Key": "secret" } },
            plain: { type: "http", url: http.url },
            nokey: { url: keyed.url },
          },
        }),
      );
      const web = cli("call", "echo", "text=via config", "-q", "--config", file, "--server", "web");
      expect(web.stdout.trim()).toBe("via config");
      expect(cli("ping", "-q", "--config", file, "--server", "plain").code).toBe(0);
      expect(cli("ping", "-q", "--config", file, "--server", "nokey").code).toBe(3);
    } finally {
      await keyed.stop();
    }
  });

  it("config mistakes are usage errors (exit 2) that name the problem", () => {
    const file = join(FIXTURES, "claude_desktop_config.json");
    const ambiguous = cli("ping", "--config", file);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("pick one with --server NAME (everything, demo)");
    const missing = cli("ping", "--config", file, "--server", "nope");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('has no server "nope"');
    expect(cli("ping", "--config", join(FIXTURES, "absent.json")).code).toBe(2);
  });

  it("rejects two targets at once and options of the wrong target", () => {
    expect(cli("ping", "--url", http.url, "--", "node", DEMO).code).toBe(2);
    expect(cli("ping", "--header", "A: b", "--", "node", DEMO).code).toBe(2);
    expect(cli("ping", "-e", "A=b", "--url", http.url).code).toBe(2);
    expect(cli("ping", "--url", "ftp://x").code).toBe(2);
  });
});
