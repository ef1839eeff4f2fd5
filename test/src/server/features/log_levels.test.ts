import { describe, expect, it } from "vitest";
import { ServerFeatures } from "../../../../src/server/features/server_features.ts";
import { FakeHost, FakeSession, legacyContext, modernContext } from "./helpers.ts";

function setup() {
  const host = new FakeHost();
  const features = new ServerFeatures(host);
  features.tool("log", {}, async (_args, ctx) => {
    await ctx.log("debug", "d");
    await ctx.log("warning", { w: 1 }, "db");
    return "ok";
  });
  return { host, features };
}

const messages = (sent: { method: string; params: unknown }[]) =>
  sent.filter((m) => m.method === "notifications/message").map((m) => m.params);

describe("logging: ctx.log, logging/setLevel and the modern per-request level", () => {
  it("sends nothing on a modern request without a _meta log level", async () => {
    const { host } = setup();
    const context = modernContext();
    await host.call("tools/call", { name: "log" }, context);
    expect(messages(context.sent)).toEqual([]);
  });

  it("sends messages at or above the modern request's level", async () => {
    const { host } = setup();
    const context = modernContext({ logLevel: "info" });
    await host.call("tools/call", { name: "log" }, context);
    expect(messages(context.sent)).toEqual([{ level: "warning", data: { w: 1 }, logger: "db" }]);
  });

  it("keeps the level per legacy session: every level until setLevel, then only at or above it", async () => {
    const { host } = setup();
    const session = new FakeSession();
    const other = new FakeSession();
    const before = legacyContext(session);
    await host.call("tools/call", { name: "log" }, before);
    expect(messages(before.sent)).toHaveLength(2);
    expect(await host.call("logging/setLevel", { level: "error" }, legacyContext(session))).toEqual({});
    const after = legacyContext(session);
    await host.call("tools/call", { name: "log" }, after);
    expect(messages(after.sent)).toEqual([]);
    const elsewhere = legacyContext(other);
    await host.call("tools/call", { name: "log" }, elsewhere);
    expect(messages(elsewhere.sent)).toHaveLength(2);
  });

  it("answers logging/setLevel with an unknown level with -32602, and in the modern era with -32601", async () => {
    const { host } = setup();
    await expect(host.call("logging/setLevel", { level: "loud" }, legacyContext())).rejects.toMatchObject({
      code: -32602,
    });
    await expect(host.call("logging/setLevel", { level: "info" }, modernContext())).rejects.toMatchObject({
      code: -32601,
    });
  });

  it("refuses an unknown level in ctx.log", async () => {
    const host = new FakeHost();
    new ServerFeatures(host).tool("bad", {}, async (_a, ctx) => {
      await ctx.log("loud" as never, "x");
      return "x";
    });
    expect(await host.call("tools/call", { name: "bad" }, modernContext({ logLevel: "debug" })))
      .toMatchObject({ isError: true, content: [{ text: /Log level must be/ }] });
  });
});
