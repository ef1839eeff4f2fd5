/**
 * `applyElicitationDefaults`: fills an accepted form elicitation's omitted fields with the defaults
 * of its `requestedSchema`, as the 2025-11-25 revision asks of clients that support defaults
 * (SEP-1034: "Clients that support defaults SHOULD pre-populate form fields with these values").
 * @module
 */
import { isPlainObject } from "../wire/meta_envelope.ts";

/**
 * Returns `result` with every property of `requestedSchema.properties` that has a `default` and is
 * absent from `result.content` set to that default (a copy: `result` is not changed). Only for
 * `action: "accept"` in form mode; anything else is returned as is. A field the user filled is never
 * overwritten, and a default whose JSON type contradicts the property's `type` is skipped.
 *
 * @example
 * ```ts
 * applyElicitationDefaults(
 *   { message: "m", requestedSchema: { type: "object", properties: { age: { type: "integer", default: 30 } } } },
 *   { action: "accept", content: {} },
 * ); // { action: "accept", content: { age: 30 } }
 * ```
 */
export function applyElicitationDefaults<R>(params: unknown, result: R): R {
  if (
    !isPlainObject(params) || params.mode === "url" || !isPlainObject(result) || result.action !== "accept"
  ) return result;
  const schema = params.requestedSchema;
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return result;
  const content: Record<string, unknown> = isPlainObject(result.content) ? { ...result.content } : {};
  let changed = false;
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isPlainObject(property) || !("default" in property) || Object.hasOwn(content, name)) continue;
    if (!fitsType(property.type, property.default)) continue;
    content[name] = structuredClone(property.default);
    changed = true;
  }
  return changed ? ({ ...result, content } as R) : result;
}

function fitsType(type: unknown, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value) && value.every((item) => typeof item === "string");
    default:
      return type === undefined && value !== undefined;
  }
}
