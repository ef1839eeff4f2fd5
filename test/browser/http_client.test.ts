/**
 * Our HTTP client in Chromium, calling our server (started in Node by http_client_setup.ts) across
 * origins through CORS: the preflight admits every Mcp-* header, and Mcp-Session-Id is exposed.
 */
import { expect, inject, it } from "vitest";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { httpTransport } from "../../src/http/client/http_client_transport.ts";

for (const era of ["auto", "legacy"] as const) {
  it(`the page's fetch reaches our server through CORS (era ${era}): headers, progress over SSE, close`, async () => {
    const url = inject("httpUrl");
    expect(new URL(url).origin).not.toBe(location.origin);
    const client = await ContextClient.connect(httpTransport(url), { era, eraCache: new EraCache() });
    expect(client.era).toBe(era === "auto" ? "modern" : "legacy");
    await client.request("tools/list", {});
    const progress: string[] = [];
    const result = (await client.request("tools/call", {
      name: "echo",
      arguments: { region: "eu" },
      _meta: { progressToken: 1 },
    }, {
      onNotification: (method) => void progress.push(method),
    })) as { content: Array<{ text: string }> };
    expect(result.content[0].text).toBe(`${client.era} eu`);
    expect(progress).toEqual(["notifications/progress"]);
    await client.close();
  });
}
