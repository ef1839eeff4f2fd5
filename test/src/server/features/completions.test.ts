import { describe, expect, it } from "vitest";
import { ServerFeatures } from "../../../../src/server/features/server_features.ts";
import { FakeHost, modernContext } from "./helpers.ts";

function setup() {
  const host = new FakeHost();
  const features = new ServerFeatures(host);
  features.prompt("p", {
    arguments: [{ name: "lang" }, { name: "plain" }],
    complete: { lang: (value) => ["go", "rust", "ruby"].filter((l) => l.startsWith(value)) },
  }, () => "x");
  features.resourceTemplate("repo://{owner}/{name}", {
    complete: {
      name: (
        value,
        { arguments: known },
      ) => [`${known.owner ?? "?"}/${value}1`, `${known.owner ?? "?"}/${value}2`],
    },
  }, () => "x");
  return { host, features };
}

describe("Completions (completion/complete)", () => {
  it("completes a prompt argument with its completer", async () => {
    const { host } = setup();
    expect(
      await host.call("completion/complete", {
        ref: { type: "ref/prompt", name: "p" },
        argument: { name: "lang", value: "r" },
      }, modernContext()),
    ).toEqual({
      completion: { values: ["rust", "ruby"], total: 2, hasMore: false },
    });
  });

  it("completes a template variable, handing the completer the arguments already known", async () => {
    const { host } = setup();
    const params = {
      ref: { type: "ref/resource", uri: "repo://{owner}/{name}" },
      argument: { name: "name", value: "x" },
      context: { arguments: { owner: "me" } },
    };
    expect((await host.call("completion/complete", params, modernContext())).completion.values).toEqual([
      "me/x1",
      "me/x2",
    ]);
  });

  it("gives no values for an argument without a completer", async () => {
    const { host } = setup();
    expect(
      await host.call("completion/complete", {
        ref: { type: "ref/prompt", name: "p" },
        argument: { name: "plain", value: "" },
      }, modernContext()),
    ).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
  });

  it("sends at most 100 values, with total and hasMore telling the rest; exactly 100 has no more", async () => {
    const host = new FakeHost();
    const features = new ServerFeatures(host);
    let count = 101;
    features.prompt("many", {
      arguments: [{ name: "a" }],
      complete: { a: () => Array.from({ length: count }, (_, i) => String(i)) },
    }, () => "x");
    const ask = () =>
      host.call("completion/complete", {
        ref: { type: "ref/prompt", name: "many" },
        argument: { name: "a", value: "" },
      }, modernContext());
    const over = (await ask()).completion;
    expect(over.values).toHaveLength(100);
    expect(over).toMatchObject({ total: 101, hasMore: true });
    count = 100;
    expect((await ask()).completion).toMatchObject({ total: 100, hasMore: false });
  });

  it("answers an unknown prompt or template and a malformed ref with -32602", async () => {
    const { host } = setup();
    await expect(
      host.call("completion/complete", {
        ref: { type: "ref/prompt", name: "nope" },
        argument: { name: "a", value: "" },
      }, modernContext()),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      host.call("completion/complete", {
        ref: { type: "ref/resource", uri: "x://{y}" },
        argument: { name: "y", value: "" },
      }, modernContext()),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      host.call(
        "completion/complete",
        { ref: { type: "ref/other" }, argument: { name: "a", value: "" } },
        modernContext(),
      ),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      host.call("completion/complete", { ref: { type: "ref/prompt", name: "p" } }, modernContext()),
    ).rejects.toMatchObject({ code: -32602 });
  });
});
