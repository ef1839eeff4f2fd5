/**
 * `key=value` arguments typed on a command line, turned into the values a tool's input schema asks
 * for: numbers, integers, booleans, null, and JSON for objects and arrays; strings stay strings.
 * @module
 */
import { UsageError } from "./args.ts";

type Schema = Record<string, unknown>;

function types(schema: Schema | undefined): string[] {
  if (!schema) return [];
  const t = schema.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(alternatives)) return alternatives.flatMap((s) => types(s));
  if (Array.isArray(schema.enum)) {
    return [...new Set(schema.enum.map((v) => (v === null ? "null" : typeof v)))];
  }
  if (schema.const !== undefined) return [typeof schema.const];
  return [];
}

/** The value of `key=text` as `schema` (the property's schema, if any) wants it. */
export function coerceValue(key: string, text: string, schema: Schema | undefined): unknown {
  const wanted = types(schema);
  if (wanted.length === 0 || wanted.includes("string")) {
    // Strings stay strings; without a schema, JSON that is an object or array is taken as such.
    if (wanted.length === 0 && /^\s*[[{]/.test(text)) {
      try {
        return JSON.parse(text);
      } catch { /* a string after all */ }
    }
    return text;
  }
  for (const type of wanted) {
    if ((type === "number" || type === "integer") && text.trim() !== "" && Number.isFinite(Number(text))) {
      const n = Number(text);
      if (type === "integer" && !Number.isInteger(n)) continue;
      return n;
    }
    if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
    if (type === "null" && text === "null") return null;
    if (type === "object" || type === "array") {
      try {
        const value = JSON.parse(text);
        if (
          type === "array"
            ? Array.isArray(value)
            : typeof value === "object" && value !== null && !Array.isArray(value)
        ) return value;
      } catch { /* reported below */ }
    }
  }
  throw new UsageError(
    `Argument ${key}=${text}: the tool wants ${wanted.join(" or ")}${
      wanted.some((t) => t === "object" || t === "array") ? " (as JSON)" : ""
    }`,
  );
}

/** Every pair coerced by the properties of `inputSchema`, on top of `base` (`--args JSON`). */
export function coerceArgs(
  pairs: [string, string][],
  inputSchema: unknown,
  base: Record<string, unknown> = {},
): Record<string, unknown> {
  const properties = ((inputSchema as Schema | undefined)?.properties ?? {}) as Record<string, Schema>;
  const out: Record<string, unknown> = { ...base };
  for (const [key, text] of pairs) out[key] = coerceValue(key, text, properties[key]);
  return out;
}
