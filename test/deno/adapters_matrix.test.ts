/**
 * Cross-runtime: a Deno ContextClient against a ContextServer running on Bun, both eras and auto,
 * 1,000 requests each.
 * @module
 */
import { spawnProcess } from "../../adapters/deno.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { assertEquals, assertStrictEquals } from "./assert.ts";

const repo = new URL("../../", import.meta.url);
const contextServer = new URL("test/fixtures/processes/context_server.mjs", repo).pathname;
const bunBin = new URL("node_modules/.bin/bun", repo).pathname;
const transport = spawnProcess(bunBin, [
  contextServer,
  new URL("src/server/context_server.ts", repo).href,
  new URL("adapters/bun.ts", repo).href,
]);

for (const era of ["modern", "legacy", "auto"] as const) {
  Deno.test({
    name: `Deno client → Bun server, era ${era}: negotiates and runs 1,000 requests`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const started = performance.now();
      const client = await ContextClient.connect(transport, { era, eraCache: null });
      assertStrictEquals(client.era, era === "legacy" ? "legacy" : "modern");
      assertStrictEquals(client.serverInfo?.name, "matrix-bun");
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => client.request<{ i: number; era: string; runtime: string }>("test/echo", { i })),
      );
      results.forEach((result, i) => assertEquals({ i: result.i, era: result.era, runtime: result.runtime }, { i, era: client.era, runtime: "bun" }));
      const closing = performance.now();
      await client.close();
      console.log(
        `[deno→bun ${era}] ${client.era} ${client.protocolVersion}: connect + 1,000 requests ${(closing - started).toFixed(0)} ms, close ${(performance.now() - closing).toFixed(0)} ms`,
      );
    },
  });
}
