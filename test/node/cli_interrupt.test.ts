/**
 * Ctrl-C: SIGINT to the CLI during a slow call cancels the request, closes the server and leaves no
 * server process behind; `listen` prints change events until Ctrl-C and then exits 0.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { alive, cli, CliChild, DEMO, startHttpEverything } from "./cli_helpers.ts";

let http: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  ensureDist();
  http = await startHttpEverything();
}, 120_000);
afterAll(async () => {
  await http?.stop();
});

/** A stdio server command that records its pid in `pidFile` before becoming the demo server. */
function recordingServer(pidFile: string): string[] {
  return ["--", "sh", "-c", 'echo $$ > "$0"; exec "$1" "$2"', pidFile, process.execPath, DEMO];
}

describe("Ctrl-C", () => {
  it("during a slow call cancels it, closes the server, exits 130 and leaves no server process", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "cli-int-")), "server.pid");
    const run = new CliChild([
      "call",
      "count_slowly",
      "to=1000",
      "intervalMs=100",
      ...recordingServer(pidFile),
    ]);
    await run.waitFor("stderr", /counted 2 of 1000/); // the call is running and reporting progress
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(130);
    expect(run.stderr).toContain("Interrupted: cancelling the request and closing the server");
    expect(run.stdout).toBe("");
    expect(alive(pid)).toBe(false);
  });

  it("a call that is not interrupted runs to its end (the bound is the signal, not a clock)", () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "cli-int-")), "server.pid");
    const r = cli("call", "count_slowly", "to=3", "intervalMs=10", "-q", ...recordingServer(pidFile));
    expect(r.code).toBe(0);
    expect(alive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("listen prints change events as they come until Ctrl-C, then exits 0", async () => {
    for (const era of ["modern", "legacy"]) {
      const run = new CliChild(["listen", "--era", era, "--url", http.url]);
      await run.waitFor("stderr", /listening for changes/);
      expect(cli("call", "test_trigger_tool_change", "-q", "--url", http.url).code).toBe(0);
      await run.waitFor("stdout", /the tool list changed\n/);
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(0);
    }
  });

  it("listen --json prints one JSON object per event", async () => {
    const run = new CliChild(["listen", "--json", "--prompts", "--url", http.url]);
    await run.waitFor("stderr", /listening for changes/);
    cli("call", "test_trigger_tool_change", "-q", "--url", http.url); // not asked for
    cli("call", "test_trigger_prompt_change", "-q", "--url", http.url);
    await run.waitFor("stdout", /\n/);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
    expect(run.stdout.trim().split("\n").map((line) => JSON.parse(line))).toEqual([{
      type: "promptsListChanged",
    }]);
  });
});
