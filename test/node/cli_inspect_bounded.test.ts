/**
 * `inspect` against a server with a huge tool list: pages are printed as they arrive and dropped, so
 * the CLI's memory does not grow with the list. The fixture (test/node/fixtures/many_tools_server.mjs)
 * lists 100,000 tools with 2 KB descriptions (about 200 MB of JSON) in pages of 1,000.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const BIN = join(ROOT, "dist/cli/main.js");
const SERVER = join(ROOT, "test/node/fixtures/many_tools_server.mjs");
/** Preloaded into the CLI: its peak RSS (KiB) on stderr as it exits. */
const REPORT_PEAK_RSS =
  `data:text/javascript,process.on("exit",()=>process.stderr.write("peak-rss-kib="+process.resourceUsage().maxRSS+"\\n"))`;

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string; peakRssMiB: number } {
  const r = spawnSync(process.execPath, ["--import", REPORT_PEAK_RSS, BIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 300_000,
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const peak = /peak-rss-kib=(\d+)/.exec(r.stderr);
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    peakRssMiB: peak ? Number(peak[1]) / 1024 : Number.NaN,
  };
}

beforeAll(() => ensureDist(), 120_000);

describe("inspect on a server listing 100,000 tools in pages", () => {
  it("prints the first 1,000 and a '… 99000 more' line, with peak RSS far below the list's size", () => {
    const r = cli("inspect", "--", process.execPath, SERVER, "100000", "1000", "2000");
    expect(r.stderr).not.toMatch(/Failed|Unexpected/);
    expect(r.code).toBe(0);
    const toolLines = r.stdout.split("\n").filter((line) => /^ {2}tool_\d+/.test(line));
    expect(toolLines).toHaveLength(1_000);
    expect(toolLines[0]).toMatch(/^ {2}tool_0 {2}— Tool 0 x+$/);
    expect(toolLines[999]).toMatch(/^ {2}tool_999 /);
    expect(r.stdout).toMatch(/\nTools\n/);
    expect(r.stdout).toContain("  … 99000 more (100000 in all)\n");
    console.log(`inspect, 100,000 tools (~200 MB of JSON): peak RSS ${r.peakRssMiB.toFixed(1)} MiB`);
    // Holding the list took 1.3 GiB (measured before streaming); streamed, about 150 MiB, most of it
    // garbage the collector has not reclaimed yet (one page is about 2 MB).
    expect(r.peakRssMiB).toBeLessThan(400);
  }, 300_000);

  it("--json streams every item of every page into one document", () => {
    const r = cli("inspect", "--json", "--", process.execPath, SERVER, "2500", "1000", "10");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.tools).toHaveLength(2_500);
    expect(report.tools[2_499].name).toBe("tool_2499");
    expect(report.era).toBe("modern");
    expect(report.prompts).toEqual([]);
    expect(report.resources).toEqual([]);
  }, 120_000);

  it("a list that fits on one page keeps its count in the heading and shows no closing count", () => {
    const r = cli("inspect", "--", process.execPath, SERVER, "3", "10", "5");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      // Each tool with its parameters; the lists the server does not offer are left out (issue 29.5).
      /\nTools \(3\)\n {2}tool_0 {2}— Tool 0 x{5}\n {4}parameters: \(none\)\n {2}tool_1 .*\n {4}parameters: \(none\)\n {2}tool_2 .*\n {4}parameters: \(none\)\n$/,
    );
  }, 120_000);

  it("a list of several pages shorter than the cap closes with its count", () => {
    const r = cli("inspect", "--", process.execPath, SERVER, "5", "2", "5");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nTools\n(?: {2}tool_\d .*\n {4}parameters: \(none\)\n){5} {2}\(5 in all\)\n/);
  }, 120_000);
});
