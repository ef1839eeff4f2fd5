/**
 * The subschemas of a JSON Schema: which keywords hold one, an array of them, or a map of them, and
 * a walk over every subschema object.
 * @module
 */
import type { Schema } from "@cfworker/json-schema";

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = new Set([
  "items",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
]);
/** Keywords whose value is an array of subschemas. */
const SCHEMA_ARRAY_KEYWORDS = new Set(["prefixItems", "items", "allOf", "anyOf", "oneOf"]);
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP_KEYWORDS = new Set([
  "$defs",
  "definitions",
  "properties",
  "patternProperties",
  "dependentSchemas",
  "dependencies",
]);

/** Calls `visit` on every subschema object of `schema` (in schema positions only), itself included. */
export function walkSchemas(schema: unknown, visit: (node: Schema) => void): void {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return;
  const node = schema as Schema;
  visit(node);
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (SCHEMA_ARRAY_KEYWORDS.has(key) && Array.isArray(value)) {
      for (const item of value) walkSchemas(item, visit);
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && typeof value === "object" && value !== null) {
      for (const sub of Object.values(value)) walkSchemas(sub, visit);
    } else if (SCHEMA_KEYWORDS.has(key)) {
      walkSchemas(value, visit);
    }
  }
}
