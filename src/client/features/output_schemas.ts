/**
 * `OutputSchemas`: the output schema of every tool the last `tools/list` returned, compiled once on
 * first use, to check `tools/call` results' `structuredContent`.
 * @module
 */
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { CompiledSchema, JsonSchema, SchemaValidator } from "../../schema/schema_validator.ts";
import { ClientFeatureError, StructuredContentError } from "./feature_errors.ts";

interface Entry {
  readonly schema: JsonSchema;
  compiled?: CompiledSchema;
}

/**
 * Tool name → output schema. `replace` swaps in a complete listing; `remember` adds tools seen page by
 * page (the oldest are forgotten beyond `maxEntries`). A tool without an output schema is not checked.
 *
 * @example
 * ```ts
 * declare const tools: readonly unknown[], result: unknown;
 * const schemas = new OutputSchemas(new JsonSchemaValidator(), 100_000);
 * schemas.replace(tools);
 * schemas.check("weather", result); // throws StructuredContentError on a mismatch
 * ```
 */
export class OutputSchemas {
  readonly #validator: SchemaValidator;
  readonly #maxEntries: number;
  #entries = new Map<string, Entry>();

  constructor(validator: SchemaValidator, maxEntries: number) {
    this.#validator = validator;
    this.#maxEntries = maxEntries;
  }

  /** Forgets every schema and keeps those of `tools` (a complete `tools/list`). */
  replace(tools: readonly unknown[]): void {
    this.#entries = new Map();
    for (const tool of tools) this.remember(tool);
  }

  /** Keeps the output schema of `tool` (or forgets a previous one when it has none now). */
  remember(tool: unknown): void {
    if (!isPlainObject(tool) || typeof tool.name !== "string") return;
    this.#entries.delete(tool.name);
    const schema = tool.outputSchema;
    if (!isPlainObject(schema) && typeof schema !== "boolean") return;
    this.#entries.set(tool.name, { schema: schema as JsonSchema });
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** Whether `name` has a known output schema. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /**
   * Checks a `tools/call` result of tool `name`. An error result (`isError: true`) is not checked.
   * Throws {@linkcode StructuredContentError} when `structuredContent` is missing or does not match, and
   * a `ClientFeatureError` `output_schema_invalid` when the schema does not compile.
   */
  check(name: string, result: unknown): void {
    const entry = this.#entries.get(name);
    if (!entry || !isPlainObject(result) || result.isError === true) return;
    if (!("structuredContent" in result) || result.structuredContent === undefined) {
      throw new StructuredContentError(name, [{
        path: "",
        message: "structuredContent is missing, but the tool declares an output schema",
      }], result);
    }
    if (!entry.compiled) {
      try {
        entry.compiled = this.#validator.compile(entry.schema);
      } catch (error) {
        throw new ClientFeatureError(
          "output_schema_invalid",
          `Tool ${JSON.stringify(name)} has an output schema that cannot be compiled: ${
            (error as Error).message
          }`,
          { cause: error },
        );
      }
    }
    const check = entry.compiled.validate(result.structuredContent);
    if (!check.valid) throw new StructuredContentError(name, check.errors, result);
  }
}
