import { toJsonSchema, toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it, vi } from "vitest";
import * as z from "zod";
import { JsonSchemaValidator } from "../../../src/schema/json_schema_validator.ts";
import { SchemaError } from "../../../src/schema/schema_error.ts";
import type { SchemaValidator } from "../../../src/schema/schema_validator.ts";
import type { StandardSchemaV1 } from "../../../src/schema/standard_schema.ts";
import { toolSchema } from "../../../src/schema/tool_schema.ts";
import { InvalidOptionError } from "../../../src/wire/errors.ts";

const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

function schemaError(fn: () => unknown): SchemaError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaError);
    return error as SchemaError;
  }
  throw new Error("Expected a SchemaError, nothing was thrown");
}

/** A hand-written Standard Schema whose validate is async and counted. */
function asyncStandard(issues: number) {
  const validate = vi.fn(async (value: unknown) =>
    issues === 0 ? { value } : {
      issues: Array.from(
        { length: issues },
        (_, i) => ({ message: `Issue ${i}`, path: [{ key: "list" }, i] }),
      ),
    }
  );
  const schema: StandardSchemaV1<unknown, unknown> = {
    "~standard": { version: 1, vendor: "handmade", validate },
  };
  return { schema, validate };
}

describe("toolSchema with a JSON Schema", () => {
  it("sends the caller's object unchanged and validates with the default validator, returning the value itself", async () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const tool = toolSchema(schema);
    expect(tool.jsonSchema).toBe(schema);
    const args = { city: "Oslo" };
    const ok = await tool.validate(args);
    expect(ok).toEqual({ valid: true, value: args });
    expect(ok.valid && ok.value).toBe(args);
    expect(await tool.validate({ city: 1 })).toEqual({
      valid: false,
      errors: [{ path: "/city", message: 'Instance type "number" is invalid. Expected "string".' }],
    });
  });

  it("adds type: object at the top when absent, and validates against it", async () => {
    const tool = toolSchema({ properties: { a: { type: "string" } } });
    expect(tool.jsonSchema).toEqual({ type: "object", properties: { a: { type: "string" } } });
    expect((await tool.validate("not an object")).valid).toBe(false);
    expect(toolSchema(true).jsonSchema).toEqual({ type: "object" });
  });

  it("refuses a top that is not an object, for input and output alike (MCP)", () => {
    const error = schemaError(() => toolSchema({ type: "string" }));
    expect(error.code).toBe("not_object");
    expect(error.message).toContain('"string"');
    expect(schemaError(() => toolSchema({ type: ["object", "null"] }, { role: "output" })).code).toBe(
      "not_object",
    );
    expect(schemaError(() => toolSchema(false)).code).toBe("not_object");
    expect(schemaError(() => toolSchema(null as never)).code).toBe("invalid_schema");
  });

  it("refuses a remote $ref at registration, not at the first call", () => {
    const fetch = vi.fn();
    vi.stubGlobal("fetch", fetch);
    try {
      expect(
        schemaError(() =>
          toolSchema({ type: "object", properties: { a: { $ref: "https://example.com/x.json" } } })
        ).code,
      ).toBe("unresolved_ref");
      expect(fetch).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("refuses jsonSchema and converter options, which only apply to Standard Schema values", () => {
    expect(() => toolSchema({ type: "object" }, { jsonSchema: { type: "object" } })).toThrow(
      InvalidOptionError,
    );
    expect(() => toolSchema({ type: "object" }, { role: "both" as never })).toThrow(/role/);
  });
});

describe("toolSchema with a custom validator", () => {
  it("compiles the normalised JSON Schema with the validator given and reports its issues", async () => {
    const compiled: unknown[] = [];
    const onlyEvenCounts: SchemaValidator = {
      compile(schema) {
        compiled.push(schema);
        return {
          validate: (value) =>
            (value as { count?: number }).count! % 2 === 0
              ? { valid: true }
              : { valid: false, errors: [{ path: "/count", message: "Count must be even" }] },
        };
      },
    };
    const tool = toolSchema({ properties: { count: { type: "integer" } } }, { validator: onlyEvenCounts });
    expect(compiled).toEqual([{ type: "object", properties: { count: { type: "integer" } } }]);
    expect(await tool.validate({ count: 2 })).toEqual({ valid: true, value: { count: 2 } });
    expect(await tool.validate({ count: 3 })).toEqual({
      valid: false,
      errors: [{ path: "/count", message: "Count must be even" }],
    });
  });

  it("passes a configured JsonSchemaValidator's registered schemas through", async () => {
    const validator = new JsonSchemaValidator({
      schemas: [{ $id: "https://example.com/city.json", type: "string", minLength: 1 }],
    });
    const tool = toolSchema({
      type: "object",
      properties: { city: { $ref: "https://example.com/city.json" } },
    }, { validator });
    expect((await tool.validate({ city: "" })).valid).toBe(false);
    expect((await tool.validate({ city: "Oslo" })).valid).toBe(true);
  });
});

describe("toolSchema with zod 4", () => {
  const weather = z.object({ city: z.string().min(1), days: z.number().int().default(3) });

  it("derives the input JSON Schema with zod's own converter", () => {
    expect(toolSchema(weather).jsonSchema).toEqual({
      $schema: DRAFT_2020_12,
      type: "object",
      properties: {
        city: { type: "string", minLength: 1 },
        days: {
          default: 3,
          type: "integer",
          minimum: Number.MIN_SAFE_INTEGER,
          maximum: Number.MAX_SAFE_INTEGER,
        },
      },
      required: ["city"],
    });
  });

  it("derives the output side for role output (zod closes objects there)", () => {
    const out = toolSchema(z.object({ temp: z.number() }), { role: "output" }).jsonSchema;
    expect(out).toEqual({
      $schema: DRAFT_2020_12,
      type: "object",
      properties: { temp: { type: "number" } },
      required: ["temp"],
      additionalProperties: false,
    });
  });

  it("validates with zod and returns zod's parsed value (defaults and transforms applied)", async () => {
    const tool = toolSchema(
      z.object({ city: z.string().transform((s) => s.toUpperCase()), days: z.number().default(3) }),
    );
    const result = await tool.validate({ city: "oslo" });
    expect(result).toEqual({ valid: true, value: { city: "OSLO", days: 3 } });
    expectTypeOf(result).toEqualTypeOf<
      { readonly valid: true; readonly value: { city: string; days: number } } | {
        readonly valid: false;
        readonly errors: readonly { readonly path: string; readonly message: string }[];
      }
    >();
  });

  it("maps zod issues to JSON Pointer paths", async () => {
    const result = await toolSchema(weather).validate({ city: "", days: 1.5 });
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors.map((e) => e.path)).toEqual(["/city", "/days"]);
  });

  it("reports a converter failure as conversion_failed, and takes an explicit jsonSchema instead", async () => {
    const parsed = z.object({ when: z.string().transform((s) => s.length) });
    const error = schemaError(() => toolSchema(parsed, { role: "output" }));
    expect(error.code).toBe("conversion_failed");
    expect(error.message).toContain("zod");
    const tool = toolSchema(parsed, {
      role: "output",
      jsonSchema: { type: "object", properties: { when: { type: "integer" } } },
    });
    expect(tool.jsonSchema).toEqual({ type: "object", properties: { when: { type: "integer" } } });
    expect(await tool.validate({ when: "abc" })).toEqual({ valid: true, value: { when: 3 } });
  });

  it("refuses a zod schema whose top is not an object", () => {
    expect(schemaError(() => toolSchema(z.string())).code).toBe("not_object");
  });
});

describe("toolSchema with valibot", () => {
  const weather = v.object({ city: v.pipe(v.string(), v.minLength(1)), tags: v.array(v.string()) });

  it("asks for a converter when valibot offers none, naming @valibot/to-json-schema", () => {
    const error = schemaError(() => toolSchema(weather));
    expect(error.code).toBe("no_json_schema");
    expect(error.message).toContain("@valibot/to-json-schema");
  });

  it("uses a converter given as an option", () => {
    const tool = toolSchema(weather, { converter: (schema) => toJsonSchema(schema) });
    expect(tool.jsonSchema).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        city: { type: "string", minLength: 1 },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["city", "tags"],
    });
  });

  it("uses the Standard JSON Schema of toStandardJsonSchema, in 2020-12", async () => {
    const tool = toolSchema(toStandardJsonSchema(weather));
    expect(tool.jsonSchema.$schema).toBe(DRAFT_2020_12);
    expect(tool.jsonSchema.required).toEqual(["city", "tags"]);
    expect(await tool.validate({ city: "Oslo", tags: [] })).toEqual({
      valid: true,
      value: { city: "Oslo", tags: [] },
    });
  });

  it("validates with valibot and maps its path segments", async () => {
    const tool = toolSchema(weather, { converter: (schema) => toJsonSchema(schema) });
    const result = await tool.validate({ city: "Oslo", tags: ["a", 2] });
    expect(result).toEqual({
      valid: false,
      errors: [{ path: "/tags/1", message: "Invalid type: Expected string but received 2" }],
    });
  });
});

describe("toolSchema with arktype", () => {
  const weather = type({ city: "string", "days?": "number.integer" });

  it("derives the JSON Schema with arktype's own converter", () => {
    expect(toolSchema(weather).jsonSchema).toEqual({
      $schema: DRAFT_2020_12,
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
      required: ["city"],
    });
  });

  it("validates with arktype and returns its morphed output", async () => {
    const tool = toolSchema(type({ n: "string.numeric.parse" }));
    expect(await tool.validate({ n: "12" })).toEqual({ valid: true, value: { n: 12 } });
    const result = await toolSchema(weather).validate({ city: 1 });
    expect(result).toEqual({
      valid: false,
      errors: [{ path: "/city", message: "city must be a string (was a number)" }],
    });
  });

  it("adds type: object above a union of objects", () => {
    const tool = toolSchema(type({ a: "string" }).or({ b: "number" }));
    expect(tool.jsonSchema.type).toBe("object");
    expect(tool.jsonSchema.anyOf).toHaveLength(2);
  });
});

describe("toolSchema with any Standard Schema", () => {
  it("awaits an async validate", async () => {
    const { schema } = asyncStandard(0);
    const tool = toolSchema(schema, { jsonSchema: { type: "object" } });
    expect(await tool.validate({ x: 1 })).toEqual({ valid: true, value: { x: 1 } });
  });

  it("caps issues at maxErrors (10 by default) and bounds their text", async () => {
    const { schema } = asyncStandard(25);
    const result = await toolSchema(schema, { jsonSchema: { type: "object" } }).validate({});
    expect(!result.valid && result.errors.length).toBe(10);
    expect(!result.valid && result.errors[3]).toEqual({ path: "/list/3", message: "Issue 3" });
    const few = await toolSchema(schema, { jsonSchema: { type: "object" }, maxErrors: 30 }).validate({});
    expect(!few.valid && few.errors.length).toBe(25);
    const long = await toolSchema({
      "~standard": {
        version: 1,
        vendor: "x",
        validate: () => ({ issues: [{ message: "m".repeat(10_000) }] }),
      },
    }, { jsonSchema: {} }).validate({});
    expect(!long.valid && long.errors[0]!.message.length).toBe(200);
  });

  it("does not hand a value nesting deeper than maxDepth to the library, and does hand one at the bound", async () => {
    const { schema, validate } = asyncStandard(0);
    const tool = toolSchema(schema, { jsonSchema: { type: "object" }, maxDepth: 10 });
    let deep: unknown = {};
    for (let i = 0; i < 10; i++) deep = { d: deep };
    expect((await tool.validate(deep)).valid).toBe(false);
    expect(validate).not.toHaveBeenCalled();
    expect((await tool.validate((deep as { d: unknown }).d)).valid).toBe(true);
    expect(validate).toHaveBeenCalledTimes(1);
  });

  it("rejects when the library's validate throws, instead of hiding it", async () => {
    const boom = new Error("refinement crashed");
    const tool = toolSchema({
      "~standard": {
        version: 1,
        vendor: "x",
        validate: () => {
          throw boom;
        },
      },
    }, { jsonSchema: {} });
    await expect(tool.validate({})).rejects.toBe(boom);
  });

  it("falls back to zod's toJSONSchema() and arktype's toJsonSchema() methods when ~standard.jsonSchema is absent", () => {
    const validate = () => ({ value: {} });
    const olderZod = {
      "~standard": { version: 1 as const, vendor: "zod", validate },
      toJSONSchema: (options: { io: string }) => ({ type: "object", title: `zod ${options.io}` }),
    };
    expect(toolSchema(olderZod, { role: "output" }).jsonSchema).toEqual({
      type: "object",
      title: "zod output",
    });
    const olderArktype = {
      "~standard": { version: 1 as const, vendor: "arktype", validate },
      toJsonSchema: () => ({ type: "object", title: "ark" }),
    };
    expect(toolSchema(olderArktype).jsonSchema).toEqual({ type: "object", title: "ark" });
    const unknownVendor = {
      "~standard": { version: 1 as const, vendor: "other", validate },
      toJsonSchema: () => ({ type: "object" }),
    };
    expect(schemaError(() => toolSchema(unknownVendor)).code).toBe("no_json_schema");
  });

  it("asks the Standard JSON Schema converter for draft-07 when it refuses 2020-12", () => {
    const targets: string[] = [];
    const convert = (options: { target: string }) => {
      targets.push(options.target);
      if (options.target !== "draft-07") throw new Error(`Target ${options.target} is not supported`);
      return { $schema: "http://json-schema.org/draft-07/schema#", type: "object" };
    };
    const schema = {
      "~standard": {
        version: 1 as const,
        vendor: "seven",
        validate: () => ({ value: {} }),
        jsonSchema: { input: convert, output: convert },
      },
    };
    expect(toolSchema(schema).jsonSchema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(targets).toEqual(["draft-2020-12", "draft-07"]);
  });

  it("prefers a converter option over the library's own converter", () => {
    const tool = toolSchema(z.object({ a: z.string() }), {
      converter: () => ({ type: "object", title: "mine" }),
    });
    expect(tool.jsonSchema).toEqual({ type: "object", title: "mine" });
  });
});
