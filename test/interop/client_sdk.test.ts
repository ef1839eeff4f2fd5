// ContextClient against the official TypeScript SDK servers, as real child processes:
// @modelcontextprotocol/sdk@1.32.2 (legacy era only) and @modelcontextprotocol/server@2.4.0 serveStdio (both eras).
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { spawnProcess } from "../../adapters/node/mod.ts";
import { ContextClient, type ContextClientOptions } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import { TransportError } from "../../src/wire/errors.ts";

const LEGACY_SERVER = fileURLToPath(
  new URL("../fixtures/sdk/client_peers/legacy_server.mjs", import.meta.url),
);
const MODERN_SERVER = fileURLToPath(
  new URL("../fixtures/sdk/client_peers/modern_server.mjs", import.meta.url),
);

const sdk1 = () => spawnProcess(process.execPath, [LEGACY_SERVER]);
const sdk2 = (...args: string[]) => spawnProcess(process.execPath, [MODERN_SERVER, ...args]);

function options(
  extra: ContextClientOptions = {},
): Omit<ContextClientOptions, "eraCache"> & { eraCache: EraCache } {
  return { clientInfo: { name: "interop", version: "1.0.0" }, ...extra, eraCache: new EraCache() };
}

type ToolList = { tools: Array<{ name: string }> };
type CallResult = { content: Array<{ type: string; text: string }> };

describe("ContextClient against SDK 1.32 (legacy-only) McpServer over stdio", () => {
  it("auto: legacy after a definitive rejection; the cache learns legacy, and the next connect skips the probe", async () => {
    const transport = sdk1();
    const opts = options();
    const client = await ContextClient.connect(transport, opts);
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.negotiation).toMatchObject({
      outcome: "definitive_rejection",
      probes: 1,
      learned: "legacy",
    });
    expect(client.serverInfo).toMatchObject({ name: "sdk1-legacy", version: "1.32.2" });
    expect(client.instructions).toBe("sdk1 instructions");
    expect(opts.eraCache.get(transport.cacheKey)?.era).toBe("legacy");
    const list = await client.request<ToolList>("tools/list", {});
    expect(list.tools.map((t) => t.name)).toEqual(["echo"]);
    const call = await client.request<CallResult>("tools/call", { name: "echo", arguments: {} });
    expect(call.content[0].text).toBe("echo from sdk1");
    await client.close();

    const again = await ContextClient.connect(transport, opts);
    expect(again.negotiation).toMatchObject({ outcome: "cached_legacy", probes: 0, fromCache: true });
    expect((await again.request<ToolList>("tools/list", {})).tools).toHaveLength(1);
    await again.close();
  });

  it("legacy: initialize without a probe", async () => {
    const client = await ContextClient.connect(sdk1(), options({ era: "legacy" }));
    expect(client.era).toBe("legacy");
    expect(client.negotiation).toMatchObject({ outcome: "requested_legacy", probes: 0 });
    expect((await client.request<ToolList>("tools/list", {})).tools).toHaveLength(1);
    await client.close();
  });

  it("modern: fails with a clear error on the server's answer, not on a timeout", async () => {
    const error = await ContextClient.connect(sdk1(), options({ era: "modern" })).catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.code).toBe("negotiation_failed"); // a timeout would be code "timeout"
    // The server's -32601 decided it: no probe went unanswered, no step ran out.
    expect(error.message).toMatch(/does not speak the modern era \(era: "modern"\).*-32601/);
    expect(error.message).not.toMatch(/within|probeTimeout|connectTimeout/);
  });
});

describe("ContextClient against SDK 2.4 serveStdio (dual-era)", () => {
  it("auto: modern from the DiscoverResult; requests carry the envelope and work", async () => {
    const transport = sdk2();
    const opts = options();
    const client = await ContextClient.connect(transport, opts);
    expect(client.era).toBe("modern");
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(client.negotiation).toMatchObject({ outcome: "discovered_modern", probes: 1, learned: "modern" });
    expect(client.serverInfo).toMatchObject({ name: "sdk2-dual", version: "2.4.0" });
    expect(client.instructions).toBe("sdk2 instructions");
    expect(opts.eraCache.get(transport.cacheKey)?.era).toBe("modern");
    const list = await client.request<ToolList & { resultType: string }>("tools/list", {});
    expect(list.resultType).toBe("complete");
    expect(list.tools.map((t) => t.name)).toEqual(["echo"]);
    const call = await client.request<CallResult>("tools/call", { name: "echo", arguments: {} });
    expect(call.content[0].text).toBe("echo from sdk2");
    await client.close();

    const again = await ContextClient.connect(transport, opts);
    expect(again.negotiation).toMatchObject({ outcome: "cached_modern", fromCache: true });
    await again.close();
  });

  it("modern: modern", async () => {
    const client = await ContextClient.connect(sdk2(), options({ era: "modern" }));
    expect(client.era).toBe("modern");
    expect((await client.request<ToolList>("tools/list", {})).tools).toHaveLength(1);
    await client.close();
  });

  it("legacy: the dual-era server serves the legacy handshake", async () => {
    const client = await ContextClient.connect(sdk2(), options({ era: "legacy" }));
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverInfo).toMatchObject({ name: "sdk2-dual" });
    expect((await client.request<ToolList>("tools/list", {})).tools).toHaveLength(1);
    await client.close();
  });

  it("legacy against a modern-only server (legacy: 'reject'): fails with the server's answer named", async () => {
    const error = await ContextClient.connect(sdk2("reject"), options({ era: "legacy" })).catch((e) => e);
    expect(error.code).toBe("negotiation_failed");
    expect(error.message).toMatch(/Server rejected initialize \(protocolVersion 2025-11-25\) with -32022/);
  });

  it("auto against a modern-only server: modern", async () => {
    const client = await ContextClient.connect(sdk2("reject"), options());
    expect(client.era).toBe("modern");
    await client.close();
  });
});
