/** The CLI's tasks: `task get|cancel|wait ID` parsed, and `call` following a task of the everything server. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../../cli/args.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";

const ROOT = join(import.meta.dirname, "../..");

describe("onemodelcontext task", () => {
  it("parses task get|cancel|wait TASK_ID and refuses anything else", () => {
    for (const action of ["get", "cancel", "wait"] as const) {
      const args = parseArgs(["task", action, "abc", "--url", "http://127.0.0.1:1/mcp"]);
      expect(args).toMatchObject({ command: "task", taskAction: action, name: "abc" });
    }
    expect(() => parseArgs(["task", "list", "abc"])).toThrow(UsageError);
    expect(() => parseArgs(["task", "get"])).toThrow(UsageError);
  });

  it("call follows a task of a 2026-07-28 server to its result and shows its status", () => {
    ensureDist();
    const run = spawnSync(process.execPath, [
      join(ROOT, "dist/cli/main.js"),
      "call",
      "long_task",
      "ms=200",
      "--era",
      "modern",
      "--",
      process.execPath,
      join(ROOT, "examples/everything/server.mjs"),
    ], { encoding: "utf8", timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("done after 200 ms");
    expect(run.stderr).toMatch(/task [0-9a-f-]{36}: (working|completed)/);
  });
});
