/**
 * The CLI against a hostile server: no control character the server sends reaches the terminal raw.
 * The server (test/node/fixtures/hostile_terminal_server.mjs) puts CSI, OSC, BEL, C1, DEL, CR and bidi
 * overrides in its name, instructions, tool names, descriptions, results, errors and stderr.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { terminalJson, terminalText } from "../../cli/terminal_text.ts";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const BIN = join(ROOT, "dist/cli/main.js");
const HOSTILE_SERVER = join(ROOT, "test/node/fixtures/hostile_terminal_server.mjs");
/** What the fixture puts in every string it controls. */
const HOSTILE =
  "\x1b[2J\x1b[H\x1b]0;pwned title\x07\x07\x1b]52;c;cHduZWQ=\x07\u009b31m\u009d0;c1 title\u009c\x7f\b\rEVIL\u202egnp.exe\u2066\u200f";

/** Any character that can drive a terminal: C0 but tab and LF, DEL, C1, bidi controls. */
const RAW_CONTROL =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function expectInert(output: string): void {
  const raw = RAW_CONTROL.exec(output);
  expect(
    raw &&
      `U+${raw[0].charCodeAt(0).toString(16).padStart(4, "0")} at ${raw.index}: ${
        JSON.stringify(output.slice(Math.max(0, raw.index - 40), raw.index + 10))
      }`,
  ).toBeNull();
}

beforeAll(() => ensureDist(), 120_000);

describe("terminalText", () => {
  it("escapes ESC, BEL, C1, DEL, CR and bidi controls as visible text", () => {
    expect(terminalText("a\x1b[2Jb\x07c\u009bd\x7fe\rf\u202eg")).toBe(
      "a\\x1B[2Jb\\x07c\\x9Bd\\x7Fe\\x0Df\\u202Eg",
    );
  });

  it("keeps LF and tab in multi-line text only, and turns CR LF into LF there", () => {
    expect(terminalText("a\nb\tc\r\nd", { multiline: true })).toBe("a\nb\tc\nd");
    expect(terminalText("a\nb\tc")).toBe("a\\x0Ab\\x09c");
  });

  it("leaves ordinary text alone: accents, CJK, emoji, backslashes", () => {
    const text = "café 日本語 🙂 C:\\path — ok";
    expect(terminalText(text)).toBe(text);
    expect(terminalText(text, { multiline: true })).toBe(text);
  });

  it("terminalJson parses back to the same value with no raw control character in it", () => {
    const value = { name: "x\x1b]0;t\x07\u009d\u202e\x7f", list: [1, "\u2066"] };
    const json = terminalJson(value);
    expectInert(json);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe("the CLI against a server that sends terminal control sequences", () => {
  it("inspect prints names, descriptions, instructions, prompts and resources escaped", () => {
    const r = cli("inspect", "--", process.execPath, HOSTILE_SERVER);
    expect(r.code).toBe(0);
    expectInert(r.stdout);
    expectInert(r.stderr);
    expect(r.stdout).toContain("evil\\x1B[2J\\x1B[H\\x1B]0;pwned title\\x07");
    expect(r.stdout).toContain("\\x9B31m");
    expect(r.stdout).toContain("\\u202Egnp.exe");
    expect(r.stdout).toMatch(/desc.*\n\s+second line/); // a description keeps its lines, indented
    expect(r.stdout).toContain("Read me\\x1B[2J");
    expect(r.stdout).toContain("prompt\\x1B");
    expect(r.stdout).toContain("file:///x\\x1B");
  });

  it("inspect --json is a document with the same strings and no raw control character", () => {
    const r = cli("inspect", "--json", "--", process.execPath, HOSTILE_SERVER);
    expect(r.code).toBe(0);
    expectInert(r.stdout);
    const report = JSON.parse(r.stdout);
    expect(report.tools[0].name).toBe(`evil${HOSTILE}`);
    expect(report.serverInfo.name).toBe(`hostile${HOSTILE}`);
  });

  it("call prints text results and other content escaped, keeping lines and tabs", () => {
    const r = cli("call", "evil", "--", process.execPath, HOSTILE_SERVER);
    expect(r.code).toBe(0);
    expectInert(r.stdout);
    expectInert(r.stderr);
    expect(r.stdout).toContain("result\\x1B[2J");
    expect(r.stdout).toContain("\nline two\ttabbed");
    expect(r.stdout).toContain("[resource link] u\\x1B[2J"); // the resource_link's URI, escaped
  });

  it("a tool error result and a JSON-RPC error message are escaped", () => {
    const toolError = cli("call", "tool_error", "--", process.execPath, HOSTILE_SERVER);
    expect(toolError.code).toBe(4);
    expectInert(toolError.stdout);
    expect(toolError.stdout).toContain("tool failed\\x1B[2J");
    const rpcError = cli("call", "fail", "--", process.execPath, HOSTILE_SERVER);
    expect(rpcError.code).toBe(4);
    expectInert(rpcError.stdout);
    expectInert(rpcError.stderr);
    expect(rpcError.stderr).toContain("bad call\\x1B[2J");
  });

  it("the stderr of a server that dies is shown escaped", () => {
    const r = cli("inspect", "--", process.execPath, HOSTILE_SERVER, "--die");
    expect(r.code).toBe(3);
    expectInert(r.stdout);
    expectInert(r.stderr);
    expect(r.stderr).toContain("fatal \\x1B[2J\\x1B[H\\x1B]0;pwned title\\x07");
  });

  it("the fixture is hostile: its raw output carries the control characters", () => {
    const r = spawnSync(process.execPath, [HOSTILE_SERVER, "--die"], { encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toMatch(RAW_CONTROL);
    expect(r.stderr).toContain("\x1b]0;pwned title\x07");
  });
});
