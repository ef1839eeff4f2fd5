/**
 * testing/retry_reporter.mjs, the reporter testing/run_all.sh uses to say which tests passed only on a
 * retry (issue 25.23): run on a fixture with one such test and one plain pass.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/ours/build_dist.ts";

describe("retry reporter", () => {
  it("names the test that passed only on a retry, and only that one", () => {
    const report = join(mkdtempSync(join(tmpdir(), "retry-report-")), "retried");
    const dir = join(ROOT, "test/node/fixtures/flaky");
    const r = spawnSync(
      process.execPath,
      [
        join(ROOT, "node_modules/vitest/vitest.mjs"),
        "run",
        "--root",
        dir,
        "--config",
        join(dir, "vitest.config.mjs"),
        "--reporter=default",
        `--reporter=${join(ROOT, "testing/retry_reporter.mjs")}`,
      ],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, RETRY_REPORT: report }, timeout: 120_000 },
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(report, "utf8")).toBe(
      "test/node/fixtures/flaky/flaky.fixture.ts > fails once, then passes (retry x1)\n",
    );
  });
});
