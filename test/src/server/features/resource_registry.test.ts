import { describe, expect, it } from "vitest";
import { ServerFeatures } from "../../../../src/server/features/server_features.ts";
import { FakeHost, legacyContext, modernContext } from "./helpers.ts";

function setup() {
  const host = new FakeHost();
  return { host, features: new ServerFeatures(host) };
}

describe("ResourceRegistry (through ServerFeatures.resource / resourceTemplate)", () => {
  it("lists static resources with their metadata, the name defaulting to the URI", async () => {
    const { host, features } = setup();
    features.resource("test://static-text", {
      name: "static-text",
      title: "Static",
      description: "d",
      mimeType: "text/plain",
      text: "hello",
    });
    features.resource("test://nameless", { text: "x" });
    expect((await host.call("resources/list", {}, legacyContext())).resources).toEqual([
      {
        uri: "test://static-text",
        name: "static-text",
        title: "Static",
        description: "d",
        mimeType: "text/plain",
      },
      { uri: "test://nameless", name: "test://nameless" },
    ]);
  });

  it("reads static text and binary content, a Uint8Array going out as base64", async () => {
    const { host, features } = setup();
    features.resource("test://text", { mimeType: "text/plain", text: "hello" });
    features.resource("test://blob", { mimeType: "image/png", blob: new Uint8Array([1, 2, 3]) });
    features.resource("test://dynamic", { mimeType: "application/json" }, (uri) => JSON.stringify({ uri }));
    expect(await host.call("resources/read", { uri: "test://text" }, legacyContext())).toEqual({
      contents: [{ uri: "test://text", mimeType: "text/plain", text: "hello" }],
    });
    expect(await host.call("resources/read", { uri: "test://blob" }, legacyContext())).toEqual({
      contents: [{ uri: "test://blob", mimeType: "image/png", blob: "AQID" }],
    });
    expect(await host.call("resources/read", { uri: "test://dynamic" }, modernContext())).toEqual({
      contents: [{ uri: "test://dynamic", mimeType: "application/json", text: '{"uri":"test://dynamic"}' }],
    });
  });

  it("answers an unknown resource with -32602 in the modern era and -32002 in the legacy era, naming the URI in data", async () => {
    const { host, features } = setup();
    features.resource("test://a", { text: "a" });
    await expect(host.call("resources/read", { uri: "test://missing" }, modernContext())).rejects
      .toMatchObject({ code: -32602, data: { uri: "test://missing" } });
    await expect(host.call("resources/read", { uri: "test://missing" }, legacyContext())).rejects
      .toMatchObject({ code: -32002, data: { uri: "test://missing" } });
  });

  it("refuses to answer with empty contents: a reader returning none is an internal error", async () => {
    const { host, features } = setup();
    features.resource("test://empty", {}, () => ({ contents: [] }));
    await expect(host.call("resources/read", { uri: "test://empty" }, modernContext())).rejects.toMatchObject(
      { code: -32603 },
    );
  });

  it("reads through a template with its variables, after exact static URIs", async () => {
    const { host, features } = setup();
    features.resourceTemplate(
      "test://template/{id}/data",
      { name: "template", mimeType: "application/json" },
      (_uri, { id }) => ({ text: JSON.stringify({ id }) }),
    );
    features.resource("test://template/static/data", { text: "static wins" });
    expect(await host.call("resources/read", { uri: "test://template/123/data" }, modernContext())).toEqual({
      contents: [{ uri: "test://template/123/data", text: '{"id":"123"}', mimeType: "application/json" }],
    });
    expect(
      (await host.call("resources/read", { uri: "test://template/static/data" }, modernContext())).contents[0]
        .text,
    ).toBe("static wins");
    expect((await host.call("resources/templates/list", {}, legacyContext())).resourceTemplates).toEqual([
      { uriTemplate: "test://template/{id}/data", name: "template", mimeType: "application/json" },
    ]);
  });

  it("adds what a template's list callback names to resources/list", async () => {
    const { host, features } = setup();
    features.resource("test://one", { text: "1" });
    features.resourceTemplate("test://item/{n}", {
      list: () => [{ uri: "test://item/1", name: "item 1" }, { uri: "test://item/2", name: "item 2" }],
    }, () => "x");
    expect(
      (await host.call("resources/list", {}, legacyContext())).resources.map((r: { uri: string }) => r.uri),
    ).toEqual(["test://one", "test://item/1", "test://item/2"]);
  });

  it("carries the list cache hint only on modern list results", async () => {
    const host = new FakeHost();
    const features = new ServerFeatures(host, { listCache: { ttlMs: 300000, cacheScope: "public" } });
    features.resource("test://a", { text: "a" });
    expect(await host.call("resources/list", {}, modernContext())).toMatchObject({
      ttlMs: 300000,
      cacheScope: "public",
    });
    expect(await host.call("resources/templates/list", {}, modernContext())).toMatchObject({
      ttlMs: 300000,
      cacheScope: "public",
    });
    expect(await host.call("resources/list", {}, legacyContext())).not.toHaveProperty("ttlMs");
  });

  it("refuses a taken URI, a resource with neither content nor reader, and a completer for a variable the template lacks", () => {
    const { features } = setup();
    features.resource("test://a", { text: "a" });
    expect(() => features.resource("test://a", { text: "b" })).toThrow(/already registered/);
    expect(() => features.resource("test://b", {})).toThrow(/needs text, blob or a read callback/);
    expect(() => features.resourceTemplate("test://{id}", { complete: { other: () => [] } }, () => "x"))
      .toThrow(/no variable "other"/);
    expect(() => features.resourceTemplate("test://{id*}", {}, () => "x")).toThrow(/level 4/);
  });

  it("removing a resource makes it unknown", async () => {
    const { host, features } = setup();
    const resource = features.resource("test://a", { text: "a" });
    resource.remove();
    await expect(host.call("resources/read", { uri: "test://a" }, modernContext())).rejects.toMatchObject({
      code: -32602,
    });
  });
});

describe("ResourceRegistry maxUriLength", () => {
  const templated = (maxUriLength?: number) => {
    const host = new FakeHost();
    const features = new ServerFeatures(host, maxUriLength === undefined ? {} : { maxUriLength });
    features.resourceTemplate("t://{+path}", {}, (_uri, { path }) => `len ${path.length}`);
    return host;
  };
  const uriOf = (length: number) => `t://${"a".repeat(length - 4)}`;

  it("matches a URI of the default 16 384 characters and answers -32602 for one character more", async () => {
    const host = templated();
    expect(await host.call("resources/read", { uri: uriOf(16_384) }, modernContext())).toMatchObject({
      contents: [{ text: "len 16380" }],
    });
    await expect(host.call("resources/read", { uri: uriOf(16_385) }, modernContext())).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/16385 characters long, more than maxUriLength 16384/),
    });
  });

  it("holds a configured bound both ways, and an exact static URI is not bounded", async () => {
    const host = templated(100);
    expect(await host.call("resources/read", { uri: uriOf(100) }, legacyContext())).toMatchObject({
      contents: [{ text: "len 96" }],
    });
    await expect(host.call("resources/read", { uri: uriOf(101) }, legacyContext())).rejects.toMatchObject({
      code: -32602,
    });
    const features = new ServerFeatures(new FakeHost(), { maxUriLength: 10 });
    expect(() => features.resource(uriOf(50), { text: "x" })).not.toThrow();
    expect(() => new ServerFeatures(new FakeHost(), { maxUriLength: 0 })).toThrow(/maxUriLength/);
  });
});
