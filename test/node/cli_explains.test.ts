/**
 * The CLI explains itself (issue 29.5): failures as JSON with --json, connection errors that name
 * their cause, a usage error in one line and a hint, tool parameters in inspect, `call TOOL --help`,
 * unknown `key=value` refused, and lists the server does not offer left out.
 */
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { cli, CliChild, FIXTURES } from "./cli_helpers.ts";

const SERVER = join(FIXTURES, "peer_text_server.mjs");
const stdio = ["--", process.execPath, SERVER];

/** Runs the CLI as a child (the test's own HTTP servers keep answering meanwhile). */
async function run(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = new CliChild(args);
  const code = await child.exited;
  return { code, stdout: child.stdout, stderr: child.stderr };
}

let html: Server;
let htmlUrl = "";
let freePortUrl = "";

beforeAll(async () => {
  ensureDist();
  // Every request answered 502 with a long HTML page, as a proxy in front of a dead server does.
  html = createServer((_req, res) => {
    res.writeHead(502, { "Content-Type": "text/html" });
    res.end(`<html><body>Bad gateway ${"padding ".repeat(50_000)}</body></html>`);
  });
  await new Promise<void>((resolve) => html.listen(0, "127.0.0.1", resolve));
  htmlUrl = `http://127.0.0.1:${(html.address() as { port: number }).port}/mcp`;
  // A port nothing listens on: listened on, then closed.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  freePortUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}/mcp`;
  await new Promise((resolve) => probe.close(resolve));
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => html?.close(resolve));
});

describe("failures", () => {
  it("--json: a connection failure is one JSON document on stdout, exit code as without it", async () => {
    const r = await run("inspect", "--json", "-q", "--url", freePortUrl);
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(["error"]);
    expect(doc.error.code).toBe("negotiation_failed");
    expect(doc.error.message).toContain(freePortUrl);
    expect(doc.error.cause).toMatch(/^ECONNREFUSED: /);
  });

  it("--json: a usage error and a failed request are JSON too", () => {
    const usage = cli("bogus", "--json");
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout).error).toMatchObject({
      code: "usage",
      message: 'Unknown command "bogus"',
    });
    const failed = cli("call", "big_error", "--json", "-q", ...stdio);
    expect(failed.code).toBe(4);
    const doc = JSON.parse(failed.stdout);
    expect(doc.error.code).toBe(-32000);
    expect(doc.error.message.length).toBeLessThan(2_100);
  });

  it("a refused connection says ECONNREFUSED, an unknown host ENOTFOUND, not a bare 'fetch failed'", async () => {
    const refused = await run("inspect", "-q", "--url", freePortUrl);
    expect(refused.stderr).toMatch(/ECONNREFUSED: nothing listens there/);
    const unknown = await run("inspect", "-q", "--url", "http://no-such-host.invalid/mcp");
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it("TLS spoken to a plain HTTP server names TLS", async () => {
    const r = await run("inspect", "-q", "--url", htmlUrl.replace("http:", "https:"));
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/TLS: |SSL/);
  });

  it("an HTTP error status names the status and quotes a bounded excerpt of the page", async () => {
    const r = await run("inspect", "-q", "--url", htmlUrl);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/HTTP 502/);
    expect(r.stderr).toContain("Bad gateway");
    expect(r.stderr.length).toBeLessThan(3_000);
  });

  it("a usage error is one line and a hint, not the whole help", () => {
    const r = cli("call");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "The call command needs a TOOL\nRun `onemodelcontext --help` for the commands and options.\n",
    );
  });
});

describe("tools explained", () => {
  it("inspect lists each tool's parameters and leaves out lists the server does not offer", () => {
    const r = cli("inspect", "-q", ...stdio);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "  weather  — The weather\n    parameters: city: string (required), days: integer\n",
    );
    expect(r.stdout).toContain("  big_error  — Fails with a 5 MB message\n    parameters: (none)\n");
    expect(r.stdout).toContain("Capabilities  tools\n");
    expect(r.stdout).not.toMatch(/Prompts|Resources|Resource templates/);
  });

  it("call TOOL --help prints the tool's parameters and input schema; --json the tool itself", () => {
    const r = cli("call", "weather", "--help", "-q", ...stdio);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "Tool weather\nThe weather\n\nParameters:\n  city  string  (required)  — Where\n",
    );
    expect(r.stdout).toContain('Input schema:\n{\n  "type": "object"');
    const json = cli("call", "weather", "--help", "--json", "-q", ...stdio);
    expect(JSON.parse(json.stdout).inputSchema.required).toEqual(["city"]);
    const missing = cli("call", "nope", "--help", "-q", ...stdio);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('The server lists no tool "nope"');
  });

  it("an unknown key=value is refused with exit 2, naming what the tool takes; known ones are coerced", () => {
    const r = cli("call", "weather", "cty=Paris", "-q", ...stdio);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'Tool "weather" takes no argument "cty"; it takes city: string (required), days: integer',
    );
    const ok = cli("call", "weather", "city=Paris", "days=2", "-q", ...stdio);
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim()).toBe('{"city":"Paris","days":2}');
  });
});
