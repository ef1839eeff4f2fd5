/** Our ContextClient against our ContextServer over an in-memory pair, in every era mode. */
import { describe, expect, it } from "vitest";
import { ContextClient, type ContextClientOptions } from "../../../src/client/context_client.ts";
import { ContextServer, type ContextServerOptions } from "../../../src/server/context_server.ts";
import { LEGACY_VERSIONS, MetaKeys } from "../../../src/wire/protocol_versions.ts";
import { createDuplexPair } from "../../../testing/duplex_pair.ts";
import { FakeTimeProvider } from "../../../testing/fake_time_provider.ts";

function pair(serverOptions: Partial<ContextServerOptions> = {}) {
  const time = new FakeTimeProvider();
  const server = new ContextServer({
    name: "pair-server",
    version: "3.0.0",
    capabilities: { tools: {} },
    timeProvider: time,
    ...serverOptions,
  });
  server.handle(
    "tools/list",
    (_p, ctx) => ({ tools: [], era: ctx.era, client: ctx.clientInfo?.name ?? null }),
  );
  server.handle("tools/call", async (_p, ctx) => {
    await ctx.sendProgress(1, { total: 2, message: "half" });
    return { content: [{ type: "text", text: ctx.protocolVersion }] };
  });
  const [serverSide, clientSide] = createDuplexPair();
  const served = server.serve(serverSide);
  const connect = (options: ContextClientOptions) =>
    ContextClient.connect(clientSide, {
      timeProvider: time,
      eraCache: null,
      clientInfo: { name: "pair-client", version: "1" },
      ...options,
    });
  return { server, served, connect, time };
}

describe("ContextClient against ContextServer", () => {
  it("auto → modern: requests carry the envelope and results the server's identity", async () => {
    const { connect, served } = pair();
    const client = await connect({ era: "auto" });
    expect(client.era).toBe("modern");
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(client.serverInfo).toEqual({ name: "pair-server", version: "3.0.0" });
    const list = await client.request<Record<string, unknown>>("tools/list", {});
    expect(list).toMatchObject({
      tools: [],
      era: "modern",
      client: "pair-client",
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
    });
    expect((list._meta as Record<string, unknown>)[MetaKeys.serverInfo]).toEqual({
      name: "pair-server",
      version: "3.0.0",
    });
    await client.close();
    expect(["eof", "closed"]).toContain((await served).reason);
  });

  it("legacy → initialize at the newest legacy version", async () => {
    const { connect } = pair();
    const client = await connect({ era: "legacy" });
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(await client.request("tools/list", {})).toEqual({
      tools: [],
      era: "legacy",
      client: "pair-client",
    });
    await client.close();
  });

  it("modern → modern without initialize", async () => {
    const { connect } = pair();
    const client = await connect({ era: "modern" });
    expect(client.era).toBe("modern");
    await client.close();
  });

  it("auto against a legacy-only ContextServer → legacy (its -32022 lists only legacy versions)", async () => {
    const { connect } = pair({ supportedVersions: [...LEGACY_VERSIONS] });
    const client = await connect({ era: "auto" });
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-11-25");
    await client.close();
  });

  it("delivers progress tied to a request in both eras", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const { connect } = pair();
      const client = await connect({ era });
      const progress: unknown[] = [];
      client.onNotification("notifications/progress", (p) => void progress.push(p));
      const result = await client.request<{ content: { text: string }[] }>("tools/call", {
        name: "x",
        _meta: { progressToken: "t" },
      });
      expect(result.content[0].text).toBe(era === "modern" ? "2026-07-28" : "2025-11-25");
      expect(progress).toEqual([{ progressToken: "t", progress: 1, total: 2, message: "half" }]);
      await client.close();
    }
  });
});
