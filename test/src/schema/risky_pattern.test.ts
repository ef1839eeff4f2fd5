// A peer's schema must not be able to freeze the process that validates against it (issue 25.15):
// `^(a+)+$` against "aaaa…b" backtracks exponentially in JavaScript's engine.
import { describe, expect, it } from "vitest";
import { riskyPattern } from "../../../src/schema/risky_pattern.ts";
import { JsonSchemaValidator } from "../../../src/schema/json_schema_validator.ts";
import { SchemaError } from "../../../src/schema/schema_error.ts";
import { InvalidOptionError } from "../../../src/wire/errors.ts";

describe("riskyPattern", () => {
  it.each([
    "^(a+)+$",
    "^(a*)*$",
    "(a|aa)+",
    "^(\\w+\\s?)*$",
    "((ab)*c)+",
    "(?:x+y?)+",
    "(a{1,3}){2,}",
    "(.*a){12}",
    "^(a|b|ab)*c$",
    "(a+)+?",
    "(\\d+)\\1",
    "(?<n>a)\\k<n>",
  ])("flags %s", (pattern) => {
    expect(riskyPattern(pattern)).toBeTypeOf("string");
  });

  it.each([
    "^[a-z]+$",
    "^\\d{3}-\\d{4}$",
    "^(\\d{3}-)+$",
    "(abc)+",
    "^(a|b)$",
    "[(a+)+]",
    "\\(a+\\)+",
    "^[^\\]]*(x)?$",
    "a+b*c?",
    "(a+)?",
    "^(?:[A-Z]{2})*$",
    "\\\\+",
  ])("passes %s", (pattern) => {
    expect(riskyPattern(pattern)).toBeUndefined();
  });

  it("scans a long pattern in one pass", () => {
    expect(riskyPattern("a".repeat(200_000) + "(b+)+")).toBeTypeOf("string");
  });
});

describe("JsonSchemaValidator riskyPatterns", () => {
  const schema = () => ({ type: "string", pattern: "^(a+)+$" });
  const evil = "a".repeat(40) + "!";

  it("defaults to allow (one's own schemas are as written)", () => {
    expect(() => new JsonSchemaValidator().compile(schema())).not.toThrow();
    expect(() => new JsonSchemaValidator({ riskyPatterns: "nope" as never })).toThrow(InvalidOptionError);
  });

  it("skip: the risky pattern is not checked, the rest of the schema is; a safe pattern still is", () => {
    const v = new JsonSchemaValidator({ riskyPatterns: "skip" });
    expect(v.compile(schema()).validate(evil)).toEqual({ valid: true }); // returns at once
    expect(v.compile(schema()).validate(3).valid).toBe(false);
    expect(v.compile({ type: "string", pattern: "^a+$" }).validate("b").valid).toBe(false);
  });

  it("refuse: compile throws SchemaError unsafe_pattern; patternProperties keys are refused under skip too", () => {
    let refused: SchemaError | undefined;
    try {
      new JsonSchemaValidator({ riskyPatterns: "refuse" }).compile(schema());
    } catch (error) {
      refused = error as SchemaError;
    }
    expect(refused).toBeInstanceOf(SchemaError);
    expect(refused!.code).toBe("unsafe_pattern");
    expect(refused!.message).toContain('"^(a+)+$"');
    expect(() =>
      new JsonSchemaValidator({ riskyPatterns: "skip" }).compile({
        type: "object",
        patternProperties: { "^(a|aa)+$": { type: "string" } },
      })
    ).toThrow(SchemaError);
  });
});
