/**
 * A tool's parameters in words, from its input schema: what `inspect` lists under each tool, what
 * `call TOOL --help` prints, and the check that refuses a `key=value` the tool does not take.
 * @module
 */
import { UsageError } from "./args.ts";
import { terminalText } from "./terminal_text.ts";

type Schema = Record<string, unknown>;

/** One parameter: its name, its type in words, whether it is required, its description. */
export interface ToolParam {
  name: string;
  type: string;
  required: boolean;
  description?: string;
}

/** Parameters listed per tool at most; the rest are counted. */
export const MAX_PARAMS_SHOWN = 50;

function typeOf(schema: unknown): string {
  if (typeof schema !== "object" || schema === null) return "any";
  const s = schema as Schema;
  if (typeof s.type === "string") {
    if (s.type === "array" && typeof s.items === "object" && s.items !== null) return `${typeOf(s.items)}[]`;
    return s.type;
  }
  if (Array.isArray(s.type)) return s.type.filter((t) => typeof t === "string").join(" | ") || "any";
  if (Array.isArray(s.enum)) return s.enum.slice(0, 8).map((v) => JSON.stringify(v)).join(" | ");
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return alternatives.slice(0, 8).map(typeOf).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  return "any";
}

/** The parameters of an input schema, in the order of its `properties`. */
export function toolParams(inputSchema: unknown): ToolParam[] {
  if (typeof inputSchema !== "object" || inputSchema === null) return [];
  const schema = inputSchema as Schema;
  const properties = typeof schema.properties === "object" && schema.properties !== null
    ? schema.properties as Record<string, unknown>
    : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.keys(properties).map((name) => {
    const property = properties[name] as Schema | undefined;
    const param: ToolParam = { name, type: typeOf(property), required: required.has(name) };
    if (typeof property?.description === "string") param.description = property.description;
    return param;
  });
}

/** `city: string (required), days: integer`, inert for the terminal; `(none)` for no parameters. */
export function paramsInWords(inputSchema: unknown, max = MAX_PARAMS_SHOWN): string {
  const params = toolParams(inputSchema);
  if (params.length === 0) return "(none)";
  const shown = params.slice(0, max).map((p) =>
    `${terminalText(p.name)}: ${terminalText(p.type)}${p.required ? " (required)" : ""}`
  );
  if (params.length > max) shown.push(`… ${params.length - max} more`);
  return shown.join(", ");
}

/**
 * Refuses (with a {@linkcode UsageError}, exit 2) a `key=value` whose key the tool's input schema does
 * not name, unless the schema takes other properties (`additionalProperties` not `false`, or
 * `patternProperties`). A tool without `properties` is not checked.
 */
export function checkArgNames(tool: string, pairs: readonly [string, string][], inputSchema: unknown): void {
  if (typeof inputSchema !== "object" || inputSchema === null) return;
  const schema = inputSchema as Schema;
  if (typeof schema.properties !== "object" || schema.properties === null) return;
  const open = schema.patternProperties !== undefined ||
    (schema.additionalProperties !== undefined && schema.additionalProperties !== false);
  if (open) return;
  const known = Object.keys(schema.properties);
  for (const [key] of pairs) {
    if (!known.includes(key)) {
      throw new UsageError(
        `Tool ${terminalText(JSON.stringify(tool))} takes no argument ${
          terminalText(JSON.stringify(key))
        }; it takes ${paramsInWords(inputSchema)}`,
      );
    }
  }
}
