/**
 * What `@cfworker/json-schema` reports, as our {@linkcode SchemaIssue}s: wrappers dropped, paths as
 * JSON Pointers, text bounded, count capped.
 * @module
 */
import type { OutputUnit } from "@cfworker/json-schema";
import { boundText } from "./bounds.ts";
import type { SchemaIssue } from "./schema_validator.ts";

/** Errors that only say "a subschema failed"; the detail follows them in cfworker's output. */
const WRAPPER_KEYWORDS = new Set([
  "properties",
  "patternProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "$ref",
  "$recursiveRef",
  "allOf",
  "dependentSchemas",
  "then",
  "else",
]);
/** Errors after which cfworker adds a bare "False boolean schema." for the same failure. */
const FALSE_FOLLOWERS = new Set([
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalItems",
  "items",
]);

/** cfworker's output units as our issues: wrappers dropped, paths as JSON Pointers, text bounded, count capped. */
export function issuesFrom(units: readonly OutputUnit[], maxErrors: number): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  let previous: OutputUnit | undefined;
  for (const unit of units) {
    if (issues.length >= maxErrors) break;
    const afterFalseFollower = unit.keyword === "false" && previous !== undefined &&
      FALSE_FOLLOWERS.has(previous.keyword);
    if (!WRAPPER_KEYWORDS.has(unit.keyword) && !afterFalseFollower) {
      issues.push({ path: pointerOf(unit.instanceLocation), message: boundText(unit.error) });
    }
    previous = unit;
  }
  if (issues.length === 0 && units.length > 0) {
    const unit = units[units.length - 1]!;
    issues.push({ path: pointerOf(unit.instanceLocation), message: boundText(unit.error) });
  }
  return issues;
}

/** `#/a%20b/0` → `/a b/0`. */
function pointerOf(location: string): string {
  const fragment = location.startsWith("#") ? location.slice(1) : location;
  let decoded = fragment;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    // Not percent-encoded as cfworker writes it: keep the text as it is.
  }
  return boundText(decoded);
}
