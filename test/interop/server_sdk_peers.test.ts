// deno-lint-ignore-file no-explicit-any -- tests reach into loosely typed peer objects
/**
 * The SDK clients as plain Node processes (test/fixtures/sdk/server_peers/sdk_client.mjs) against our
 * ContextServer fixture: the same checks as server_sdk.test.ts, outside vitest's module loader, so the
 * SDKs' own progress callbacks are exercised too.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const run = promisify(execFile);
const PEER = join(ROOT, "test/fixtures/sdk/server_peers/sdk_client.mjs");
const SERVER = join(ROOT, "test/fixtures/ours/context_server_stdio.mjs");
const SERVER_INFO = { name: "ours-fixture", version: "0.1.0", title: "onemodelcontext fixture" };

async function peer(sdk: string, mode: string): Promise<Record<string, any>> {
  const { stdout, stderr } = await run(process.execPath, [PEER, sdk, mode, SERVER], {
    cwd: ROOT,
    timeout: 30_000,
  });
  expect(stderr).toBe("");
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

beforeAll(() => ensureDist());

describe("SDK clients as separate processes against ContextServer", () => {
  const cases: [string, string, string, string][] = [
    ["1.32", "legacy", "legacy", "2025-11-25"],
    ["2.4", "legacy", "legacy", "2025-11-25"],
    ["2.4", "auto", "modern", "2026-07-28"],
    ["2.4", "pin:2026-07-28", "modern", "2026-07-28"],
  ];
  for (const [sdk, mode, era, version] of cases) {
    it(`SDK ${sdk} in mode ${mode} → ${era}`, async () => {
      const summary = await peer(sdk, mode);
      expect(summary.era).toBe(era);
      if (sdk !== "1.32") expect(summary.protocolVersion).toBe(version);
      expect(summary.serverInfo).toEqual(SERVER_INFO);
      expect(summary.capabilities).toEqual({ tools: {} });
      expect(summary.instructions).toBe("A fixture server with one echo tool.");
      expect(summary.tools).toEqual(["echo"]);
      expect(summary.content).toEqual([{ type: "text", text: `hello from ${sdk}` }]);
      // Progress reached the client with the token it sent. Whether its onprogress callback fired is
      // up to a race inside the SDKs (see sdk_client.mjs), so only the wire is asserted.
      expect(summary.progressOnWire).toEqual([{
        progressToken: expect.anything(),
        progress: 1,
        total: 1,
        message: "echoing",
      }]);
      expect(summary.progress.length).toBeLessThanOrEqual(1);
    });
  }
});
