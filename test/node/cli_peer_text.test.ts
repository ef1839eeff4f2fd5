/**
 * What the CLI prints of a server's text is bounded (issue 25.17): a 5 MB error message reaches
 * stderr cut to MAX_ERROR_CHARS with its length.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { boundedText, MAX_ERROR_CHARS } from "../../cli/failure.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { cli, FIXTURES } from "./cli_helpers.ts";

const SERVER = join(FIXTURES, "peer_text_server.mjs");

beforeAll(() => ensureDist(), 120_000);

describe("peer text the CLI prints", () => {
  it("boundedText keeps text up to the bound and cuts past it, saying how long it was", () => {
    expect(MAX_ERROR_CHARS).toBe(2_000);
    expect(boundedText("x".repeat(2_000), 2_000)).toBe("x".repeat(2_000));
    expect(boundedText("x".repeat(2_001), 2_000)).toBe(`${"x".repeat(2_000)}… (2001 characters in all)`);
  });

  it("a 5 MB tool error message reaches stderr cut to 2,000 characters", () => {
    const r = cli("call", "big_error", "--", process.execPath, SERVER);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("Request failed: Broken xxx");
    expect(r.stderr).toContain("characters in all)");
    expect(r.stderr.length).toBeLessThan(10_000);
  });
});
