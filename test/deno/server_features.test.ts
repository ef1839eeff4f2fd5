/**
 * The server feature layer on Deno: a ContextServer with a zod tool, a resource template and a prompt,
 * driven by our ContextClient in both eras over an in-memory pair (web APIs only: btoa, queueMicrotask).
 * @module
 */
import * as z from "zod";
import { ContextClient } from "../../src/client/context_client.ts";
import { ContextServer } from "../../src/server/context_server.ts";
import { createDuplexPair } from "../../testing/duplex_pair.ts";
import { assertEquals, assertStrictEquals } from "./assert.ts";

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

for (const era of ["legacy", "modern"] as const) {
  Deno.test(`ContextServer features on Deno, ${era} era: tools, template reads, prompts, pagination`, async () => {
    const server = new ContextServer({ name: "deno-features", version: "1", features: { pageSize: 1 } });
    server.tool(
      "add",
      { inputSchema: z.object({ a: z.number(), b: z.number() }) },
      ({ a, b }) => String(a + b),
    );
    server.tool("echo", {}, (args) => JSON.stringify(args));
    server.resourceTemplate("test://item/{id}", { mimeType: "text/plain" }, (_uri, { id }) => `item ${id}`);
    server.prompt("hello", { arguments: [{ name: "name", required: true }] }, ({ name }) => `Hello ${name}`);
    const [serverSide, clientSide] = createDuplexPair();
    const served = server.serve(serverSide);
    const client = await ContextClient.connect(clientSide, { era, eraCache: null });
    const first = await ask(client, "tools/list", {});
    assertEquals(first.tools.map((t: Json) => t.name), ["add"]);
    const second = await ask(client, "tools/list", { cursor: first.nextCursor });
    assertEquals(second.tools.map((t: Json) => t.name), ["echo"]);
    assertEquals((await ask(client, "tools/call", { name: "add", arguments: { a: 2, b: 3 } })).content, [{
      type: "text",
      text: "5",
    }]);
    assertStrictEquals(
      (await ask(client, "tools/call", { name: "add", arguments: { a: "2" } })).isError,
      true,
    );
    assertEquals((await ask(client, "resources/read", { uri: "test://item/9" })).contents, [{
      uri: "test://item/9",
      mimeType: "text/plain",
      text: "item 9",
    }]);
    assertEquals(
      (await ask(client, "prompts/get", { name: "hello", arguments: { name: "Deno" } })).messages,
      [{ role: "user", content: { type: "text", text: "Hello Deno" } }],
    );
    const code = await ask(client, "resources/read", { uri: "test://nothing" }).then(
      () => 0,
      (error: Json) => error.code,
    );
    assertStrictEquals(code, era === "modern" ? -32602 : -32002);
    await client.close();
    await served;
  });
}
