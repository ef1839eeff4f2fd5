/** The CLI's pure parts: argument parsing, schema coercion, config entries, wrapping. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../../cli/args.ts";
import { coerceArgs, coerceValue } from "../../cli/coerce_args.ts";
import { readConfigTarget } from "../../cli/config_file.ts";
import { wrapText } from "../../cli/content_output.ts";

describe("parseArgs", () => {
  it("reads a stdio target with -e and --cwd, keeping the server's own flags after --", () => {
    const a = parseArgs([
      "call",
      "t",
      "x=1",
      "-e",
      "A=b=c",
      "--cwd",
      "/srv",
      "--",
      "node",
      "s.js",
      "--json",
      "-e",
    ]);
    expect(a.target).toEqual({
      kind: "stdio",
      command: "node",
      args: ["s.js", "--json", "-e"],
      env: { A: "b=c" },
      cwd: "/srv",
    });
    expect(a.json).toBe(false);
    expect(a.pairs).toEqual([["x", "1"]]);
  });

  it("reads a URL with headers, --option=value forms, and seconds for --timeout", () => {
    const a = parseArgs(["ping", "--url=https://h/mcp", "-H", "Authorization: Bearer a:b", "--timeout=2.5"]);
    expect(a.target).toEqual({
      kind: "http",
      url: "https://h/mcp",
      headers: { Authorization: "Bearer a:b" },
    });
    expect(a.timeout).toBe(2500);
  });

  it("bounds the gateway's options", () => {
    expect(parseArgs(["serve", "--http", "0", "--", "x"]).http).toEqual({
      port: 0,
      host: "127.0.0.1",
      maxSessions: 32,
      idleSeconds: 300,
    });
    expect(() => parseArgs(["serve", "--http", "65536", "--", "x"])).toThrow(UsageError);
    expect(() => parseArgs(["serve", "--http", "1", "--max-sessions", "0", "--", "x"])).toThrow(
      /--max-sessions/,
    );
    expect(() => parseArgs(["serve", "--http", "1", "--url", "http://x/mcp"])).toThrow(/stdio server/);
    expect(() => parseArgs(["serve", "--", "x"])).toThrow(/--http PORT/);
  });
});

describe("coerceValue", () => {
  it("follows the property's schema type", () => {
    expect(coerceValue("n", "3", { type: "integer" })).toBe(3);
    expect(coerceValue("n", "3.5", { type: "number" })).toBe(3.5);
    expect(coerceValue("b", "false", { type: "boolean" })).toBe(false);
    expect(coerceValue("o", '{"a":[1]}', { type: "object" })).toEqual({ a: [1] });
    expect(coerceValue("l", "[1,2]", { type: "array" })).toEqual([1, 2]);
    expect(coerceValue("s", "007", { type: "string" })).toBe("007");
    expect(coerceValue("u", "7", { type: ["string", "number"] })).toBe("7"); // a string is allowed: kept
    expect(coerceValue("v", "7", { anyOf: [{ type: "number" }, { type: "null" }] })).toBe(7);
    expect(coerceValue("v", "null", { anyOf: [{ type: "number" }, { type: "null" }] })).toBe(null);
  });

  it("names the key and the wanted type when the text does not fit", () => {
    expect(() => coerceValue("n", "3.5", { type: "integer" })).toThrow(
      "Argument n=3.5: the tool wants integer",
    );
    expect(() => coerceValue("b", "yes", { type: "boolean" })).toThrow(
      "Argument b=yes: the tool wants boolean",
    );
    expect(() => coerceValue("o", "[1]", { type: "object" })).toThrow("the tool wants object (as JSON)");
    expect(() => coerceValue("n", "", { type: "number" })).toThrow(UsageError);
  });

  it("without a schema keeps strings, but takes JSON objects and arrays", () => {
    expect(coerceArgs([["a", "1"], ["b", '{"c":2}'], ["d", "{not json"]], undefined)).toEqual({
      a: "1",
      b: { c: 2 },
      d: "{not json",
    });
  });

  it("puts key=value pairs over --args", () => {
    expect(coerceArgs([["a", "2"]], { properties: { a: { type: "number" } } }, { a: 1, b: 1 })).toEqual({
      a: 2,
      b: 1,
    });
  });
});

describe("readConfigTarget", () => {
  const file = (json: unknown): string => {
    const path = join(mkdtempSync(join(tmpdir(), "cli-cfg-")), "mcp.json");
    writeFileSync(path, JSON.stringify(json));
    return path;
  };

  it("reads VS Code's settings form (mcp.servers) and a url entry without a type", () => {
    expect(readConfigTarget(file({ mcp: { servers: { a: { url: "http://h/mcp" } } } }), undefined)).toEqual({
      kind: "http",
      url: "http://h/mcp",
      headers: {},
    });
  });

  it("refuses entries that are neither a command nor a url, and bad field types", () => {
    expect(() => readConfigTarget(file({ mcpServers: { a: { type: "http" } } }), "a")).toThrow(
      'has type "http" but no "url"',
    );
    expect(() => readConfigTarget(file({ mcpServers: { a: {} } }), "a")).toThrow(
      'has neither "command" nor "url"',
    );
    expect(() => readConfigTarget(file({ mcpServers: { a: { command: "x", args: [1] } } }), "a")).toThrow(
      '"args" must be an array of strings',
    );
    expect(() => readConfigTarget(file({ mcpServers: { a: { command: "x", env: { K: 1 } } } }), "a")).toThrow(
      "env.K must be a string",
    );
    expect(() => readConfigTarget(file({ other: {} }), undefined)).toThrow(
      'no "mcpServers" or "servers" object',
    );
  });
});

describe("wrapText", () => {
  it("breaks long lines at spaces within the width and keeps short ones", () => {
    expect(wrapText("aaaa bbbb cccc dddd eeee ffff gggg", 20)).toBe("aaaa bbbb cccc dddd\neeee ffff gggg");
    expect(wrapText("short\nlines", 20)).toBe("short\nlines");
  });

  it("cuts a word longer than the width, and does nothing without a width", () => {
    expect(wrapText("x".repeat(45), 20)).toBe(`${"x".repeat(20)}\n${"x".repeat(20)}\n${"x".repeat(5)}`);
    expect(wrapText("x ".repeat(100), undefined)).toBe("x ".repeat(100));
  });
});
