/**
 * Bounds on hostile input shared by the schema layer: value depth, message length, error count, options.
 * @module
 */
import { InvalidOptionError } from "../wire/errors.ts";

/** Longest message or path a {@linkcode SchemaIssue} carries; longer text is cut and marked with "…". */
export const MAX_ISSUE_TEXT = 200;

/** Default `maxErrors`: issues reported per failed validation. */
export const DEFAULT_MAX_ERRORS = 10;

/** Default `maxDepth`: nesting levels allowed in a schema and in a value. */
export const DEFAULT_MAX_DEPTH = 128;

/** Highest `maxDepth` accepted: the checks recurse once per level. */
export const MAX_DEPTH_LIMIT = 1000;

/** Cuts `text` to {@linkcode MAX_ISSUE_TEXT} characters. */
export function boundText(text: string): string {
  return text.length <= MAX_ISSUE_TEXT ? text : `${text.slice(0, MAX_ISSUE_TEXT - 1)}…`;
}

/** Returns `value` when it is an integer in [`min`, `max`], `fallback` when undefined; throws otherwise. */
export function integerOption(
  name: string,
  value: unknown,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidOptionError(
      `Option ${name} must be an integer from ${min} to ${max}, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * True when `value` nests objects or arrays more than `maxDepth` levels deep (a cycle counts as too
 * deep). The walk itself stops at `maxDepth`, so its stack use is bounded.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const ancestors = new Set<object>();
  const visit = (node: unknown, depth: number): boolean => {
    if (typeof node !== "object" || node === null) return false;
    if (depth >= maxDepth || ancestors.has(node)) return true;
    ancestors.add(node);
    try {
      if (Array.isArray(node)) {
        for (const item of node) if (visit(item, depth + 1)) return true;
      } else {
        for (const key in node) {
          if (visit((node as Record<string, unknown>)[key], depth + 1)) return true;
        }
      }
      return false;
    } finally {
      ancestors.delete(node);
    }
  };
  return visit(value, 0);
}

/** The issue reported for a value that nests deeper than `maxDepth`. */
export function depthIssue(maxDepth: number): { path: string; message: string } {
  return { path: "", message: `Value nests deeper than ${maxDepth} levels (maxDepth); it was not validated` };
}

/** A JSON Pointer (RFC 6901) from path segments: `["a", 0]` → `"/a/0"`. */
export function pointerFrom(segments: readonly PropertyKey[]): string {
  let pointer = "";
  for (const segment of segments) {
    const text = typeof segment === "symbol" ? (segment.description ?? "") : String(segment);
    pointer += `/${text.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (pointer.length > MAX_ISSUE_TEXT) break;
  }
  return boundText(pointer);
}
