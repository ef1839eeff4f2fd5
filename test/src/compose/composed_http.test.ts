/**
 * ComposedServer mounting HTTP upstreams of either era (a modern server, a legacy-only one, and the
 * official SDK 1.32 server on the deprecated HTTP+SSE transport), reached by one client.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ContextClient } from "../../../src/client/context_client.ts";
import { ComposedServer } from "../../../src/compose/composed_server.ts";
import { inProcessTransport } from "../../../src/compose/in_process_transport.ts";
import { httpTransport } from "../../../src/http/client/http_client_transport.ts";
import { createHttpHandler } from "../../../src/http/server/create_http_handler.ts";
import { ContextServer } from "../../../src/server/context_server.ts";
import { LEGACY_VERSIONS } from "../../../src/wire/protocol_versions.ts";
import { serve } from "../../../adapters/node/_serve.ts";
import { serveSdkSse } from "../../fixtures/sdk/http_peers/sdk_sse_server.ts";

// deno-lint-ignore no-explicit-any
type Loose = any;

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function httpUpstream(name: string, supportedVersions?: readonly string[]): Promise<string> {
  const server = new ContextServer({
    name,
    version: "1",
    ...(supportedVersions ? { supportedVersions } : {}),
  });
  server.tool("whoami", {}, () => name);
  const http = await serve(createHttpHandler(server, { path: "/mcp", sessions: true }), {
    port: 0,
    hostname: "127.0.0.1",
  });
  cleanup.push(async () => {
    await http.close();
    await server.close();
  });
  return new URL("/mcp", http.url).href;
}

describe("ComposedServer over HTTP upstreams", () => {
  it("mounts a modern, a legacy-only and an HTTP+SSE server and forwards to each", async () => {
    const modern = await httpUpstream("modern");
    const legacy = await httpUpstream("legacy", LEGACY_VERSIONS);
    const sse = await serveSdkSse();
    cleanup.push(() => sse.close());
    const composed = new ComposedServer({ name: "gw", version: "1" });
    cleanup.push(() => composed.close());
    const m = await composed.mount("m", httpTransport(modern));
    const l = await composed.mount("l", httpTransport(legacy));
    const s = await composed.mount("s", httpTransport(sse.url));
    expect([m.client.era, l.client.era, s.client.era]).toEqual(["modern", "legacy", "legacy"]);
    const client = await ContextClient.connect(inProcessTransport(composed), { eraCache: null });
    cleanup.push(() => client.close());
    const names = (await client.request("tools/list", {}) as Loose).tools.map((t: Loose) => t.name).sort();
    expect(names).toEqual(["l_whoami", "m_whoami", "s_echo"]);
    const text = async (name: string, args: object = {}) =>
      ((await client.request("tools/call", { name, arguments: args })) as Loose).content[0].text;
    expect(await text("m_whoami")).toBe("modern");
    expect(await text("l_whoami")).toBe("legacy");
    expect(await text("s_echo", { text: "hi" })).toBe("echo hi");
  });
});
