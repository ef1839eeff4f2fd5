/**
 * `toolSchema`: what the tool registry calls for every input and output schema. It takes a JSON Schema
 * or a Standard Schema value and returns the JSON Schema for the wire plus one `validate` for both.
 * @module
 */
import { InvalidOptionError } from "../wire/errors.ts";
import {
  boundText,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ERRORS,
  depthIssue,
  integerOption,
  MAX_DEPTH_LIMIT,
  nestsDeeperThan,
  pointerFrom,
} from "./bounds.ts";
import { JsonSchemaValidator } from "./json_schema_validator.ts";
import { SchemaError } from "./schema_error.ts";
import type { JsonSchema, JsonSchemaObject, SchemaIssue, SchemaValidator } from "./schema_validator.ts";
import {
  isStandardSchema,
  libraryJsonSchema,
  type SchemaRole,
  type StandardOutput,
  type StandardSchemaV1,
} from "./standard_schema.ts";

/** A JSON Schema or a Standard Schema value (zod 4, valibot, arktype…). */
export type SchemaLike = JsonSchema | StandardSchemaV1;

/** The outcome of {@linkcode ToolSchema.validate}: the value to use (parsed by the schema library), or issues. */
export type ToolSchemaResult<T> =
  | { readonly valid: true; readonly value: T }
  | { readonly valid: false; readonly errors: readonly SchemaIssue[] };

/** A tool's input or output schema, ready for the wire and for validation. */
export interface ToolSchema<T> {
  /** The JSON Schema to send in `tools/list`: always `type: "object"` at the top. */
  readonly jsonSchema: JsonSchemaObject;
  /**
   * Validates `value`. A Standard Schema value validates with its own library and returns its output
   * (zod transforms and defaults applied); a JSON Schema validates with the {@linkcode SchemaValidator}
   * and returns `value` itself. Rejects only when the schema library itself throws.
   */
  validate(value: unknown): Promise<ToolSchemaResult<T>>;
}

/** Derives a JSON Schema from a Standard Schema value whose library has no converter of its own (e.g. valibot's `toJsonSchema`). */
export type JsonSchemaConverter<S> = (schema: S, context: { readonly role: SchemaRole }) => object;

/** Options of {@linkcode toolSchema}. */
export interface ToolSchemaOptions<S = SchemaLike> {
  /**
   * `input` (tool arguments) or `output` (`structuredContent`); picks the side of a transforming schema.
   * @default "input"
   */
  readonly role?: SchemaRole;
  /**
   * Validates plain JSON Schemas.
   * @default one shared `JsonSchemaValidator` with default options
   */
  readonly validator?: SchemaValidator;
  /** The JSON Schema to send for a Standard Schema value, instead of deriving one. */
  readonly jsonSchema?: JsonSchemaObject;
  /** Derives the JSON Schema of a Standard Schema value; wins over the library's own converter. */
  readonly converter?: JsonSchemaConverter<S>;
  /**
   * Issues reported from a Standard Schema failure.
   * @default 10
   */
  readonly maxErrors?: number;
  /**
   * Nesting levels allowed in a value given to a Standard Schema (at most 1000).
   * @default 128
   */
  readonly maxDepth?: number;
}

let sharedValidator: JsonSchemaValidator | undefined;

/**
 * Normalises a tool's input or output schema. Throws {@linkcode SchemaError}: `not_object` when the top
 * is not `type: "object"` (an absent `type` becomes `"object"`), `no_json_schema` when a Standard Schema
 * library offers no converter and neither `jsonSchema` nor `converter` is given, `conversion_failed`
 * when the converter throws, and the validator's own errors (`unresolved_ref`…) for a JSON Schema.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const input = toolSchema(z.object({ city: z.string() }));
 * input.jsonSchema; // { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", … }
 * await input.validate({ city: "Oslo" }); // { valid: true, value: { city: "Oslo" } }
 * const output = toolSchema({ type: "object", properties: { temp: { type: "number" } } }, { role: "output" });
 * ```
 */
export function toolSchema<S extends StandardSchemaV1>(
  schema: S,
  options?: ToolSchemaOptions<S>,
): ToolSchema<StandardOutput<S>>;
export function toolSchema(
  schema: JsonSchema,
  options?: ToolSchemaOptions<JsonSchema>,
): ToolSchema<Record<string, unknown>>;
export function toolSchema(schema: SchemaLike, options: ToolSchemaOptions<never> = {}): ToolSchema<unknown> {
  const role = options.role ?? "input";
  if (role !== "input" && role !== "output") {
    throw new InvalidOptionError(`Option role must be "input" or "output", got ${String(role)}`);
  }
  const maxErrors = integerOption("maxErrors", options.maxErrors, DEFAULT_MAX_ERRORS, 1);
  const maxDepth = integerOption("maxDepth", options.maxDepth, DEFAULT_MAX_DEPTH, 1, MAX_DEPTH_LIMIT);
  if (isStandardSchema(schema)) {
    const jsonSchema = objectAtTop(
      derive(schema, role, options as ToolSchemaOptions<StandardSchemaV1>),
      role,
    );
    const props = schema["~standard"];
    return {
      jsonSchema,
      async validate(value) {
        if (nestsDeeperThan(value, maxDepth)) return { valid: false, errors: [depthIssue(maxDepth)] };
        const result = await props.validate(value);
        if (result.issues === undefined) return { valid: true, value: result.value };
        return { valid: false, errors: issuesFrom(result.issues, maxErrors, props.vendor) };
      },
    };
  }
  if (options.jsonSchema !== undefined || options.converter !== undefined) {
    throw new InvalidOptionError(
      "Options jsonSchema and converter apply to Standard Schema values only; this schema is already a JSON Schema",
    );
  }
  if (
    typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))
  ) {
    throw new SchemaError(
      "invalid_schema",
      `A tool ${role} schema must be a JSON Schema object or a Standard Schema value, got ${
        schema === null ? "null" : Array.isArray(schema) ? "an array" : typeof schema
      }`,
    );
  }
  const jsonSchema = objectAtTop(schema, role);
  const validator = options.validator ?? (sharedValidator ??= new JsonSchemaValidator());
  const compiled = validator.compile(jsonSchema);
  return {
    jsonSchema,
    validate(value) {
      const check = compiled.validate(value);
      return Promise.resolve(check.valid ? { valid: true, value } : check);
    },
  };
}

/** The wire JSON Schema of a Standard Schema value: explicit, user converter, or the library's own. */
function derive(
  schema: StandardSchemaV1,
  role: SchemaRole,
  options: ToolSchemaOptions<StandardSchemaV1>,
): JsonSchema {
  if (options.jsonSchema !== undefined) return options.jsonSchema;
  const vendor = schema["~standard"].vendor;
  let derived: object | undefined;
  try {
    derived = options.converter ? options.converter(schema, { role }) : libraryJsonSchema(schema, role);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new SchemaError(
      "conversion_failed",
      `The ${vendor} schema could not be converted to JSON Schema: ${
        boundText(detail)
      }; pass the jsonSchema option instead`,
      { cause },
    );
  }
  if (derived === undefined) {
    const hint = vendor === "valibot"
      ? " (for valibot: converter: (s) => toJsonSchema(s) from @valibot/to-json-schema, or wrap the schema with its toStandardJsonSchema)"
      : "";
    throw new SchemaError(
      "no_json_schema",
      `The ${vendor} schema offers no JSON Schema converter: pass the jsonSchema or converter option${hint}`,
    );
  }
  if (typeof derived !== "object" || derived === null || Array.isArray(derived)) {
    throw new SchemaError(
      "conversion_failed",
      `The ${vendor} schema converter returned ${
        derived === null ? "null" : typeof derived
      }, not a JSON Schema object`,
    );
  }
  return derived as JsonSchemaObject;
}

/** MCP requires `type: "object"` at the top of tool input and output schemas: add it when absent, refuse anything else. */
function objectAtTop(schema: JsonSchema, role: SchemaRole): JsonSchemaObject {
  if (schema === true) return { type: "object" };
  if (schema === false) {
    throw new SchemaError("not_object", `A tool ${role} schema must accept objects, got false`);
  }
  if (schema.type === "object") return schema;
  if (schema.type === undefined) return { type: "object", ...schema };
  throw new SchemaError(
    "not_object",
    `A tool ${role} schema must have type "object" at the top (MCP), got type ${
      boundText(JSON.stringify(schema.type) ?? String(schema.type))
    }`,
  );
}

function issuesFrom(
  issues: ReadonlyArray<
    {
      readonly message: string;
      readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
    }
  >,
  maxErrors: number,
  vendor: string,
): SchemaIssue[] {
  const out: SchemaIssue[] = [];
  for (const issue of issues.slice(0, maxErrors)) {
    const segments = (issue.path ?? []).map((segment) =>
      typeof segment === "object" && segment !== null ? segment.key : segment
    );
    const message = typeof issue.message === "string" && issue.message.length > 0
      ? issue.message
      : `Invalid value (${vendor})`;
    out.push({ path: pointerFrom(segments), message: boundText(message) });
  }
  if (out.length === 0) out.push({ path: "", message: `Invalid value (${vendor} reported no issue detail)` });
  return out;
}
