/**
 * The `x-mcp-header` annotations of a tool's `inputSchema` (2026-07-28, SEP-2243): which tool
 * arguments are mirrored into `Mcp-Param-{Name}` headers, and whether the annotations are valid.
 * @module
 */

/** The schema keyword that marks a property for mirroring. */
export const X_MCP_HEADER = "x-mcp-header";

/** One mirrored parameter: header `Mcp-Param-{name}` carries the argument at `path`. */
export interface ParamHeader {
  /** The name part, as the schema spells it (header names compare case-insensitively). */
  name: string;
  /** The chain of `properties` keys from the schema root to the annotated property. */
  path: readonly string[];
}

/** The outcome of {@linkcode readMcpHeaderAnnotations}. */
export type AnnotationReading = { ok: true; params: ParamHeader[] } | { ok: false; reason: string };

const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE_TYPES = new Set(["string", "integer", "boolean"]);
/** Keywords whose value is a map from names to subschemas. */
const SCHEMA_MAPS = new Set([
  "$defs",
  "definitions",
  "patternProperties",
  "dependentSchemas",
  "dependencies",
]);
/** Keywords whose value is a subschema or an array of subschemas. */
const SCHEMA_SLOTS = new Set([
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "unevaluatedItems",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
]);

/**
 * Reads and validates every `x-mcp-header` annotation of a tool's `inputSchema`. Never throws.
 *
 * Invalid (the client drops the tool with a warning naming `reason`): a value that is not a string,
 * is empty, or is not an RFC 9110 token (`1*tchar`: no spaces, colons, control or non-ASCII
 * characters); two values equal ignoring case; an annotation on a property whose `type` is not
 * `string`, `integer` or `boolean` (a `type` list may add `"null"`); an annotation anywhere but on a
 * property reached from the root through `properties` keys alone (not under `items`, `oneOf`,
 * `anyOf`, `allOf`, `not`, `if`/`then`/`else`, `$defs`, `additionalProperties`, …), or on the root.
 * A schema without annotations reads as `{ ok: true, params: [] }`.
 *
 * @example
 * ```ts
 * readMcpHeaderAnnotations({ type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } });
 * // { ok: true, params: [{ name: "Region", path: ["region"] }] }
 * ```
 */
export function readMcpHeaderAnnotations(inputSchema: unknown): AnnotationReading {
  const params: ParamHeader[] = [];
  const seen = new Map<string, string>();
  let failure: string | undefined;

  const visit = (node: unknown, where: string, propertyPath: readonly string[] | undefined): void => {
    if (failure !== undefined || !isObject(node)) return;
    if (X_MCP_HEADER in node) {
      const reason = checkAnnotation(node, where, propertyPath, seen);
      if (reason !== undefined) {
        failure = reason;
        return;
      }
      params.push({ name: node[X_MCP_HEADER] as string, path: propertyPath! });
    }
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === "properties" && isObject(value)) {
        for (const [name, sub] of Object.entries(value)) {
          visit(
            sub,
            `${where}/properties/${name}`,
            propertyPath === undefined ? undefined : [...propertyPath, name],
          );
        }
      } else if (SCHEMA_MAPS.has(keyword) && isObject(value)) {
        for (const [name, sub] of Object.entries(value)) visit(sub, `${where}/${keyword}/${name}`, undefined);
      } else if (SCHEMA_SLOTS.has(keyword) || keyword === "$ref") {
        if (Array.isArray(value)) {
          value.forEach((sub, i) => visit(sub, `${where}/${keyword}/${i}`, undefined));
        } else visit(value, `${where}/${keyword}`, undefined);
      }
    }
  };
  visit(inputSchema, "#", []);
  return failure === undefined ? { ok: true, params } : { ok: false, reason: failure };
}

function checkAnnotation(
  node: Record<string, unknown>,
  where: string,
  propertyPath: readonly string[] | undefined,
  seen: Map<string, string>,
): string | undefined {
  const name = node[X_MCP_HEADER];
  if (typeof name !== "string") return `x-mcp-header at ${where} must be a string, got ${describe(name)}`;
  if (name.length === 0) return `x-mcp-header at ${where} must not be empty`;
  if (!TCHAR.test(name)) {
    return `x-mcp-header ${
      JSON.stringify(name)
    } at ${where} is not an HTTP token (letters, digits and !#$%&'*+-.^_\`|~ only)`;
  }
  if (propertyPath === undefined || propertyPath.length === 0) {
    return `x-mcp-header ${
      JSON.stringify(name)
    } at ${where} is not on a property reachable from the root through "properties" alone`;
  }
  const types = Array.isArray(node.type) ? node.type : [node.type];
  const nonNull = types.filter((t) => t !== "null");
  if (nonNull.length === 0 || !nonNull.every((t) => typeof t === "string" && PRIMITIVE_TYPES.has(t))) {
    return `x-mcp-header ${JSON.stringify(name)} at ${where} is on a property of type ${
      describe(node.type)
    }; only string, integer and boolean may be mirrored`;
  }
  const key = name.toLowerCase();
  const earlier = seen.get(key);
  if (earlier !== undefined) {
    return `x-mcp-header ${JSON.stringify(name)} at ${where} repeats ${
      JSON.stringify(earlier)
    } (names compare ignoring case)`;
  }
  seen.set(key, name);
  return undefined;
}

/** The argument at `path` in `args`, or `undefined` when some step is missing or not an object. */
export function argumentAt(args: unknown, path: readonly string[]): unknown {
  let current: unknown = args;
  for (const key of path) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  return JSON.stringify(value)?.slice(0, 60) ?? typeof value;
}

/** A tool `screenTools` dropped, and why. */
export interface RejectedTool {
  name: string;
  reason: string;
}

/** The outcome of {@linkcode screenTools}. */
export interface ToolScreening<T> {
  /** The tools whose annotations are valid, in their original order. */
  tools: T[];
  /** Mirrored parameters per kept tool name (tools without annotations map to `[]`). */
  paramHeaders: Map<string, ParamHeader[]>;
  /** Tools dropped for an invalid `x-mcp-header` annotation: warn with each `reason` naming the tool. */
  rejected: RejectedTool[];
}

/**
 * Screens the tools of a `tools/list` result for an HTTP client: tools with an invalid
 * `x-mcp-header` annotation are dropped (the specification's MUST; warn about each), the others
 * are kept with their mirrored parameters for `deriveRequestHeaders`. A tool without a string
 * `name` is passed through untouched and gets no entry in `paramHeaders`.
 *
 * @example
 * ```ts
 * declare const result: { tools: unknown[] };
 * declare function onReport(report: { kind: "warning"; message: string }): void;
 * const { tools, paramHeaders, rejected } = screenTools(result.tools);
 * for (const r of rejected) onReport({ kind: "warning", message: `Dropped tool ${r.name}: ${r.reason}` });
 * ```
 */
export function screenTools<T>(tools: readonly T[]): ToolScreening<T> {
  const screening: ToolScreening<T> = { tools: [], paramHeaders: new Map(), rejected: [] };
  for (const tool of tools) {
    const name = isObject(tool) && typeof tool.name === "string" ? tool.name : undefined;
    const reading = readMcpHeaderAnnotations(isObject(tool) ? tool.inputSchema : undefined);
    if (!reading.ok) {
      screening.rejected.push({ name: name ?? "(unnamed)", reason: reading.reason });
      continue;
    }
    screening.tools.push(tool);
    if (name !== undefined) screening.paramHeaders.set(name, reading.params);
  }
  return screening;
}
