/**
 * The schema layer on a runtime's own module resolution: the default validator (@cfworker/json-schema,
 * from node_modules) compiles and validates 2020-12, never fetches a $ref, and `toolSchema` works with
 * zod. Written once, registered on Deno and Bun (Node runs the full suite in test/src/schema).
 * @module
 */
import * as z from "zod";
import { JsonSchemaValidator } from "../../src/schema/json_schema_validator.ts";
import { SchemaError } from "../../src/schema/schema_error.ts";
import { toolSchema } from "../../src/schema/tool_schema.ts";
import { assert, assertEquals, assertStrictEquals } from "./assert.ts";
import type { TestApi } from "./test_api.ts";

/** Registers the schema behaviours on `api`; `runtime` prefixes the names. */
export function schemaSuite(api: TestApi, runtime: string): void {
  const name = (behaviour: string): string => `[${runtime}] ${behaviour}`;

  api.test(
    name(
      "JsonSchemaValidator validates 2020-12 keywords ($defs, prefixItems, unevaluatedProperties, dependentRequired)",
    ),
    () => {
      const compiled = new JsonSchemaValidator().compile({
        $defs: { word: { type: "string", minLength: 1 } },
        type: "object",
        properties: {
          pair: { type: "array", prefixItems: [{ $ref: "#/$defs/word" }, { type: "integer" }], items: false },
        },
        dependentRequired: { pair: ["label"] },
        unevaluatedProperties: false,
        patternProperties: { "^l": { type: "string" } },
      });
      assertEquals(compiled.validate({ pair: ["a", 1], label: "x" }), { valid: true });
      assertEquals(compiled.validate({ pair: ["", 1], label: "x" }), {
        valid: false,
        errors: [{ path: "/pair/0", message: "String is too short (0 < 1)." }],
      });
      assertStrictEquals(compiled.validate({ pair: ["a", 1] }).valid, false);
      assertStrictEquals(compiled.validate({ pair: ["a", 1], label: "x", other: 1 }).valid, false);
    },
  );

  api.test(name("JsonSchemaValidator refuses a remote $ref at compile time without fetching"), () => {
    const original = globalThis.fetch;
    let fetched = 0;
    globalThis.fetch = Object.assign(
      () => {
        fetched++;
        throw new Error("fetch must not be called");
      },
      { preconnect: () => {} },
    ) as unknown as typeof fetch;
    try {
      let error: unknown;
      try {
        new JsonSchemaValidator().compile({ $ref: "https://example.com/remote.json" });
      } catch (caught) {
        error = caught;
      }
      assert(error instanceof SchemaError, "Expected a SchemaError");
      assertStrictEquals(error.code, "unresolved_ref");
      assertStrictEquals(fetched, 0);
    } finally {
      globalThis.fetch = original;
    }
  });

  api.test(name("a value nesting deeper than maxDepth is reported, not recursed into"), () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const compiled = new JsonSchemaValidator().compile({
      $defs: { n: { type: "array", items: { $ref: "#/$defs/n" } } },
      $ref: "#/$defs/n",
    });
    assertEquals(compiled.validate(deep), {
      valid: false,
      errors: [{ path: "", message: "Value nests deeper than 128 levels (maxDepth); it was not validated" }],
    });
  });

  api.test(
    name("toolSchema derives zod's JSON Schema and validates with zod, and takes plain JSON Schema"),
    async () => {
      const tool = toolSchema(z.object({ city: z.string() }));
      assertEquals(tool.jsonSchema, {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
      });
      assertEquals(await tool.validate({ city: "Oslo" }), { valid: true, value: { city: "Oslo" } });
      assertStrictEquals((await tool.validate({ city: 1 })).valid, false);
      const json = toolSchema({ properties: { n: { type: "number" } } });
      assertEquals(await json.validate({ n: 1 }), { valid: true, value: { n: 1 } });
      assertStrictEquals((await json.validate({ n: "1" })).valid, false);
    },
  );
}
