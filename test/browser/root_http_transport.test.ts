/**
 * The root entry's `httpTransport` in Chromium: `import … from "onemodelcontext"` (the package's own
 * exports, resolved as a bundler resolves them for a page) reaches our server started in Node by
 * http_client_setup.ts, with the page's own `fetch`; no Node entry, no undici.
 */
import { ContextClient, EraCache, httpTransport } from "onemodelcontext";
import { expect, inject, it } from "vitest";

it("httpTransport from the package root connects a page to our server with the page's fetch", async () => {
  const url = inject("httpUrl");
  let fetches = 0;
  const pageFetch: typeof fetch = (input, init) => {
    fetches++;
    return fetch(input, init);
  };
  const transport = httpTransport(url, { fetch: pageFetch });
  expect(transport.url).toBe(url);
  const client = await ContextClient.connect(transport, { era: "auto", eraCache: new EraCache() });
  expect(client.era).toBe("modern");
  const result = (await client.request("tools/call", { name: "echo", arguments: { region: "eu" } })) as {
    content: Array<{ text: string }>;
  };
  expect(result.content[0]!.text).toBe("modern eu");
  expect(fetches).toBeGreaterThanOrEqual(2); // the discover probe and the call, through the page's fetch
  await client.close();
});
