import { afterEach, describe, expect, it, vi } from "vitest";
import { JsonSchemaValidator } from "../../../src/schema/json_schema_validator.ts";
import { SchemaError } from "../../../src/schema/schema_error.ts";
import type { JsonSchemaObject, SchemaCheck } from "../../../src/schema/schema_validator.ts";
import { InvalidOptionError } from "../../../src/wire/errors.ts";

const check = (
  schema: JsonSchemaObject | boolean,
  value: unknown,
  validator = new JsonSchemaValidator(),
): SchemaCheck => validator.compile(schema).validate(value);

function schemaError(fn: () => unknown): SchemaError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaError);
    return error as SchemaError;
  }
  throw new Error("Expected a SchemaError, nothing was thrown");
}

function nest(depth: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("JsonSchemaValidator: JSON Schema 2020-12 by default", () => {
  it("resolves local $defs through $ref", () => {
    const schema = {
      $defs: { positive: { type: "integer", exclusiveMinimum: 0 } },
      type: "object",
      properties: { count: { $ref: "#/$defs/positive" } },
    };
    expect(check(schema, { count: 3 })).toEqual({ valid: true });
    expect(check(schema, { count: 0 })).toEqual({
      valid: false,
      errors: [{ path: "/count", message: "0 is less than 0." }],
    });
  });

  it("checks prefixItems position by position and items after them", () => {
    const schema = {
      type: "array",
      prefixItems: [{ type: "string" }, { type: "number" }],
      items: { type: "boolean" },
    };
    expect(check(schema, ["a", 1, true, false])).toEqual({ valid: true });
    const result = check(schema, ["a", "b"]);
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors[0]!.path).toBe("/1");
    expect(check(schema, ["a", 1, "no"]).valid).toBe(false);
  });

  it("rejects properties no subschema evaluated with unevaluatedProperties: false, across allOf", () => {
    const schema = {
      type: "object",
      allOf: [{ properties: { a: { type: "string" } } }],
      properties: { b: { type: "number" } },
      unevaluatedProperties: false,
    };
    expect(check(schema, { a: "x", b: 1 })).toEqual({ valid: true });
    const result = check(schema, { a: "x", b: 1, c: true });
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors.map((e) => e.message).join(" ")).toContain('"c"');
  });

  it("requires the properties dependentRequired names when the trigger is present", () => {
    const schema = { type: "object", dependentRequired: { card: ["billingAddress"] } };
    expect(check(schema, { name: "x" })).toEqual({ valid: true });
    expect(check(schema, { card: "1", billingAddress: "y" })).toEqual({ valid: true });
    expect(check(schema, { card: "1" })).toEqual({
      valid: false,
      errors: [{ path: "", message: 'Instance has "card" but does not have "billingAddress".' }],
    });
  });

  it("treats format as an annotation unless assertFormats is set", () => {
    const schema = {
      type: "object",
      properties: {
        mail: { type: "string", format: "email" },
        when: { type: "string", format: "date-time" },
      },
    };
    const bad = { mail: "not an address", when: "yesterday" };
    expect(check(schema, bad)).toEqual({ valid: true });
    const asserting = new JsonSchemaValidator({ assertFormats: true, allErrors: true });
    const result = check(schema, bad, asserting);
    expect(!result.valid && result.errors.map((e) => e.path)).toEqual(["/mail", "/when"]);
    expect(check(schema, { mail: "a@example.com", when: "2026-01-02T03:04:05Z" }, asserting)).toEqual({
      valid: true,
    });
  });

  it("leaves a property named format alone when formats are annotations", () => {
    const schema = { type: "object", properties: { format: { type: "string" } }, required: ["format"] };
    expect(check(schema, {}).valid).toBe(false);
    expect(check(schema, { format: "x" })).toEqual({ valid: true });
  });

  it("honours $schema draft-07, where an items array is a tuple checked with additionalItems", () => {
    const tuple = { items: [{ type: "string" }], additionalItems: false };
    const draft07 = { $schema: "http://json-schema.org/draft-07/schema#", ...tuple };
    expect(check(draft07, ["a"])).toEqual({ valid: true });
    expect(check(draft07, ["a", 1]).valid).toBe(false);
    expect(check(draft07, [1]).valid).toBe(false);
  });

  it("honours $schema 2019-09 ($recursiveRef) and names an unknown dialect in a typed error", () => {
    const tree = {
      $schema: "https://json-schema.org/draft/2019-09/schema",
      $recursiveAnchor: true,
      type: "object",
      properties: { children: { type: "array", items: { $recursiveRef: "#" } } },
    };
    expect(check(tree, { children: [{ children: [] }] })).toEqual({ valid: true });
    expect(check(tree, { children: [{ children: [3] }] }).valid).toBe(false);
    const error = schemaError(() =>
      new JsonSchemaValidator().compile({ $schema: "https://example.com/my-dialect" })
    );
    expect(error.code).toBe("unsupported_dialect");
    expect(error.message).toContain("https://example.com/my-dialect");
  });

  it("accepts boolean schemas", () => {
    expect(check(true, { anything: 1 })).toEqual({ valid: true });
    expect(check(false, 1).valid).toBe(false);
  });
});

describe("JsonSchemaValidator: $ref never leaves the process", () => {
  it("refuses a remote $ref at compile time with unresolved_ref, without calling fetch", () => {
    const fetch = vi.fn(() => {
      throw new Error("fetch must not be called");
    });
    vi.stubGlobal("fetch", fetch);
    const error = schemaError(() =>
      new JsonSchemaValidator().compile({
        type: "object",
        properties: { a: { $ref: "https://example.com/remote.json#/$defs/x" } },
      })
    );
    expect(error.code).toBe("unresolved_ref");
    expect(error.ref).toBe("https://example.com/remote.json#/$defs/x");
    expect(error.message).toContain("never fetched");
    expect(fetch).not.toHaveBeenCalled();
  });

  it("refuses a relative $ref and a local pointer to nothing", () => {
    expect(schemaError(() => new JsonSchemaValidator().compile({ $ref: "other.json" })).code).toBe(
      "unresolved_ref",
    );
    expect(schemaError(() => new JsonSchemaValidator().compile({ $ref: "#/$defs/missing" })).code).toBe(
      "unresolved_ref",
    );
  });

  it("resolves a $ref to a schema registered by $id, and into its $defs", () => {
    const fetch = vi.fn(() => {
      throw new Error("fetch must not be called");
    });
    vi.stubGlobal("fetch", fetch);
    const validator = new JsonSchemaValidator({
      schemas: [{
        $id: "https://example.com/shared.json",
        type: "string",
        $defs: { small: { type: "integer", maximum: 9 } },
      }],
    });
    const schema = {
      type: "object",
      properties: {
        name: { $ref: "https://example.com/shared.json" },
        digit: { $ref: "https://example.com/shared.json#/$defs/small" },
      },
    };
    expect(check(schema, { name: "x", digit: 3 }, validator)).toEqual({ valid: true });
    expect(check(schema, { name: 1 }, validator).valid).toBe(false);
    expect(check(schema, { digit: 10 }, validator).valid).toBe(false);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("refuses registered schemas without an absolute $id, or whose own refs do not resolve", () => {
    expect(schemaError(() => new JsonSchemaValidator({ schemas: [{ type: "string" }] })).code).toBe(
      "invalid_schema",
    );
    expect(schemaError(() => new JsonSchemaValidator({ schemas: [{ $id: "relative.json" }] })).code).toBe(
      "invalid_schema",
    );
    expect(
      schemaError(() =>
        new JsonSchemaValidator({
          schemas: [{ $id: "https://example.com/a.json", $ref: "https://example.com/b.json" }],
        })
      ).code,
    ).toBe("unresolved_ref");
  });

  it("refuses $dynamicRef, which the default validator cannot honour, instead of ignoring it", () => {
    const error = schemaError(() =>
      new JsonSchemaValidator().compile({ $dynamicAnchor: "node", items: { $dynamicRef: "#node" } })
    );
    expect(error.code).toBe("unsupported_keyword");
  });
});

describe("JsonSchemaValidator: compiling", () => {
  it("compiles once per schema object", () => {
    const validator = new JsonSchemaValidator();
    const schema = { type: "string" };
    expect(validator.compile(schema)).toBe(validator.compile(schema));
    expect(validator.compile({ type: "string" })).not.toBe(validator.compile(schema));
  });

  it("neither mutates nor needs to mutate the caller's schema", () => {
    const schema = Object.freeze({
      type: "object",
      properties: Object.freeze({ a: Object.freeze({ $ref: "#/$defs/a" }) }),
      $defs: Object.freeze({ a: Object.freeze({ type: "string" }) }),
    });
    const before = JSON.stringify(schema);
    expect(check(schema, { a: 1 }).valid).toBe(false);
    expect(JSON.stringify(schema)).toBe(before);
    expect(Object.getOwnPropertyNames(schema).sort()).toEqual(["$defs", "properties", "type"]);
  });

  it("keeps a __proto__ key of a parsed schema as data, not as the prototype of its copy", () => {
    const schema = JSON.parse('{"type":"object","properties":{"a":{"__proto__":{"type":"string"}}}}');
    expect(check(schema, { a: 1 })).toEqual({ valid: true });
  });

  it("refuses a pattern that is not a regular expression at compile time", () => {
    expect(schemaError(() => new JsonSchemaValidator().compile({ type: "string", pattern: "([" })).code).toBe(
      "invalid_schema",
    );
    expect(schemaError(() => new JsonSchemaValidator().compile({ patternProperties: { "a(": {} } })).code)
      .toBe("invalid_schema");
  });

  it("refuses non-JSON schemas", () => {
    expect(schemaError(() => new JsonSchemaValidator().compile([] as never)).code).toBe("invalid_schema");
    expect(schemaError(() => new JsonSchemaValidator().compile({ minimum: Number.NaN })).code).toBe(
      "invalid_schema",
    );
    expect(schemaError(() => new JsonSchemaValidator().compile({ default: () => 1 })).code).toBe(
      "invalid_schema",
    );
  });

  it("refuses bad options by name", () => {
    expect(() => new JsonSchemaValidator({ maxErrors: 0 })).toThrow(InvalidOptionError);
    expect(() => new JsonSchemaValidator({ maxDepth: 5000 })).toThrow(/maxDepth/);
  });
});

describe("JsonSchemaValidator: errors", () => {
  it("reports JSON Pointer paths and drops the 'a subschema failed' wrappers", () => {
    const schema = {
      type: "object",
      properties: { "a b": { type: "array", items: { type: "integer" } } },
      additionalProperties: false,
    };
    const validator = new JsonSchemaValidator({ allErrors: true });
    expect(check(schema, { "a b": [1, "x"], extra: 1 }, validator)).toEqual({
      valid: false,
      errors: [
        { path: "/a b/1", message: 'Instance type "string" is invalid. Expected "integer".' },
        { path: "", message: 'Property "extra" does not match additional properties schema.' },
      ],
    });
  });

  it("stops at the first failure unless allErrors is set", () => {
    const schema = { type: "array", items: { type: "string" } };
    const first = check(schema, [1, 2, 3]);
    expect(!first.valid && first.errors.length).toBe(1);
    const all = check(schema, [1, 2, 3], new JsonSchemaValidator({ allErrors: true }));
    expect(!all.valid && all.errors.map((e) => e.path)).toEqual(["/0", "/1", "/2"]);
  });

  it("caps the error list at maxErrors (10 by default)", () => {
    const schema = { type: "array", items: { type: "string" } };
    const many = check(
      schema,
      Array.from({ length: 50 }, (_, i) => i),
      new JsonSchemaValidator({ allErrors: true }),
    );
    expect(!many.valid && many.errors.length).toBe(10);
    const capped = check(schema, [1, 2, 3, 4], new JsonSchemaValidator({ allErrors: true, maxErrors: 3 }));
    expect(!capped.valid && capped.errors.map((e) => e.path)).toEqual(["/0", "/1", "/2"]);
  });

  it("quotes at most 200 characters of a hostile value in a message or path", () => {
    const key = "k".repeat(100_000);
    const result = check({ type: "object", additionalProperties: false }, { [key]: 1 });
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors[0]!.message.length).toBe(200);
    expect(!result.valid && result.errors[0]!.message.endsWith("…")).toBe(true);
    const deepPath = check({ type: "object", additionalProperties: { type: "string" } }, { [key]: 1 });
    expect(!deepPath.valid && deepPath.errors[0]!.path.length).toBeLessThanOrEqual(200);
    const short = check({ type: "object", additionalProperties: false }, { shortKey: 1 });
    expect(!short.valid && short.errors[0]!.message).toBe(
      'Property "shortKey" does not match additional properties schema.',
    );
  });

  it("reports a value that is not JSON as invalid instead of throwing", () => {
    const result = check({ type: "object", properties: { a: { type: "string" } } }, { a: undefined });
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors[0]!.message).toContain("not JSON");
  });
});

describe("JsonSchemaValidator: bounded work on hostile input", () => {
  const arrays = (depth: number) => nest(depth, [], (inner) => [inner]);
  const anyDepth = {
    $defs: { node: { type: "array", items: { $ref: "#/$defs/node" } } },
    $ref: "#/$defs/node",
  };

  it("reports a value nesting deeper than maxDepth (128) without recursing into it", () => {
    expect(check(anyDepth, arrays(10_000))).toEqual({
      valid: false,
      errors: [{ path: "", message: "Value nests deeper than 128 levels (maxDepth); it was not validated" }],
    });
  });

  it("validates a value nesting exactly maxDepth levels", () => {
    expect(check(anyDepth, arrays(127))).toEqual({ valid: true });
    expect(check(anyDepth, arrays(128)).valid).toBe(false);
    expect(check(anyDepth, arrays(9), new JsonSchemaValidator({ maxDepth: 10 }))).toEqual({ valid: true });
    expect(check(anyDepth, arrays(10), new JsonSchemaValidator({ maxDepth: 10 })).valid).toBe(false);
  });

  it("treats a cyclic value as too deep", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    cyclic.again = cyclic;
    expect(check({ type: "object" }, cyclic).valid).toBe(false);
  });

  it("refuses a schema nesting deeper than maxDepth, and compiles one just inside it", () => {
    const deep = (depth: number) =>
      nest(depth, { type: "string" }, (inner) => ({ not: { not: inner } })) as JsonSchemaObject;
    expect(schemaError(() => new JsonSchemaValidator().compile(deep(100))).code).toBe("schema_too_large");
    expect(check(deep(63), "x")).toEqual({ valid: true });
  });

  it("refuses a schema holding more than maxSchemaNodes values, and compiles one at the bound", () => {
    const schema = { enum: Array.from({ length: 8 }, (_, i) => i) };
    expect(new JsonSchemaValidator({ maxSchemaNodes: 10 }).compile(schema).validate(3)).toEqual({
      valid: true,
    });
    expect(schemaError(() => new JsonSchemaValidator({ maxSchemaNodes: 9 }).compile(schema)).code).toBe(
      "schema_too_large",
    );
  });

  it("stops an exponential $ref schema at maxRefResolutions instead of running 2^30 steps", () => {
    const $defs: Record<string, unknown> = { d30: false };
    for (let i = 0; i < 30; i++) {
      $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
    }
    const result = check(
      { $defs, $ref: "#/$defs/d0" },
      1,
      new JsonSchemaValidator({ maxRefResolutions: 10_000 }),
    );
    expect(result).toEqual({
      valid: false,
      errors: [{
        path: "",
        message:
          "Validation stopped after 10000 $ref resolutions (maxRefResolutions); the value was not accepted",
      }],
    });
  });

  it("does not hit maxRefResolutions early: a recursive value needing exactly the budget validates", () => {
    const validator = new JsonSchemaValidator({ maxRefResolutions: 101 });
    const list = nest(100, [], (inner) => [inner]);
    expect(check(anyDepth, list, validator)).toEqual({ valid: true });
    expect(check(anyDepth, nest(101, [], (inner) => [inner]), validator).valid).toBe(false);
  });

  it("turns a schema that recurses without consuming the value into an invalid result", () => {
    expect(check({ $ref: "#" }, 1)).toEqual({
      valid: false,
      errors: [{
        path: "",
        message:
          "Validation ran out of stack (the schema recurses too deeply for this value); the value was not accepted",
      }],
    });
  });
});
