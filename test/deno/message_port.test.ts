/**
 * fromMessagePort on Deno: a ContextServer and a ContextClient over Deno's own MessageChannel.
 * @module
 */
import { fromMessagePort } from "../../adapters/message_port/mod.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { ContextServer } from "../../src/server/context_server.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { assertEquals, assertStrictEquals } from "./assert.ts";

for (const era of ["modern", "legacy", "auto"] as const) {
  Deno.test(`fromMessagePort on Deno: ContextClient (${era}) and ContextServer over a MessageChannel, 1,000 requests`, async () => {
    const { port1, port2 } = new MessageChannel();
    const server = new ContextServer({ name: "deno-port", version: "1", capabilities: { tools: {} } });
    server.handle("echo", (params: { n: number }) => ({ n: params.n }));
    const serving = server.serve(fromMessagePort(port2));
    const client = await ContextClient.connect(fromMessagePort(port1), { era, eraCache: new EraCache() });
    assertStrictEquals(client.era, era === "legacy" ? "legacy" : "modern");
    const results = await Promise.all(Array.from({ length: 1_000 }, (_, n) => client.request("echo", { n }) as Promise<{ n: number }>));
    assertEquals(results.map((r) => r.n), Array.from({ length: 1_000 }, (_, n) => n));
    await client.close();
    assertStrictEquals((await serving).reason, "eof");
  });
}
