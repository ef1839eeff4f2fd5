/** The server feature layer on Bun: tools, a template, a prompt and a listen stream, in both eras, over an in-memory pair. */
import { describe, expect, it } from "bun:test";
import * as z from "zod";
import { ContextClient } from "../../src/client/context_client.ts";
import { ContextServer } from "../../src/server/context_server.ts";
import { MetaKeys } from "../../src/wire/protocol_versions.ts";
import { createDuplexPair } from "../../testing/duplex_pair.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A raw request whose result the test reads untyped. */
function ask(
  client: ContextClient,
  method: string,
  params?: Record<string, unknown>,
  options?: { signal?: AbortSignal },
): Promise<Json> {
  return client.request(method, params, options) as Promise<Json>;
}

describe("ContextServer features on Bun", () => {
  for (const era of ["legacy", "modern"] as const) {
    it(`${era}: tools, template reads and prompts answer; an unknown resource gets the era's code`, async () => {
      const server = new ContextServer({ name: "bun-features", version: "1" });
      server.tool(
        "add",
        { inputSchema: z.object({ a: z.number(), b: z.number() }) },
        ({ a, b }) => String(a + b),
      );
      server.resourceTemplate("test://item/{id}", {}, (_uri, { id }) => `item ${id}`);
      server.prompt(
        "hello",
        { arguments: [{ name: "name", required: true }] },
        ({ name }) => `Hello ${name}`,
      );
      const [serverSide, clientSide] = createDuplexPair();
      const served = server.serve(serverSide);
      const client = await ContextClient.connect(clientSide, { era, eraCache: null });
      expect((await ask(client, "tools/call", { name: "add", arguments: { a: 2, b: 3 } })).content).toEqual([{
        type: "text",
        text: "5",
      }]);
      expect((await ask(client, "resources/read", { uri: "test://item/9" })).contents).toEqual([{
        uri: "test://item/9",
        text: "item 9",
      }]);
      expect(
        (await ask(client, "prompts/get", { name: "hello", arguments: { name: "Bun" } })).messages[0].content
          .text,
      ).toBe("Hello Bun");
      const code = await ask(client, "resources/read", { uri: "test://nothing" }).then(
        () => 0,
        (error: Json) => error.code,
      );
      expect(code).toBe(era === "modern" ? -32602 : -32002);
      await client.close();
      await served;
    });
  }

  it("modern: a listen stream is acknowledged and carries list_changed stamped with its id", async () => {
    const server = new ContextServer({ name: "bun-features", version: "1" });
    server.tool("first", {}, () => "x");
    const [serverSide, clientSide] = createDuplexPair();
    void server.serve(serverSide);
    const client = await ContextClient.connect(clientSide, { era: "modern", eraCache: null });
    const seen: Json[] = [];
    let acknowledged!: () => void;
    const ack = new Promise<void>((resolve) => (acknowledged = resolve));
    client.onNotification("notifications/subscriptions/acknowledged", () => acknowledged());
    let changed!: () => void;
    const change = new Promise<void>((resolve) => (changed = resolve));
    client.onNotification("notifications/tools/list_changed", (params) => {
      seen.push(params);
      changed();
    });
    const listening = ask(client, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    await ack;
    server.tool("second", {}, () => "y");
    await change;
    expect(seen).toHaveLength(1);
    expect(seen[0]._meta[MetaKeys.subscriptionId]).toBeDefined();
    await server.close();
    expect((await listening)._meta[MetaKeys.subscriptionId]).toBe(seen[0]._meta[MetaKeys.subscriptionId]);
    await client.close();
  });
});
