// A server's outputSchema with a catastrophic pattern cannot freeze the client (issue 25.15): the
// default validator of callTool skips a pattern that could backtrack exponentially and checks the rest.
// Without the fix, validating the 24-character string below takes seconds and then rejects it; with
// 40 characters it would block the event loop for days.
import { describe, expect, it } from "vitest";
import { StructuredContentError } from "../../../../src/client/features/feature_errors.ts";
import { connectScripted, type Handler } from "./helpers.ts";

const HOSTILE = {
  name: "hostile",
  inputSchema: { type: "object" },
  outputSchema: {
    type: "object",
    properties: { s: { type: "string", pattern: "^(a+)+$" }, n: { type: "number" } },
    required: ["s"],
  },
};

function server(structuredContent: unknown): Handler {
  return (m, peer) => {
    if (m.method === "tools/list") return peer.reply(m.id, { tools: [HOSTILE] });
    if (m.method === "tools/call") return peer.reply(m.id, { content: [], structuredContent });
  };
}

describe.each(["modern", "legacy"] as const)("a hostile outputSchema pattern (%s era)", (era) => {
  it("is skipped: the call resolves with the result the pattern would have stalled on", async () => {
    const s = await connectScripted(era, server({ s: `${"a".repeat(24)}!` }));
    await s.client.listTools();
    const result = await s.client.callTool("hostile", {});
    expect(result.structuredContent).toEqual({ s: `${"a".repeat(24)}!` });
    await s.client.close();
  });

  it("the rest of the schema is still checked", async () => {
    const s = await connectScripted(era, server({ s: "aaa", n: "not a number" }));
    await s.client.listTools();
    await expect(s.client.callTool("hostile", {})).rejects.toBeInstanceOf(StructuredContentError);
    await s.client.close();
  });
});
