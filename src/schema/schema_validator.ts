/**
 * The small validator contract of onemodelcontext: compile a JSON Schema once, validate values many times.
 * The default is {@linkcode JsonSchemaValidator}; any other library (ajv, …) can be plugged in.
 * @module
 */

/** A JSON Schema object (any dialect the validator accepts; 2020-12 when `$schema` is absent). */
export interface JsonSchemaObject {
  readonly $schema?: string;
  readonly $id?: string;
  readonly type?: string | readonly string[];
  readonly [keyword: string]: unknown;
}

/** A JSON Schema: an object, or `true` (accepts anything) / `false` (accepts nothing). */
export type JsonSchema = JsonSchemaObject | boolean;

/** One reason a value failed: `path` is a JSON Pointer into the value (`""` for the value itself). */
export interface SchemaIssue {
  readonly path: string;
  readonly message: string;
}

/** The outcome of {@linkcode CompiledSchema.validate}. */
export type SchemaCheck = { readonly valid: true } | {
  readonly valid: false;
  readonly errors: readonly SchemaIssue[];
};

/** A schema ready to validate values; `validate` never throws for a JSON value. */
export interface CompiledSchema {
  validate(value: unknown): SchemaCheck;
}

/**
 * Turns a JSON Schema into a {@linkcode CompiledSchema}. `compile` throws a clear error for a schema it
 * refuses (the default throws {@linkcode SchemaError}); it must never fetch a `$ref` over the network.
 *
 * @example Plugging in ajv
 * ```ts
 * declare class Ajv2020 { // import Ajv2020 from "ajv/dist/2020.js"
 *   compile(schema: object): ((value: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
 * }
 * const ajv = new Ajv2020();
 * const validator: SchemaValidator = {
 *   compile(schema) {
 *     const check = ajv.compile(schema as object);
 *     return {
 *       validate: (value) => check(value)
 *         ? { valid: true }
 *         : { valid: false, errors: (check.errors ?? []).map((e) => ({ path: e.instancePath, message: e.message ?? "Invalid" })) },
 *     };
 *   },
 * };
 * ```
 */
export interface SchemaValidator {
  compile(schema: JsonSchema): CompiledSchema;
}
