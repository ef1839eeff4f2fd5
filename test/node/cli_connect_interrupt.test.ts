/**
 * The CLI's connect and Ctrl-C (issue 29.5): --timeout bounds the connect and names non-JSON output
 * with a bounded sample; a server that exits during connect is started once; `listen --uri` against
 * a legacy server exits 0 on Ctrl-C; a second Ctrl-C kills a server that ignores the first.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { alive, cli, CliChild, DEMO, FIXTURES } from "./cli_helpers.ts";

const GARBAGE = join(FIXTURES, "garbage_stdout_server.mjs");
const STUBBORN = join(FIXTURES, "stubborn_server.mjs");
const scratch = () => mkdtempSync(join(tmpdir(), "cli-connect-"));

beforeAll(() => ensureDist(), 120_000);

describe("connect", () => {
  it("--timeout bounds the connect, and the failure quotes what the server printed instead of JSON-RPC", () => {
    const r = cli("inspect", "-q", "--timeout", "2", "--", process.execPath, GARBAGE);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("within connectTimeout (2000 ms)");
    expect(r.stderr).toContain(
      'the server printed output that is not JSON-RPC on stdout, e.g. "Welcome to my server! Loading..."',
    );
    expect(r.stderr.length).toBeLessThan(2_000);
  });

  it("a server that exits during connect is started once, and the error says so", () => {
    const starts = join(scratch(), "starts");
    const r = cli("inspect", "-q", "--", process.execPath, GARBAGE, starts, "--crash");
    expect(r.code).toBe(3);
    expect(readFileSync(starts, "utf8")).toBe("started\n");
    expect(r.stderr).toContain(
      "The server process exited (exit code 1) during connect; it was not started again",
    );
    expect(r.stderr).toContain("boom: missing config file");
  });
});

describe("Ctrl-C", () => {
  it("listen --uri against a legacy server, then Ctrl-C: exit 0, no stack", async () => {
    const run = new CliChild([
      "listen",
      "--uri",
      "demo://greeting",
      "--era",
      "legacy",
      "--",
      process.execPath,
      DEMO,
    ]);
    await run.waitFor("stderr", /listening for changes/);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
    expect(run.stderr).not.toMatch(/ClosedError|Unexpected failure|\n\s+at /);
  });

  it("a second Ctrl-C kills a server that ignores the first (SIGTERM, stdin closed) and exits 130", async () => {
    const pidFile = join(scratch(), "pid");
    const run = new CliChild(["call", "hang", "--", process.execPath, STUBBORN, pidFile]);
    await run.waitFor("stderr", /calling tool hang/);
    const pid = Number(readFileSync(pidFile, "utf8"));
    run.child.kill("SIGINT");
    await run.waitFor("stderr", /Interrupted: cancelling the request/);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(130);
    expect(run.stderr).toContain(`Interrupted again: killed the server (pid ${pid}), leaving now`);
    // SIGKILL is not instant: wait (bounded) for the process to be gone.
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(alive(pid)).toBe(false);
  });
});
