/** The CLI's subcommands against real servers: the everything server and the demo server over stdio. */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { cli, DEMO, EVERYTHING, FIXTURES } from "./cli_helpers.ts";

beforeAll(() => ensureDist(), 120_000);

const every = ["--", process.execPath, EVERYTHING];
const demo = ["--", process.execPath, DEMO];

describe("CLI commands", () => {
  it("inspect prints era, version, capabilities, tools, resources, templates and prompts", () => {
    const r = cli("inspect", "-q", ...every);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Server\s+onemodelcontext-everything 1\.0\.0/);
    expect(r.stdout).toMatch(/Era\s+modern \(protocol 2026-07-28\)/);
    expect(r.stdout).toContain("the server answered `server/discover`: modern era, 2026-07-28");
    expect(r.stdout).toMatch(/Capabilities\s+tools, resources, prompts, completions, logging/);
    expect(r.stdout).toMatch(
      /\nResource templates \(1\)\n {2}test:\/\/template\/\{id\}\/data {2}\(template\)\n/,
    );
    expect(r.stdout).toMatch(/\nPrompts \(5\)\n/);
    expect(r.stdout).not.toContain("discovered_modern"); // no internal outcome names
  });

  it("inspect says in plain words how a legacy connection was decided", () => {
    const r = cli("inspect", "-q", "--era", "legacy", ...every);
    expect(r.stdout).toContain(
      "legacy era requested (--era legacy), `initialize` only: legacy era, 2025-11-25",
    );
  });

  it("inspect prints every other list when one fails, names the failure, and exits 4", () => {
    const r = cli("inspect", "-q", "--", process.execPath, join(FIXTURES, "broken_list_server.mjs"));
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(
      /\nTools\n {2}\(could not be listed: tools\/list failed: .*\(JSON-RPC -32603\)\)\n/,
    );
    expect(r.stdout).toContain("still_here");
    expect(r.stdout).toContain("file:///still/here");
    expect(r.stdout).toContain("file:///{path}");
    const json = cli(
      "inspect",
      "--json",
      "-q",
      "--",
      process.execPath,
      join(FIXTURES, "broken_list_server.mjs"),
    );
    expect(json.code).toBe(4);
    const report = JSON.parse(json.stdout);
    expect(report.tools).toEqual([]);
    expect(report.toolsError).toMatch(/^tools\/list failed/);
    expect(report.prompts).toHaveLength(1);
    expect(report.resourceTemplates).toHaveLength(1);
  });

  it("call coerces key=value by the tool's input schema; --args takes JSON", () => {
    expect(cli("call", "add", "a=2", "b=40", "-q", ...demo).stdout.trim()).toBe("42");
    expect(cli("call", "add", "--args", '{"a":1.5,"b":1}', "-q", ...demo).stdout.trim()).toBe("2.5");
    expect(cli("call", "echo", "text=42", "-q", ...demo).stdout.trim()).toBe("42"); // a string stays a string
    const wrong = cli("call", "add", "a=two", "b=1", "-q", ...demo);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Argument a=two: the tool wants number");
  });

  it("call --json wraps the whole result", () => {
    const r = cli("call", "echo", "text=x", "--json", "-q", ...demo);
    expect(JSON.parse(r.stdout)).toMatchObject({
      tool: "echo",
      result: { content: [{ type: "text", text: "x" }] },
    });
  });

  it("call writes images and audio to files and prints their paths, not base64", () => {
    const out = mkdtempSync(join(tmpdir(), "cli-out-"));
    for (
      const [tool, kind, ext] of [["test_image_content", "image", "png"], [
        "test_audio_content",
        "audio",
        "wav",
      ]] as const
    ) {
      const r = cli("call", tool, "-q", "--out", out, ...every);
      expect(r.code).toBe(0);
      const path = /written to (\S+)/.exec(r.stdout)?.[1];
      expect(path).toBe(join(out, `${kind}-1.${ext}`));
      expect(existsSync(path!)).toBe(true);
      expect(r.stdout.length).toBeLessThan(200);
    }
    expect(readFileSync(join(out, "image-1.png")).subarray(1, 4).toString()).toBe("PNG");
  });

  it("call shows progress and server log messages on stderr, and --quiet hides them", () => {
    const progress = cli("call", "test_tool_with_progress", ...every);
    expect(progress.code).toBe(0);
    expect(progress.stderr).toContain("[############------------]  50% Completed step 50 of 100");
    expect(progress.stdout).not.toContain("%");
    const logs = cli("call", "test_tool_with_logging", ...every);
    expect(logs.stderr).toContain("[server info] Tool execution started");
    expect(logs.stdout.trim()).toBe("Tool with logging executed successfully");
    const legacyLogs = cli("call", "test_tool_with_logging", "--era", "legacy", ...every);
    expect(legacyLogs.stderr).toContain("[server info] Tool processing data");
    const quiet = cli("call", "test_tool_with_logging", "-q", ...every);
    expect(quiet.stderr).toBe("");
  });

  it("a tool error exits 4 with the tool's message", () => {
    const r = cli("call", "test_error_handling", "-q", ...every);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain("Tool error: This tool intentionally returns an error for testing");
  });

  it("--timeout cancels a request that goes quiet (exit 5) and does not cut a quick one", () => {
    // --timeout bounds the connect too (issue 29.5): long enough here for the demo server to start.
    const slow = cli("call", "count_slowly", "to=2", "intervalMs=30000", "-q", "--timeout", "5", ...demo);
    expect(slow.code).toBe(5);
    expect(slow.stderr).toMatch(/Timed out: .*no reply within 5000 ms/);
    expect(cli("call", "echo", "text=quick", "-q", "--timeout", "30", ...demo).code).toBe(0);
  });

  it("read prints text resources and writes binary ones to files", () => {
    const text = cli("read", "test://static-text", "-q", ...every);
    expect(text.stdout).toBe(
      "[resource test://static-text, text/plain]\nThis is the content of the static text resource.\n",
    );
    const binary = cli(
      "read",
      "test://static-binary",
      "-q",
      "--out",
      mkdtempSync(join(tmpdir(), "cli-out-")),
      ...every,
    );
    expect(binary.stdout).toMatch(
      /^\[resource test:\/\/static-binary, image\/png\] \d+ bytes written to \S+resource-1\.png\n$/,
    );
    const json = JSON.parse(cli("read", "test://template/7/data", "--json", "-q", ...every).stdout);
    expect(JSON.parse(json.contents[0].text)).toMatchObject({ id: "7" });
  });

  it("prompt fills the prompt's arguments", () => {
    const r = cli("prompt", "test_prompt_with_arguments", "arg1=a", "arg2=b", "-q", ...every);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("user:\nPrompt with arguments: arg1='a', arg2='b'");
  });

  it("complete lists completions of prompt arguments and template variables", () => {
    expect(cli("complete", "prompt", "test_prompt_with_arguments", "arg1", "he", "-q", ...every).stdout).toBe(
      "hello\nhelp\n",
    );
    const json = JSON.parse(
      cli("complete", "resource", "test://template/{id}/data", "id", "1", "--json", "-q", ...every).stdout,
    );
    expect(json.completion.values).toEqual(["1", "123"]);
  });

  it("ping answers in both eras", () => {
    expect(cli("ping", "-q", ...demo).stdout).toMatch(
      /^The server answered (ping|server\/discover) in [\d.]+ ms\n$/,
    );
    expect(JSON.parse(cli("ping", "--json", "-q", "--era", "legacy", ...every).stdout)).toMatchObject({
      ok: true,
      method: "ping",
    });
  });

  it("--version, --help and usage errors", () => {
    expect(cli("--version").stdout).toBe("onemodelcontext 0.1.0\n");
    expect(cli("--help").stdout).toContain("Exit codes: 0 success");
    expect(cli("read").code).toBe(2);
    expect(cli("complete", "tool", "x", "y").code).toBe(2);
    expect(cli("call", "add", "novalue").code).toBe(2);
    expect(cli("ping", "--timeout", "soon").code).toBe(2);
  });
});
