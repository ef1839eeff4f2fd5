/**
 * `Completions`: `completion/complete` for prompt arguments and resource template variables.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { FeatureRequestContext } from "./feature_host.ts";
import { RequestHandlerContext } from "./handler_context.ts";
import type { LogLevels } from "./log_levels.ts";
import type { PromptRegistry } from "./prompt_registry.ts";
import type { Completer, ResourceRegistry } from "./resource_registry.ts";

/** Values one `completion/complete` result carries at most (the spec's bound). */
export const MAX_COMPLETION_VALUES = 100;

/** Answers `completion/complete` from the completers given to prompts and resource templates. */
export class Completions {
  readonly #prompts: PromptRegistry;
  readonly #resources: ResourceRegistry;
  readonly #levels: LogLevels;

  constructor(prompts: PromptRegistry, resources: ResourceRegistry, levels: LogLevels) {
    this.#prompts = prompts;
    this.#resources = resources;
    this.#levels = levels;
  }

  /**
   * `completion/complete`. An unknown prompt or template answers -32602; an argument without a
   * completer gets no values. At most 100 values are sent, with `total` and `hasMore` telling the rest.
   */
  async complete(params: unknown, context: FeatureRequestContext): Promise<Record<string, unknown>> {
    if (!isPlainObject(params) || !isPlainObject(params.ref) || !isPlainObject(params.argument)) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        "Invalid params: completion/complete needs ref and argument objects",
      );
    }
    const { ref, argument } = params;
    if (typeof argument.name !== "string" || typeof argument.value !== "string") {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        "Invalid params: argument.name and argument.value must be strings",
      );
    }
    let completer: Completer | undefined | null;
    if (ref.type === "ref/prompt" && typeof ref.name === "string") {
      completer = this.#prompts.completerOf(ref.name, argument.name);
      if (completer === null) throw new JsonRpcError(ErrorCodes.InvalidParams, `Unknown prompt: ${ref.name}`);
    } else if (ref.type === "ref/resource" && typeof ref.uri === "string") {
      completer = this.#resources.completerOf(ref.uri, argument.name);
      if (completer === null) {
        throw new JsonRpcError(ErrorCodes.InvalidParams, `Unknown resource template: ${ref.uri}`);
      }
    } else {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        `Invalid params: ref must be { type: "ref/prompt", name } or { type: "ref/resource", uri }`,
      );
    }
    if (!completer) return { completion: { values: [], total: 0, hasMore: false } };
    const given = isPlainObject(params.context) && isPlainObject(params.context.arguments)
      ? params.context.arguments
      : {};
    const known: Record<string, string> = {};
    for (const [key, value] of Object.entries(given)) if (typeof value === "string") known[key] = value;
    const values = await completer(argument.value, {
      arguments: known,
      handler: new RequestHandlerContext(context, params, this.#levels),
    });
    if (!Array.isArray(values) || !values.every((value) => typeof value === "string")) {
      throw new JsonRpcError(
        ErrorCodes.InternalError,
        `The completer of ${argument.name} returned something other than an array of strings`,
      );
    }
    return {
      completion: {
        values: values.slice(0, MAX_COMPLETION_VALUES),
        total: values.length,
        hasMore: values.length > MAX_COMPLETION_VALUES,
      },
    };
  }
}
