/**
 * The schema layer on Bun: the default validator (@cfworker/json-schema) compiles and validates
 * 2020-12, never fetches a $ref, and toolSchema works with zod, valibot and arktype.
 * @module
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import * as z from "zod";
import { JsonSchemaValidator } from "../../src/schema/json_schema_validator.ts";
import { SchemaError } from "../../src/schema/schema_error.ts";
import { toolSchema } from "../../src/schema/tool_schema.ts";

describe("schema layer on Bun", () => {
  test("JsonSchemaValidator validates 2020-12 keywords ($defs, prefixItems, unevaluatedProperties, dependentRequired)", () => {
    const compiled = new JsonSchemaValidator().compile({
      $defs: { word: { type: "string", minLength: 1 } },
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ $ref: "#/$defs/word" }, { type: "integer" }], items: false } },
      dependentRequired: { pair: ["label"] },
      unevaluatedProperties: false,
      patternProperties: { "^l": { type: "string" } },
    });
    expect(compiled.validate({ pair: ["a", 1], label: "x" })).toEqual({ valid: true });
    expect(compiled.validate({ pair: ["", 1], label: "x" })).toEqual({
      valid: false,
      errors: [{ path: "/pair/0", message: "String is too short (0 < 1)." }],
    });
    expect(compiled.validate({ pair: ["a", 1] }).valid).toBe(false);
    expect(compiled.validate({ pair: ["a", 1], label: "x", other: 1 }).valid).toBe(false);
  });

  test("JsonSchemaValidator refuses a remote $ref at compile time without fetching", () => {
    const original = globalThis.fetch;
    let fetched = 0;
    globalThis.fetch = Object.assign(() => {
      fetched++;
      throw new Error("fetch must not be called");
    }, { preconnect: () => {} }) as unknown as typeof fetch;
    try {
      let error: unknown;
      try {
        new JsonSchemaValidator().compile({ $ref: "https://example.com/remote.json" });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as SchemaError).code).toBe("unresolved_ref");
      expect(fetched).toBe(0);
    } finally {
      globalThis.fetch = original;
    }
  });

  test("a value nesting deeper than maxDepth is reported, not recursed into", () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const compiled = new JsonSchemaValidator().compile({ $defs: { n: { type: "array", items: { $ref: "#/$defs/n" } } }, $ref: "#/$defs/n" });
    expect(compiled.validate(deep)).toEqual({
      valid: false,
      errors: [{ path: "", message: "Value nests deeper than 128 levels (maxDepth); it was not validated" }],
    });
  });

  test("toolSchema derives and validates zod, valibot and arktype schemas", async () => {
    const fromZod = toolSchema(z.object({ city: z.string() }));
    expect(fromZod.jsonSchema.properties).toEqual({ city: { type: "string" } });
    expect(await fromZod.validate({ city: "Oslo" })).toEqual({ valid: true, value: { city: "Oslo" } });
    const fromValibot = toolSchema(v.object({ city: v.string() }), { converter: (schema) => toJsonSchema(schema) });
    expect(fromValibot.jsonSchema.properties).toEqual({ city: { type: "string" } });
    expect((await fromValibot.validate({ city: 1 })).valid).toBe(false);
    const fromArktype = toolSchema(type({ city: "string" }));
    expect(fromArktype.jsonSchema.properties).toEqual({ city: { type: "string" } });
    expect(await fromArktype.validate({ city: "Oslo" })).toEqual({ valid: true, value: { city: "Oslo" } });
  });
});
