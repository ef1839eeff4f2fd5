import { describe, expect, it } from "vitest";
import {
  decoratedResultText,
  envelopeMembersText,
  paramsTextWithEnvelope,
  serverInfoMembersText,
} from "../../../src/wire/envelope_text.ts";
import {
  decorateModernResult,
  type RequestEnvelope,
  withRequestEnvelope,
} from "../../../src/wire/meta_envelope.ts";

const envelope: RequestEnvelope = {
  protocolVersion: "2026-07-28",
  clientCapabilities: { elicitation: { form: {} } },
  clientInfo: { name: 'c"lient', version: "1.0.0" },
};
const members = envelopeMembersText(envelope);
const serverInfo = { name: "srv", version: "2.0.0" };
const resultMembers = serverInfoMembersText(serverInfo);

describe("paramsTextWithEnvelope", () => {
  it.each([
    ["no params", undefined],
    ["empty params", {}],
    ["a tool call", { name: "echo", arguments: { text: 'a\nb \u2028 "q" é' } }],
    ["params with an undefined member", { cursor: undefined, x: [1, null] }],
  ])("gives exactly the JSON of the object form for %s", (_name, params) => {
    const text = paramsTextWithEnvelope(params, members);
    expect(text).toBe(JSON.stringify(withRequestEnvelope(params, envelope)));
    expect(JSON.parse(text!)).toEqual(withRequestEnvelope(params, envelope));
  });

  it("leaves params with a _meta of their own to the object form, which merges it (the envelope wins)", () => {
    const params = { _meta: { progressToken: 7, "io.modelcontextprotocol/protocolVersion": "spoofed" } };
    expect(paramsTextWithEnvelope(params, members)).toBeUndefined();
    const merged = withRequestEnvelope(params, envelope)._meta as Record<string, unknown>;
    expect(merged.progressToken).toBe(7);
    expect(merged["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
  });

  it("leaves params with toJSON, or that are not plain objects, to the object form", () => {
    expect(paramsTextWithEnvelope({ toJSON: () => ({}) }, members)).toBeUndefined();
    expect(paramsTextWithEnvelope(new Date(0), members)).toBeUndefined();
    expect(paramsTextWithEnvelope([1], members)).toBeUndefined();
  });

  it("throws what JSON.stringify throws for params it cannot serialize", () => {
    expect(() => paramsTextWithEnvelope({ n: 1n }, members)).toThrow(TypeError);
  });
});

describe("decoratedResultText", () => {
  it.each([
    ["nothing", undefined],
    ["null", null],
    ["an empty result", {}],
    ["a tool result", { content: [{ type: "text", text: 'hi "there"' }], isError: false }],
  ])("gives exactly the JSON of decorateModernResult for %s", (_name, result) => {
    const text = decoratedResultText(result, resultMembers, "tools/call");
    expect(text).toBe(JSON.stringify(decorateModernResult(result, serverInfo, "tools/call")));
  });

  it("leaves results with their own resultType or _meta, cacheable methods, and non-objects to the object form", () => {
    expect(decoratedResultText({ resultType: "input_required" }, resultMembers, "tools/call"))
      .toBeUndefined();
    expect(decoratedResultText({ _meta: { a: 1 } }, resultMembers, "tools/call")).toBeUndefined();
    expect(decoratedResultText({ tools: [] }, resultMembers, "tools/list")).toBeUndefined();
    expect(decoratedResultText("text", resultMembers, "x/y")).toBeUndefined();
    expect(decoratedResultText({ toJSON: () => 1 }, resultMembers, "x/y")).toBeUndefined();
  });

  it("leaves a result JSON cannot serialize to the object form, whose send reports it", () => {
    expect(decoratedResultText({ n: 1n }, resultMembers, "x/y")).toBeUndefined();
  });
});
