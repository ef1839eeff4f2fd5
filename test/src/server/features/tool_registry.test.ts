import { describe, expect, expectTypeOf, it, vi } from "vitest";
import * as z from "zod";
import { ServerFeatures } from "../../../../src/server/features/server_features.ts";
import { ErrorCodes, JsonRpcError } from "../../../../src/wire/errors.ts";
import { FakeHost, legacyContext, modernContext } from "./helpers.ts";

function setup(options: ConstructorParameters<typeof ServerFeatures>[1] = {}) {
  const host = new FakeHost();
  return { host, features: new ServerFeatures(host, options) };
}

describe("ToolRegistry (through ServerFeatures.tool)", () => {
  it("lists a tool with every descriptive field, and a tool without schema as accepting any object", async () => {
    const { host, features } = setup();
    features.tool("plain", {}, () => "ok");
    features.tool("full", {
      title: "Full",
      description: "Everything",
      inputSchema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      outputSchema: { type: "object", properties: { n: { type: "number" } } },
      annotations: { readOnlyHint: true },
      icons: [{ src: "https://example.com/i.png" }],
      _meta: { "example.com/k": 1 },
    }, () => ({ structuredContent: { n: 1 } }));
    const { tools } = await host.call("tools/list", {}, legacyContext());
    expect(tools).toEqual([
      { name: "plain", inputSchema: { type: "object" } },
      {
        name: "full",
        title: "Full",
        description: "Everything",
        inputSchema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        outputSchema: { type: "object", properties: { n: { type: "number" } } },
        annotations: { readOnlyHint: true },
        icons: [{ src: "https://example.com/i.png" }],
        _meta: { "example.com/k": 1 },
      },
    ]);
  });

  it("keeps a JSON Schema 2020-12 input schema exactly as given ($schema, $defs, $anchor, composition)", async () => {
    const { host, features } = setup();
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { $anchor: "addressDef", type: "object", properties: { city: { type: "string" } } } },
      properties: { address: { $ref: "#/$defs/address" } },
      allOf: [{ anyOf: [{ required: ["address"] }] }],
      additionalProperties: false,
    };
    features.tool("schema_tool", { inputSchema: schema }, () => "ok");
    const { tools } = await host.call("tools/list", {}, modernContext());
    expect(tools[0].inputSchema).toEqual(schema);
  });

  it("validates arguments before the handler runs: a failure is an isError result in both eras and the handler never runs", async () => {
    const { host, features } = setup();
    const handler = vi.fn(() => "ran");
    features.tool("add", {
      inputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
    }, handler);
    for (const context of [legacyContext(), modernContext()]) {
      const result = await host.call("tools/call", { name: "add", arguments: { a: "x" } }, context);
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/^Invalid arguments for tool add: \/a: /);
    }
    expect(handler).not.toHaveBeenCalled();
    expect(await host.call("tools/call", { name: "add", arguments: { a: 1 } }, modernContext())).toEqual({
      content: [{ type: "text", text: "ran" }],
    });
  });

  it("passes the parsed value of a zod schema to the handler, typed", async () => {
    const { host, features } = setup();
    features.tool(
      "greet",
      { inputSchema: z.object({ name: z.string(), times: z.number().default(2) }) },
      (args) => {
        expectTypeOf(args).toEqualTypeOf<{ name: string; times: number }>();
        return args.name.repeat(args.times);
      },
    );
    expect(await host.call("tools/call", { name: "greet", arguments: { name: "ab" } }, modernContext()))
      .toEqual({ content: [{ type: "text", text: "abab" }] });
    const { tools } = await host.call("tools/list", {}, modernContext());
    expect(tools[0].inputSchema).toMatchObject({ type: "object", properties: { name: { type: "string" } } });
  });

  it("turns a thrown error into an isError result, but keeps a thrown JsonRpcError a protocol error", async () => {
    const { host, features } = setup();
    features.tool("boom", {}, () => {
      throw new Error("Disk full");
    });
    features.tool("strict", {}, () => {
      throw new JsonRpcError(ErrorCodes.InvalidParams, "Nope");
    });
    expect(await host.call("tools/call", { name: "boom" }, legacyContext())).toEqual({
      content: [{ type: "text", text: "Disk full" }],
      isError: true,
    });
    await expect(host.call("tools/call", { name: "strict" }, legacyContext())).rejects.toMatchObject({
      code: -32602,
      message: "Nope",
    });
  });

  it("answers an unknown tool, a missing name and non-object arguments with -32602", async () => {
    const { host, features } = setup();
    features.tool("t", {}, () => "x");
    await expect(host.call("tools/call", { name: "nope" }, modernContext())).rejects.toMatchObject({
      code: -32602,
      message: "Unknown tool: nope",
    });
    await expect(host.call("tools/call", {}, modernContext())).rejects.toMatchObject({ code: -32602 });
    await expect(host.call("tools/call", { name: "t", arguments: [1] }, modernContext())).rejects
      .toMatchObject({ code: -32602 });
  });

  it("checks structuredContent against the output schema, and adds its JSON as text when content is absent", async () => {
    const { host, features } = setup();
    let value: unknown = { temp: 21 };
    features.tool(
      "weather",
      { outputSchema: z.object({ temp: z.number() }) },
      () => ({ structuredContent: value }),
    );
    expect(await host.call("tools/call", { name: "weather" }, modernContext())).toEqual({
      structuredContent: { temp: 21 },
      content: [{ type: "text", text: '{"temp":21}' }],
    });
    value = { temp: "warm" };
    await expect(host.call("tools/call", { name: "weather" }, modernContext())).rejects.toMatchObject({
      code: -32603,
      message: /does not match its output schema/,
    });
    value = undefined;
    await expect(host.call("tools/call", { name: "weather" }, modernContext())).rejects.toMatchObject({
      code: -32603,
      message: /returned no structuredContent/,
    });
  });

  it("does not check the output schema of an isError result, nor of an input_required result", async () => {
    const { host, features } = setup();
    let result: Record<string, unknown> = { isError: true, content: [{ type: "text", text: "failed" }] };
    features.tool("t", { outputSchema: { type: "object", required: ["x"] } }, () => result);
    expect(await host.call("tools/call", { name: "t" }, modernContext())).toEqual(result);
    result = { resultType: "input_required", requestState: "s" };
    expect(await host.call("tools/call", { name: "t" }, modernContext())).toEqual(result);
  });

  it("refuses names outside the spec's characters, a taken name and a missing handler", () => {
    const { features } = setup();
    features.tool("ok.name-1_x", {}, () => "x");
    expect(() => features.tool("ok.name-1_x", {}, () => "x")).toThrow(/already registered/);
    expect(() => features.tool("has space", {}, () => "x")).toThrow(/1 to 128 characters/);
    expect(() => features.tool("x".repeat(129), {}, () => "x")).toThrow(/1 to 128 characters/);
    expect(() => features.tool("x".repeat(128), {}, () => "x")).not.toThrow();
    expect(() => features.tool("nohandler", {}, undefined as never)).toThrow(/handler function/);
  });

  it("hands the handler a context with the era, the request _meta, progress and cancellation", async () => {
    const { host, features } = setup();
    const seen: unknown[] = [];
    features.tool("ctx", {}, async (_args, ctx) => {
      await ctx.sendProgress(1, { total: 2, message: "half" });
      seen.push(ctx.era, ctx.meta, ctx.signal.aborted, ctx.requestId);
      return "done";
    });
    const context = modernContext({ requestId: "r-7" });
    await host.call(
      "tools/call",
      { name: "ctx", _meta: { progressToken: "p", "example.com/trace": "t1" } },
      context,
    );
    expect(seen).toEqual(["modern", { progressToken: "p", "example.com/trace": "t1" }, false, "r-7"]);
    expect(context.sent).toEqual([{
      method: "notifications/progress",
      params: { progress: 1, total: 2, message: "half" },
    }]);
  });

  it("removing a tool takes it off tools/list and makes it unknown to tools/call", async () => {
    const { host, features } = setup();
    const tool = features.tool("gone", {}, () => "x");
    tool.remove();
    tool.remove();
    expect((await host.call("tools/list", {}, legacyContext())).tools).toEqual([]);
    await expect(host.call("tools/call", { name: "gone" }, legacyContext())).rejects.toMatchObject({
      code: -32602,
    });
    features.tool("gone", {}, () => "again");
    expect(await host.call("tools/call", { name: "gone" }, legacyContext())).toEqual({
      content: [{ type: "text", text: "again" }],
    });
  });
});
