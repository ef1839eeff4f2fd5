/**
 * The checks {@linkcode JsonSchemaValidator} makes when it compiles a schema: its dialect, that every
 * `$ref` resolves inside the process, that each `pattern` is a valid (and, when asked, safe) regular
 * expression, and that a registered schema has an absolute `$id`.
 * @module
 */
import type { Schema, SchemaDraft } from "@cfworker/json-schema";
import { boundText } from "./bounds.ts";
import { riskyPattern } from "./risky_pattern.ts";
import { SchemaError } from "./schema_error.ts";
import type { JsonSchemaObject } from "./schema_validator.ts";

const DIALECTS: Record<string, SchemaDraft> = {
  "json-schema.org/draft/2020-12/schema": "2020-12",
  "json-schema.org/draft/2019-09/schema": "2019-09",
  "json-schema.org/draft-07/schema": "7",
  "json-schema.org/draft-04/schema": "4",
};

/** The draft named by `$schema`, 2020-12 when absent. */
export function dialectOf(schema: JsonSchemaObject): SchemaDraft {
  const uri = schema.$schema;
  if (uri === undefined) return "2020-12";
  if (typeof uri === "string") {
    const key = uri.replace(/^https?:\/\//, "").replace(/#$/, "");
    const draft = DIALECTS[key];
    if (draft) return draft;
  }
  throw new SchemaError(
    "unsupported_dialect",
    `Schema $schema ${
      boundText(JSON.stringify(uri) ?? String(uri))
    } is not supported: use JSON Schema 2020-12 (the default), 2019-09, draft-07 or draft-04`,
  );
}

/** Every `$ref` (and `$recursiveRef`) in the indexed schemas must name an indexed schema. */
export function checkRefs(lookup: Record<string, Schema | boolean>): void {
  for (const node of Object.values(lookup)) {
    if (typeof node !== "object") continue;
    for (
      const [ref, absolute] of [[node.$ref, node.__absolute_ref__], [
        node.$recursiveRef,
        node.__absolute_recursive_ref__,
      ]]
    ) {
      if (ref === undefined) continue;
      if (typeof ref !== "string") {
        throw new SchemaError("invalid_schema", `Schema $ref must be a string, got ${describe(ref)}`);
      }
      if (lookup[absolute ?? ref] === undefined) {
        throw new SchemaError(
          "unresolved_ref",
          `Schema $ref ${
            boundText(JSON.stringify(ref))
          } does not resolve: only refs inside the schema (#/$defs/…) and schemas registered with JsonSchemaValidator({ schemas }) resolve; refs are never fetched`,
          { ref },
        );
      }
    }
  }
}

/** Throws {@linkcode SchemaError} `unsafe_pattern` when `pattern` can backtrack catastrophically. */
export function refuseRisky(pattern: string): void {
  const reason = riskyPattern(pattern);
  if (reason === undefined) return;
  throw new SchemaError(
    "unsafe_pattern",
    `Schema pattern ${boundText(JSON.stringify(pattern))} can take exponential time to match: ${reason}`,
  );
}

/** cfworker builds `new RegExp(pattern, "u")` while validating: refuse a bad pattern now instead. */
export function checkPattern(pattern: unknown): void {
  try {
    new RegExp(pattern as string, "u");
    if (typeof pattern === "string") return;
  } catch (cause) {
    throw new SchemaError(
      "invalid_schema",
      `Schema pattern ${
        boundText(JSON.stringify(pattern) ?? String(pattern))
      } is not a valid regular expression`,
      { cause },
    );
  }
  throw new SchemaError("invalid_schema", `Schema pattern must be a string, got ${describe(pattern)}`);
}

/** Whether `text` parses as an absolute URI. */
export function isAbsoluteUri(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/** What kind of value `value` is, for an error message. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
