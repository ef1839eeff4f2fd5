/**
 * Cross-runtime protocol matrix, written once: a `ContextClient` on one runtime against a
 * `ContextServer` on another runtime's `stdio()`, in each era, 1,000 requests each.
 * @module
 */
import type { ProcessTransport } from "../../adapters/_process/define_process_adapter.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { assertEquals, assertStrictEquals } from "./assert.ts";
import { contextServerFixture, moduleUrls, runOn, type Runtime } from "./runtimes.ts";
import type { TestApi } from "./test_api.ts";

/** Registers the matrix: `client` runtime's `spawnProcess` against a server on `server`. */
export function contextMatrixSuite(
  api: TestApi,
  client: { runtime: Runtime; spawnProcess(command: string, args?: readonly string[]): ProcessTransport },
  server: Runtime,
): void {
  const { adapter, contextServer } = moduleUrls(server);
  const transport = client.spawnProcess(...runOn(server, contextServerFixture, contextServer, adapter));
  for (const era of ["modern", "legacy", "auto"] as const) {
    api.test(`[${client.runtime} client → ${server} server] era ${era}: negotiates and runs 1,000 requests`, async () => {
      const connected = await ContextClient.connect(transport, { era, eraCache: null });
      assertStrictEquals(connected.era, era === "legacy" ? "legacy" : "modern");
      assertStrictEquals(connected.serverInfo?.name, `matrix-${server}`);
      const results = await Promise.all(
        Array.from(
          { length: 1000 },
          (_, i) => connected.request<{ i: number; era: string; runtime: string }>("test/echo", { i }),
        ),
      );
      results.forEach((r, i) =>
        assertEquals({ i: r.i, era: r.era, runtime: r.runtime }, { i, era: connected.era, runtime: server })
      );
      await connected.close();
    });
  }
}
