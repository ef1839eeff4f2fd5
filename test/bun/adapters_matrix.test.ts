/**
 * Cross-runtime: a Bun ContextClient against a ContextServer running on Node (built dist/), both eras
 * and auto, 1,000 requests each.
 * @module
 */
import { beforeAll, expect, test } from "bun:test";
import { spawnProcess } from "../../adapters/bun.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";

const repo = new URL("../../", import.meta.url);
const contextServer = new URL("test/fixtures/processes/context_server.mjs", repo).pathname;
const transport = spawnProcess("node", [
  contextServer,
  new URL("dist/src/server/context_server.js", repo).href,
  new URL("dist/adapters/node.js", repo).href,
]);

beforeAll(() => ensureDist(), 120_000);

for (const era of ["modern", "legacy", "auto"] as const) {
  test(`Bun client → Node server, era ${era}: negotiates and runs 1,000 requests`, async () => {
    const started = performance.now();
    const client = await ContextClient.connect(transport, { era, eraCache: null });
    expect(client.era).toBe(era === "legacy" ? "legacy" : "modern");
    expect(client.serverInfo?.name).toBe("matrix-node");
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => client.request<{ i: number; era: string; runtime: string }>("test/echo", { i })),
    );
    results.forEach((result, i) => expect(result).toMatchObject({ i, era: client.era, runtime: "node" }));
    const closing = performance.now();
    await client.close();
    console.log(
      `[bun→node ${era}] ${client.era} ${client.protocolVersion}: connect + 1,000 requests ${(closing - started).toFixed(0)} ms, close ${(performance.now() - closing).toFixed(0)} ms`,
    );
  }, 30_000);
}
