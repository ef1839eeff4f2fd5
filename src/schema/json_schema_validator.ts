/**
 * The default {@linkcode SchemaValidator}: `@cfworker/json-schema` (drafts 2020-12, 2019-09, 7 and 4; no
 * `eval`; runs in browsers, workers, Node.js, Deno and Bun) behind our contract, with the bounds a server
 * needs against hostile schemas and values, and `$ref` resolution that never leaves the process.
 * @module
 */
import { dereference, type Schema, type SchemaDraft, validate } from "@cfworker/json-schema";
import {
  boundText,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ERRORS,
  depthIssue,
  integerOption,
  MAX_DEPTH_LIMIT,
  nestsDeeperThan,
} from "./bounds.ts";
import { SchemaError } from "./schema_error.ts";
import { riskyPattern } from "./risky_pattern.ts";
import { checkPattern, checkRefs, describe, dialectOf, isAbsoluteUri, refuseRisky } from "./schema_checks.ts";
import { walkSchemas } from "./schema_walk.ts";
import { issuesFrom } from "./validation_issues.ts";
import { InvalidOptionError } from "../wire/errors.ts";
import type {
  CompiledSchema,
  JsonSchema,
  JsonSchemaObject,
  SchemaCheck,
  SchemaValidator,
} from "./schema_validator.ts";

/** Options of {@linkcode JsonSchemaValidator}. */
export interface JsonSchemaValidatorOptions {
  /**
   * Schemas a `$ref` may name by their `$id` (absolute URIs). Nothing else outside the schema itself
   * resolves: a `$ref` to anything unregistered is a {@linkcode SchemaError} `unresolved_ref` at
   * compile time, never a fetch.
   * @default none
   */
  readonly schemas?: readonly JsonSchemaObject[];
  /**
   * Check `format` (email, date-time, uri…) instead of treating it as an annotation, as 2020-12 does by default.
   * @default false
   */
  readonly assertFormats?: boolean;
  /**
   * Collect every failure instead of stopping at the first one.
   * @default false
   */
  readonly allErrors?: boolean;
  /**
   * Issues reported per failed validation.
   * @default 10
   */
  readonly maxErrors?: number;
  /**
   * Nesting levels allowed in a schema and in a validated value (at most 1000).
   * @default 128
   */
  readonly maxDepth?: number;
  /**
   * Values (objects, arrays, scalars) allowed in one schema.
   * @default 100_000
   */
  readonly maxSchemaNodes?: number;
  /**
   * `$ref` resolutions allowed while validating one value; beyond it the value is reported invalid.
   * @default 100_000
   */
  readonly maxRefResolutions?: number;
  /**
   * What to do with a `pattern` that can backtrack catastrophically (`^(a+)+$`: a nested quantifier,
   * a repeated alternation, a backreference; see `riskyPattern`), which could block the event loop for
   * minutes on one string: `"allow"` it (your own schemas), `"skip"` it (the keyword is not checked:
   * schemas from a peer, as the client's output-schema check does), or `"refuse"` the schema
   * ({@linkcode SchemaError} `unsafe_pattern`). A risky `patternProperties` key is refused unless
   * `"allow"`.
   * @default "allow"
   */
  readonly riskyPatterns?: "allow" | "skip" | "refuse";
}

class RefBudgetExceeded extends Error {}

/**
 * Compiles JSON Schemas with `@cfworker/json-schema`, once per schema object (cached), 2020-12 unless
 * `$schema` names 2019-09, draft-07 or draft-04.
 *
 * @example
 * ```ts
 * const validator = new JsonSchemaValidator();
 * const compiled = validator.compile({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
 * compiled.validate({ city: 3 }); // { valid: false, errors: [{ path: "/city", message: "Instance type \"number\" is invalid. Expected \"string\"." }] }
 * ```
 */
export class JsonSchemaValidator implements SchemaValidator {
  readonly #assertFormats: boolean;
  readonly #shortCircuit: boolean;
  readonly #maxErrors: number;
  readonly #maxDepth: number;
  readonly #maxSchemaNodes: number;
  readonly #maxRefResolutions: number;
  readonly #riskyPatterns: "allow" | "skip" | "refuse";
  readonly #registered: Record<string, Schema | boolean> = Object.create(null);
  readonly #cache = new WeakMap<object, CompiledSchema>();

  constructor(options: JsonSchemaValidatorOptions = {}) {
    this.#assertFormats = options.assertFormats === true;
    this.#shortCircuit = options.allErrors !== true;
    this.#maxErrors = integerOption("maxErrors", options.maxErrors, DEFAULT_MAX_ERRORS, 1);
    this.#maxDepth = integerOption("maxDepth", options.maxDepth, DEFAULT_MAX_DEPTH, 1, MAX_DEPTH_LIMIT);
    this.#maxSchemaNodes = integerOption("maxSchemaNodes", options.maxSchemaNodes, 100_000, 1);
    this.#maxRefResolutions = integerOption("maxRefResolutions", options.maxRefResolutions, 100_000, 0);
    const risky = options.riskyPatterns ?? "allow";
    if (risky !== "allow" && risky !== "skip" && risky !== "refuse") {
      throw new InvalidOptionError(
        `Option riskyPatterns must be "allow", "skip" or "refuse", got ${boundText(String(risky))}`,
      );
    }
    this.#riskyPatterns = risky;
    for (const schema of options.schemas ?? []) {
      const id = typeof schema === "object" && schema !== null ? schema.$id : undefined;
      if (typeof id !== "string" || !isAbsoluteUri(id)) {
        throw new SchemaError(
          "invalid_schema",
          `A registered schema needs an absolute $id, got ${boundText(JSON.stringify(id) ?? "undefined")}`,
        );
      }
      this.#dereference(this.#prepare(schema), this.#registered);
    }
    checkRefs(this.#registered);
  }

  /** Compiles `schema`, or returns the schema compiled before for the same object. Throws {@linkcode SchemaError}. */
  compile(schema: JsonSchema): CompiledSchema {
    if (typeof schema === "boolean") return schema ? ACCEPT_ALL : REJECT_ALL;
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
      throw new SchemaError(
        "invalid_schema",
        `A JSON Schema must be an object or a boolean, got ${describe(schema)}`,
      );
    }
    const cached = this.#cache.get(schema);
    if (cached) return cached;
    const draft = dialectOf(schema);
    const prepared = this.#prepare(schema);
    const lookup: Record<string, Schema | boolean> = Object.assign(Object.create(null), this.#registered);
    this.#dereference(prepared, lookup);
    checkRefs(lookup);
    const compiled = this.#compiled(prepared, draft, lookup);
    this.#cache.set(schema, compiled);
    return compiled;
  }

  /** A bounded deep copy of `schema` (cfworker annotates the objects it sees), without `format` unless asserted. */
  #prepare(schema: JsonSchemaObject): Schema {
    let nodes = 0;
    const maxDepth = this.#maxDepth;
    const maxNodes = this.#maxSchemaNodes;
    const copy = (value: unknown, depth: number): unknown => {
      if (++nodes > maxNodes) {
        throw new SchemaError(
          "schema_too_large",
          `Schema holds more than ${maxNodes} values (maxSchemaNodes)`,
        );
      }
      if (value === null || typeof value === "string" || typeof value === "boolean") return value;
      if (typeof value === "number") {
        if (Number.isFinite(value)) return value;
        throw new SchemaError("invalid_schema", `Schema holds a number that is not JSON: ${value}`);
      }
      if (typeof value !== "object") {
        throw new SchemaError("invalid_schema", `Schema holds a value that is not JSON: ${describe(value)}`);
      }
      if (depth >= maxDepth) {
        throw new SchemaError(
          "schema_too_large",
          `Schema nests deeper than ${maxDepth} levels (maxDepth), or holds a cycle`,
        );
      }
      if (Array.isArray(value)) return value.map((item) => copy(item, depth + 1));
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const item = copy((value as Record<string, unknown>)[key], depth + 1);
        // A "__proto__" key from JSON.parse is data: keep it an own property, never the prototype.
        if (key === "__proto__") {
          Object.defineProperty(out, key, {
            value: item,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        } else out[key] = item;
      }
      return out;
    };
    const prepared = copy(schema, 0) as Schema;
    walkSchemas(prepared, (node) => {
      if ("$dynamicRef" in node) {
        throw new SchemaError(
          "unsupported_keyword",
          `Schema uses $dynamicRef ${
            boundText(JSON.stringify(node.$dynamicRef))
          }, which the default validator does not implement; use $ref, or plug in another SchemaValidator`,
        );
      }
      if (!this.#assertFormats && typeof node.format === "string") delete node.format;
      if (node.pattern !== undefined) {
        checkPattern(node.pattern);
        if (this.#riskyPatterns !== "allow" && riskyPattern(node.pattern as string) !== undefined) {
          if (this.#riskyPatterns === "skip") delete node.pattern;
          else refuseRisky(node.pattern as string);
        }
      }
      if (typeof node.patternProperties === "object" && node.patternProperties !== null) {
        for (const pattern of Object.keys(node.patternProperties)) {
          checkPattern(pattern);
          if (this.#riskyPatterns !== "allow") refuseRisky(pattern);
        }
      }
    });
    return prepared;
  }

  #dereference(schema: Schema, lookup: Record<string, Schema | boolean>): void {
    try {
      dereference(schema, lookup);
    } catch (cause) {
      throw new SchemaError(
        "invalid_schema",
        `Schema could not be indexed: ${boundText(String((cause as Error)?.message ?? cause))}`,
        { cause },
      );
    }
  }

  #compiled(schema: Schema, draft: SchemaDraft, lookup: Record<string, Schema | boolean>): CompiledSchema {
    let resolutions = 0;
    const budget = this.#maxRefResolutions;
    const counted = new Proxy(lookup, {
      get(target, key) {
        if (++resolutions > budget) throw new RefBudgetExceeded();
        return Reflect.get(target, key);
      },
    });
    const shortCircuit = this.#shortCircuit;
    const maxErrors = this.#maxErrors;
    const maxDepth = this.#maxDepth;
    return {
      validate(value: unknown): SchemaCheck {
        if (nestsDeeperThan(value, maxDepth)) return { valid: false, errors: [depthIssue(maxDepth)] };
        resolutions = 0;
        let result;
        try {
          result = validate(value, schema, draft, counted, shortCircuit);
        } catch (error) {
          if (error instanceof RefBudgetExceeded) {
            return failure(
              `Validation stopped after ${budget} $ref resolutions (maxRefResolutions); the value was not accepted`,
            );
          }
          if (error instanceof RangeError) {
            return failure(
              "Validation ran out of stack (the schema recurses too deeply for this value); the value was not accepted",
            );
          }
          if (error instanceof Error && error.message.startsWith("Instances of ")) {
            return failure(`Value is not JSON: ${boundText(error.message)}`);
          }
          throw error;
        }
        if (result.valid) return VALID;
        return { valid: false, errors: issuesFrom(result.errors, maxErrors) };
      },
    };
  }
}

const VALID: SchemaCheck = Object.freeze({ valid: true });
const ACCEPT_ALL: CompiledSchema = Object.freeze({ validate: () => VALID });
const REJECT_ALL: CompiledSchema = Object.freeze({
  validate: () => failure("No value is accepted here (the schema is false)"),
});

function failure(message: string): SchemaCheck {
  return { valid: false, errors: [{ path: "", message }] };
}
