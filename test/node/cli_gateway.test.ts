/**
 * `onemodelcontext serve --http PORT -- COMMAND`: a stdio server (the everything server) reached over
 * Streamable HTTP in both eras; legacy sessions each get their own process, bounded in count; SIGINT
 * to the gateway leaves no server process behind.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { alive, cli, CliChild, EVERYTHING } from "./cli_helpers.ts";

let gateway: CliChild;
let url: string;
let pidFile: string;

/** The everything server, each start appending its pid to `pidFile`. */
function recordingEverything(file: string): string[] {
  return ["--", "sh", "-c", 'echo $$ >> "$0"; exec "$1" "$2"', file, process.execPath, EVERYTHING];
}

const pids = (): number[] => readFileSync(pidFile, "utf8").trim().split("\n").map(Number);

beforeAll(async () => {
  ensureDist();
  pidFile = join(mkdtempSync(join(tmpdir(), "cli-gw-")), "pids");
  gateway = new CliChild(["serve", "--http", "0", "--max-sessions", "1", ...recordingEverything(pidFile)]);
  await gateway.waitFor("stderr", /serving (http:\S+)/);
  url = /serving (http:\S+)/.exec(gateway.stderr)![1]!;
}, 120_000);
afterAll(() => {
  if (gateway.child.exitCode === null) gateway.child.kill("SIGKILL");
});

describe("the HTTP gateway", () => {
  it("serves modern requests from one shared process", () => {
    const inspect = cli("inspect", "--json", "-q", "--url", url);
    expect(inspect.code).toBe(0);
    const report = JSON.parse(inspect.stdout);
    expect(report.era).toBe("modern");
    expect(report.serverInfo.name).toBe("onemodelcontext-everything");
    expect(report.resourceTemplates).toHaveLength(1);
    const call = cli("call", "test_tool_with_progress", "--url", url);
    expect(call.code).toBe(0);
    expect(call.stderr).toContain("50% Completed step 50 of 100"); // progress crosses the gateway
    expect(cli("complete", "prompt", "test_prompt_with_arguments", "arg1", "he", "-q", "--url", url).stdout)
      .toBe("hello\nhelp\n");
    const logs = cli("call", "test_tool_with_logging", "--url", url);
    expect(logs.stderr).toContain("[server info] Tool processing data"); // a lone request's log messages cross too
    expect(pids()).toHaveLength(1);
  });

  it("gives each legacy session its own process and ends it with the session", async () => {
    const before = pids().length;
    const read = cli("read", "test://static-text", "-q", "--era", "legacy", "--url", url);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain("This is the content of the static text resource.");
    const logs = cli("call", "test_tool_with_logging", "--era", "legacy", "--url", url);
    expect(logs.stderr).toContain("[server info] Tool execution completed");
    const started = pids().slice(before);
    expect(started).toHaveLength(2); // one per legacy session (the read, then the call)
    // The CLI ended its session (DELETE): the gateway closes that process (waited for, not timed).
    for (const pid of started) while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
  });

  it("refuses a legacy session beyond --max-sessions while one is open, and takes one once it ends", async () => {
    const holder = new CliChild(["listen", "--era", "legacy", "--url", url]);
    await holder.waitFor("stderr", /listening for changes/);
    const refused = cli("ping", "-q", "--era", "legacy", "--url", url);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/429|Too many sessions/);
    holder.child.kill("SIGINT");
    expect(await holder.exited).toBe(0);
    expect(cli("ping", "-q", "--era", "legacy", "--url", url).code).toBe(0);
  });

  it("SIGINT stops the gateway and leaves no server process", async () => {
    const holder = new CliChild(["listen", "--era", "legacy", "--url", url]);
    await holder.waitFor("stderr", /listening for changes/);
    const live = pids().filter(alive);
    expect(live.length).toBe(2); // the modern process and the open legacy session's
    gateway.child.kill("SIGINT");
    expect(await gateway.exited).toBe(0);
    for (const pid of pids()) expect(alive(pid)).toBe(false);
    holder.child.kill("SIGKILL");
  });
});
