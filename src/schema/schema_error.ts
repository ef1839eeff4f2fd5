/**
 * The one error the schema layer raises when a schema cannot be accepted, with a stable literal `code`.
 * @module
 */

/** The stable codes of {@linkcode SchemaError}. */
export type SchemaErrorCode =
  /** The schema is not a JSON Schema (not an object or boolean, holds a non-JSON value, a bad `$id`…). */
  | "invalid_schema"
  /** A `$ref` names neither a local subschema nor a registered schema; refs are never fetched. */
  | "unresolved_ref"
  /** `$schema` names a dialect the validator does not implement. */
  | "unsupported_dialect"
  /** The schema uses a keyword the validator cannot honour (e.g. `$dynamicRef`). */
  | "unsupported_keyword"
  /** A `pattern` can backtrack catastrophically (`riskyPatterns: "refuse"`, or any risky `patternProperties` key unless allowed). */
  | "unsafe_pattern"
  /** The schema nests deeper than `maxDepth` or holds more than `maxSchemaNodes` values. */
  | "schema_too_large"
  /** A tool input or output schema is not `type: "object"` at the top, as MCP requires. */
  | "not_object"
  /** A Standard Schema value offers no JSON Schema converter and none was given. */
  | "no_json_schema"
  /** The schema library's own JSON Schema converter threw. */
  | "conversion_failed";

/** A schema was refused at compile or registration time; `code` is stable and safe to branch on. */
export class SchemaError extends Error {
  readonly code: SchemaErrorCode;
  /** The `$ref` that did not resolve, for `unresolved_ref`. */
  readonly ref?: string;
  constructor(code: SchemaErrorCode, message: string, options?: { cause?: unknown; ref?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = "SchemaError";
    if (options?.ref !== undefined) this.ref = options.ref;
  }
}
