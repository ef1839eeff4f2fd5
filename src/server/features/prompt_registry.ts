/**
 * `PromptRegistry`: the prompts of a server, `prompts/list` and `prompts/get`.
 * @module
 */
import { ErrorCodes, InvalidOptionError, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { Icon, PromptArgument } from "../../wire/protocol/v2026_07_28.ts";
import type { ContentBlock } from "../../wire/protocol/v2026_07_28.ts";
import type { JsonSchema, SchemaValidator } from "../../schema/schema_validator.ts";
import type { StandardOutput, StandardSchemaV1 } from "../../schema/standard_schema.ts";
import { type SchemaLike, type ToolSchema, toolSchema } from "../../schema/tool_schema.ts";
import type { FeatureRequestContext } from "./feature_host.ts";
import { describeIssues, FeatureRegistry, type FeatureRegistryOptions } from "./feature_registry.ts";
import type { HandlerContext } from "./handler_context.ts";
import type { Completer } from "./resource_registry.ts";

/** One prompt message: text, image, audio, a resource link or an embedded resource. */
export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

/** What a prompt handler returns: a `GetPromptResult`, its messages, or a string (one user text message). */
export type PromptResult =
  | {
    description?: string;
    messages: PromptMessage[];
    _meta?: Record<string, unknown>;
    [key: string]: unknown;
  }
  | PromptMessage[]
  | string;

/** The arguments a prompt handler gets. */
export type PromptArguments<S> = S extends StandardSchemaV1 ? StandardOutput<S> : Record<string, string>;

/** Describes a prompt. Give its arguments as a list, or as a schema (JSON Schema or Standard Schema) of string properties. */
export interface PromptConfig<S extends SchemaLike | undefined = undefined> {
  title?: string;
  description?: string;
  icons?: Icon[];
  /** The arguments, as `prompts/list` shows them; required ones are checked before the handler runs. */
  arguments?: PromptArgument[];
  /** The arguments as a schema; `arguments` is derived from its properties, and values are validated with it. */
  argsSchema?: S;
  /** Completers of arguments, by argument name. */
  complete?: Readonly<Record<string, Completer>>;
  _meta?: Record<string, unknown>;
}

/** Builds the prompt's messages. */
export type PromptHandler<A> = (args: A, context: HandlerContext) => PromptResult | Promise<PromptResult>;

/** A registered prompt; `remove()` takes it off the server. */
export interface RegisteredPrompt {
  readonly name: string;
  remove(): void;
}

/** Options of {@linkcode PromptRegistry}. */
export interface PromptRegistryOptions extends FeatureRegistryOptions {
  validator?: SchemaValidator;
}

interface Entry {
  readonly wire: Record<string, unknown>;
  readonly required: readonly string[];
  readonly schema: ToolSchema<unknown> | undefined;
  readonly complete: Readonly<Record<string, Completer>> | undefined;
  readonly handler: PromptHandler<unknown>;
}

/** The prompts of one server. */
export class PromptRegistry extends FeatureRegistry<PromptRegistryOptions> {
  readonly #prompts = new Map<string, Entry>();

  /** Prompts registered now. */
  get size(): number {
    return this.#prompts.size;
  }

  /** Registers a prompt. Throws {@linkcode InvalidOptionError} for a taken or empty name, or both `arguments` and `argsSchema`. */
  add<S extends SchemaLike | undefined>(
    name: string,
    config: PromptConfig<S>,
    handler: PromptHandler<PromptArguments<S>>,
  ): RegisteredPrompt {
    if (typeof name !== "string" || name.length === 0) {
      throw new InvalidOptionError(`A prompt name must be a non-empty string, got ${JSON.stringify(name)}`);
    }
    this.assertFree(this.#prompts, name, `Prompt ${name}`);
    if (typeof handler !== "function") {
      throw new InvalidOptionError(`Prompt ${name} needs a handler function, got ${typeof handler}`);
    }
    const { title, description, icons, arguments: listed, argsSchema, complete, _meta } = config ?? {};
    if (listed !== undefined && argsSchema !== undefined) {
      throw new InvalidOptionError(`Prompt ${name}: give arguments or argsSchema, not both`);
    }
    const schema = argsSchema === undefined
      ? undefined
      : toolSchema(argsSchema as JsonSchema, { validator: this.options.validator }) as ToolSchema<unknown>;
    const args = schema ? argumentsOf(schema.jsonSchema) : listed;
    if (
      args !== undefined &&
      (!Array.isArray(args) || !args.every((a) => isPlainObject(a) && typeof a.name === "string"))
    ) {
      throw new InvalidOptionError(
        `Prompt ${name}: arguments must be an array of { name, description?, required? }`,
      );
    }
    for (const argument of Object.keys(complete ?? {})) {
      if (!args?.some((a) => a.name === argument)) {
        throw new InvalidOptionError(
          `Prompt ${name} has no argument ${JSON.stringify(argument)} to complete`,
        );
      }
    }
    const wire: Record<string, unknown> = { name };
    if (title !== undefined) wire.title = title;
    if (description !== undefined) wire.description = description;
    if (args !== undefined && args.length > 0) wire.arguments = args;
    if (icons !== undefined) wire.icons = icons;
    if (_meta !== undefined) wire._meta = _meta;
    const required = (args ?? []).filter((a) => a.required === true).map((a) => a.name);
    const entry: Entry = { wire, required, schema, complete, handler: handler as PromptHandler<unknown> };
    return { name, remove: this.register(this.#prompts, name, entry) };
  }

  /** The completer of argument `argument` of prompt `name`: `null` for no such prompt, `undefined` for no completer. */
  completerOf(name: string, argument: string): Completer | undefined | null {
    const entry = this.#prompts.get(name);
    if (!entry) return null;
    return entry.complete && Object.hasOwn(entry.complete, argument) ? entry.complete[argument] : undefined;
  }

  /** `prompts/list`. */
  list(params: unknown, context: FeatureRequestContext): Record<string, unknown> {
    const prompts = [...this.#prompts.values()].map((entry) => entry.wire);
    return this.listPage("prompts", "prompts", prompts, params, context);
  }

  /** `prompts/get`: unknown prompt, missing required or invalid arguments answer -32602. */
  async get(params: unknown, context: FeatureRequestContext): Promise<unknown> {
    const name = isPlainObject(params) ? params.name : undefined;
    if (typeof name !== "string") {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        "Invalid params: name must be a string (the prompt to get)",
      );
    }
    const prompt = this.#prompts.get(name);
    if (!prompt) throw new JsonRpcError(ErrorCodes.InvalidParams, `Unknown prompt: ${name}`, { name });
    const given = (params as Record<string, unknown>).arguments ?? {};
    if (!isPlainObject(given) || !Object.values(given).every((v) => typeof v === "string")) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        `Invalid params: arguments of prompt ${name} must be an object of strings`,
      );
    }
    const missing = prompt.required.filter((argument) => !Object.hasOwn(given, argument));
    if (missing.length > 0) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        `Missing required arguments of prompt ${name}: ${missing.join(", ")}`,
      );
    }
    let args: unknown = given;
    if (prompt.schema) {
      const check = await prompt.schema.validate(given);
      if (!check.valid) {
        throw new JsonRpcError(
          ErrorCodes.InvalidParams,
          `Invalid arguments for prompt ${name}: ${describeIssues(check.errors)}`,
        );
      }
      args = check.value;
    }
    const result = await prompt.handler(args, this.handlerContext(context, params));
    if (typeof result === "string") {
      return { messages: [{ role: "user", content: { type: "text", text: result } }] };
    }
    if (Array.isArray(result)) return { messages: result };
    if (
      !isPlainObject(result) ||
      (!Array.isArray(result.messages) &&
        (result.resultType === undefined || result.resultType === "complete"))
    ) {
      throw new JsonRpcError(ErrorCodes.InternalError, `Prompt ${name} returned no messages array`);
    }
    return result;
  }
}

/** The `arguments` list of a JSON Schema's top-level properties. */
function argumentsOf(schema: Record<string, unknown>): PromptArgument[] {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(properties).map(([name, property]) => {
    const argument: PromptArgument = { name };
    if (isPlainObject(property) && typeof property.title === "string") argument.title = property.title;
    if (isPlainObject(property) && typeof property.description === "string") {
      argument.description = property.description;
    }
    if (required.includes(name)) argument.required = true;
    return argument;
  });
}
