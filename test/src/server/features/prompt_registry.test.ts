import { describe, expect, expectTypeOf, it } from "vitest";
import * as z from "zod";
import { ServerFeatures } from "../../../../src/server/features/server_features.ts";
import { FakeHost, legacyContext, modernContext } from "./helpers.ts";

const IMAGE =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

function setup() {
  const host = new FakeHost();
  return { host, features: new ServerFeatures(host) };
}

describe("PromptRegistry (through ServerFeatures.prompt)", () => {
  it("lists prompts with their arguments, derived from an argument schema when one is given", async () => {
    const { host, features } = setup();
    features.prompt("simple", { title: "Simple", description: "No arguments" }, () => "Hi");
    features.prompt(
      "listed",
      { arguments: [{ name: "a", description: "first", required: true }] },
      ({ a }) => a,
    );
    features.prompt("schema", {
      argsSchema: z.object({ arg1: z.string().describe("First"), arg2: z.string().optional() }),
    }, ({ arg1 }) => arg1);
    expect((await host.call("prompts/list", {}, legacyContext())).prompts).toEqual([
      { name: "simple", title: "Simple", description: "No arguments" },
      { name: "listed", arguments: [{ name: "a", description: "first", required: true }] },
      {
        name: "schema",
        arguments: [{ name: "arg1", description: "First", required: true }, { name: "arg2" }],
      },
    ]);
  });

  it("fills arguments into messages; a string result is one user text message", async () => {
    const { host, features } = setup();
    features.prompt("args", { argsSchema: z.object({ arg1: z.string(), arg2: z.string() }) }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ arg1: string; arg2: string }>();
      return `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`;
    });
    expect(
      await host.call(
        "prompts/get",
        { name: "args", arguments: { arg1: "hello", arg2: "world" } },
        modernContext(),
      ),
    ).toEqual({
      messages: [{
        role: "user",
        content: { type: "text", text: "Prompt with arguments: arg1='hello', arg2='world'" },
      }],
    });
  });

  it("carries embedded resources and images in messages as the handler gives them", async () => {
    const { host, features } = setup();
    features.prompt("rich", { arguments: [{ name: "resourceUri", required: true }] }, ({ resourceUri }) => [
      {
        role: "user",
        content: {
          type: "resource",
          resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded" },
        },
      },
      { role: "user", content: { type: "image", data: IMAGE, mimeType: "image/png" } },
    ]);
    const { messages } = await host.call("prompts/get", {
      name: "rich",
      arguments: { resourceUri: "test://x" },
    }, legacyContext());
    expect(messages[0].content).toEqual({
      type: "resource",
      resource: { uri: "test://x", mimeType: "text/plain", text: "Embedded" },
    });
    expect(messages[1].content).toEqual({ type: "image", data: IMAGE, mimeType: "image/png" });
  });

  it("answers an unknown prompt, a missing required argument and an argument failing its schema with -32602", async () => {
    const { host, features } = setup();
    features.prompt("listed", { arguments: [{ name: "a", required: true }] }, ({ a }) => a);
    features.prompt("schema", {
      argsSchema: { type: "object", properties: { n: { type: "string", pattern: "^[0-9]+$" } } },
    }, () => "x");
    await expect(host.call("prompts/get", { name: "nope" }, modernContext())).rejects.toMatchObject({
      code: -32602,
      message: "Unknown prompt: nope",
    });
    await expect(host.call("prompts/get", { name: "listed", arguments: {} }, modernContext())).rejects
      .toMatchObject({ code: -32602, message: /Missing required arguments of prompt listed: a/ });
    await expect(host.call("prompts/get", { name: "listed", arguments: { a: 1 } }, modernContext())).rejects
      .toMatchObject({ code: -32602 });
    await expect(host.call("prompts/get", { name: "schema", arguments: { n: "x" } }, modernContext())).rejects
      .toMatchObject({ code: -32602, message: /Invalid arguments for prompt schema: \/n/ });
    expect(await host.call("prompts/get", { name: "schema", arguments: { n: "12" } }, modernContext()))
      .toMatchObject({ messages: [{ role: "user" }] });
  });

  it("refuses both arguments and argsSchema, a taken name and a completer for an unknown argument", () => {
    const { features } = setup();
    features.prompt("p", {}, () => "x");
    expect(() => features.prompt("p", {}, () => "x")).toThrow(/already registered/);
    expect(() => features.prompt("q", { arguments: [], argsSchema: { type: "object" } }, () => "x")).toThrow(
      /not both/,
    );
    expect(() => features.prompt("r", { arguments: [{ name: "a" }], complete: { b: () => [] } }, () => "x"))
      .toThrow(/no argument "b"/);
  });

  it("a handler returning no messages is an internal error", async () => {
    const { host, features } = setup();
    features.prompt("bad", {}, () => ({}) as never);
    await expect(host.call("prompts/get", { name: "bad" }, modernContext())).rejects.toMatchObject({
      code: -32603,
    });
  });
});
