import { describe, expect, it } from "vitest";
import type { LogEntry } from "../../../../src/client/features/feature_types.ts";
import { InvalidOptionError } from "../../../../src/wire/errors.ts";
import { MetaKeys } from "../../../../src/wire/protocol_versions.ts";
import { connectScripted, type Handler, until } from "./helpers.ts";

const echo: Handler = (m, peer) => {
  if (m.id === undefined) return;
  if (m.method === "resources/read") {
    return peer.reply(m.id, { contents: [{ uri: m.params.uri, text: "body" }] });
  }
  if (m.method === "prompts/get") {
    return peer.reply(m.id, {
      messages: [{ role: "user", content: { type: "text", text: JSON.stringify(m.params.arguments) } }],
    });
  }
  if (m.method === "completion/complete") {
    return peer.reply(m.id, { completion: { values: [`${m.params.argument.value}x`], hasMore: false } });
  }
  peer.reply(m.id, {});
};

describe.each(["modern", "legacy"] as const)("resources, prompts, completions, logging (%s era)", (era) => {
  it("readResource sends the URI and resolves with the contents", async () => {
    const s = await connectScripted(era, echo);
    const result = await s.client.readResource("file:///notes.md");
    expect(result.contents).toEqual([{ uri: "file:///notes.md", text: "body" }]);
    await s.client.close();
  });

  it("getPrompt sends the name and arguments", async () => {
    const s = await connectScripted(era, echo);
    const result = await s.client.getPrompt("greet", { who: "Ada" });
    expect(s.requests("prompts/get")[0].params).toMatchObject({ name: "greet", arguments: { who: "Ada" } });
    expect(result.messages[0].content).toEqual({ type: "text", text: '{"who":"Ada"}' });
    await s.client.close();
  });

  it("complete sends ref, argument and the context arguments", async () => {
    const s = await connectScripted(era, echo);
    const result = await s.client.complete({ type: "ref/resource", uri: "file:///{path}" }, {
      name: "path",
      value: "RE",
    }, { context: { arguments: { root: "/" } } });
    expect(result.completion.values).toEqual(["REx"]);
    expect(s.requests("completion/complete")[0].params).toMatchObject({
      ref: { type: "ref/resource", uri: "file:///{path}" },
      argument: { name: "path", value: "RE" },
      context: { arguments: { root: "/" } },
    });
    await s.client.close();
  });

  it("onLog gets every notifications/message until its off function is called", async () => {
    const s = await connectScripted(era, echo);
    const entries: LogEntry[] = [];
    const off = s.client.onLog((entry) => entries.push(entry));
    s.peer.send({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "error", logger: "db", data: { code: 7 } },
    });
    await until(() => entries.length === 1);
    expect(entries[0]).toEqual({ level: "error", logger: "db", data: { code: 7 } });
    off();
    let landed = 0;
    s.client.onNotification("notifications/message", () => void landed++);
    s.peer.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } });
    await until(() => landed === 1);
    expect(entries).toHaveLength(1);
    await s.client.close();
  });

  it("setLogLevel refuses an unknown level, naming it", async () => {
    const s = await connectScripted(era, echo);
    const error = await s.client.setLogLevel("loud" as never).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error.message).toMatch(/"loud"/);
    await s.client.close();
  });
});

describe("era-specific calls", () => {
  it("legacy setLogLevel sends logging/setLevel and adds nothing to later requests", async () => {
    const s = await connectScripted("legacy", echo);
    await s.client.setLogLevel("debug");
    expect(s.requests("logging/setLevel")[0].params).toEqual({ level: "debug" });
    await s.client.readResource("file:///a");
    expect(s.requests("resources/read")[0].params._meta).toBeUndefined();
    expect(s.client.logLevel).toBe("debug");
    await s.client.close();
  });

  it("modern setLogLevel sends nothing, and later feature requests carry the _meta log level", async () => {
    const s = await connectScripted("modern", echo);
    await s.client.readResource("file:///a");
    expect(s.requests("resources/read")[0].params._meta[MetaKeys.logLevel]).toBeUndefined();
    await s.client.setLogLevel("notice");
    expect(s.requests("logging/setLevel")).toHaveLength(0);
    await s.client.readResource("file:///a");
    await s.client.listTools().catch(() => {});
    expect(s.requests("resources/read")[1].params._meta[MetaKeys.logLevel]).toBe("notice");
    expect(s.requests("tools/list")[0].params._meta[MetaKeys.logLevel]).toBe("notice");
    await s.client.close();
  });

  it("a per-request logLevel overrides the client's in the modern era and is ignored in the legacy era", async () => {
    const modern = await connectScripted("modern", echo);
    await modern.client.setLogLevel("error");
    await modern.client.readResource("file:///a", { logLevel: "debug" });
    await modern.client.readResource("file:///a");
    expect(modern.requests("resources/read").map((m) => m.params._meta[MetaKeys.logLevel])).toEqual([
      "debug",
      "error",
    ]);
    const legacy = await connectScripted("legacy", echo);
    await legacy.client.readResource("file:///a", { logLevel: "debug" });
    expect(legacy.requests("resources/read")[0].params._meta).toBeUndefined();
    await modern.client.close();
    await legacy.client.close();
  });

  it("subscribe and unsubscribe do not exist in the modern era: unsupported_in_era, nothing sent", async () => {
    const s = await connectScripted("modern", echo);
    expect(() => s.client.subscribe("file:///a")).toThrow(
      expect.objectContaining({ code: "unsupported_in_era", message: expect.stringMatching(/listen/) }),
    );
    expect(() => s.client.unsubscribe("file:///a")).toThrow(
      expect.objectContaining({ code: "unsupported_in_era" }),
    );
    expect(s.requests("resources/subscribe")).toHaveLength(0);
    await s.client.close();
  });

  it("legacy subscribe sends resources/subscribe once per URI, unsubscribe once the count is back to zero", async () => {
    const s = await connectScripted("legacy", echo);
    await s.client.subscribe("file:///a");
    await s.client.subscribe("file:///a");
    await s.client.unsubscribe("file:///a");
    expect(s.requests("resources/unsubscribe")).toHaveLength(0);
    await s.client.unsubscribe("file:///a");
    await s.client.unsubscribe("file:///a"); // not held: nothing sent
    expect(s.requests("resources/subscribe")).toHaveLength(1);
    expect(s.requests("resources/unsubscribe")).toHaveLength(1);
    await s.client.close();
  });

  it("a failed subscribe leaves the URI unheld, so the next subscribe asks again", async () => {
    let fail = true;
    const s = await connectScripted(
      "legacy",
      (m, peer) => (fail ? peer.error(m.id, -32602, "No such resource") : peer.reply(m.id, {})),
    );
    await expect(s.client.subscribe("file:///a")).rejects.toMatchObject({ code: -32602 });
    fail = false;
    await s.client.subscribe("file:///a");
    expect(s.requests("resources/subscribe")).toHaveLength(2);
    await s.client.close();
  });
});

describe("feature options", () => {
  it("a bad client-wide option fails the connect, naming it", async () => {
    await expect(connectScripted("modern", echo, { client: { features: { maxListPages: 0 } } })).rejects
      .toMatchObject({ code: "invalid_option", message: expect.stringMatching(/maxListPages/) });
  });
});
