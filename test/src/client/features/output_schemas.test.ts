import { describe, expect, it } from "vitest";
import { OutputSchemas } from "../../../../src/client/features/output_schemas.ts";
import { JsonSchemaValidator } from "../../../../src/schema/json_schema_validator.ts";

const tool = (name: string) => ({
  name,
  inputSchema: { type: "object" },
  outputSchema: { type: "object", required: ["x"] },
});

describe("OutputSchemas", () => {
  it("remembers at most maxEntries schemas: the oldest goes first, and none goes early", () => {
    const schemas = new OutputSchemas(new JsonSchemaValidator(), 2);
    schemas.remember(tool("a"));
    schemas.remember(tool("b"));
    expect([schemas.has("a"), schemas.has("b")]).toEqual([true, true]);
    schemas.remember(tool("c"));
    expect([schemas.has("a"), schemas.has("b"), schemas.has("c")]).toEqual([false, true, true]);
  });

  it("a listing replaces every schema; a tool listed without one is no longer checked", () => {
    const schemas = new OutputSchemas(new JsonSchemaValidator(), 10);
    schemas.replace([tool("a"), tool("b")]);
    schemas.replace([tool("b"), { name: "a", inputSchema: { type: "object" } }]);
    expect([schemas.has("a"), schemas.has("b")]).toEqual([false, true]);
    expect(() => schemas.check("a", { content: [] })).not.toThrow();
    expect(() => schemas.check("b", { content: [], structuredContent: {} })).toThrow(/does not match/);
  });
});
