/**
 * The schema conformance suite (test/conformance/schema_suite.ts), registered on Bun, plus the schema
 * libraries only the Bun suite loads: valibot and arktype.
 * @module
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import { expect, test } from "bun:test";
import * as v from "valibot";
import { toolSchema } from "../../src/schema/tool_schema.ts";
import { schemaSuite } from "../conformance/schema_suite.ts";

schemaSuite({ test: (name, fn, timeoutMs = 60_000) => void test(name, fn, timeoutMs) }, "bun");

test("[bun] toolSchema derives and validates valibot and arktype schemas", async () => {
  const fromValibot = toolSchema(v.object({ city: v.string() }), {
    converter: (schema) => toJsonSchema(schema),
  });
  expect(fromValibot.jsonSchema.properties).toEqual({ city: { type: "string" } });
  expect((await fromValibot.validate({ city: 1 })).valid).toBe(false);
  const fromArktype = toolSchema(type({ city: "string" }));
  expect(fromArktype.jsonSchema.properties).toEqual({ city: { type: "string" } });
  expect(await fromArktype.validate({ city: "Oslo" })).toEqual({ valid: true, value: { city: "Oslo" } });
});
