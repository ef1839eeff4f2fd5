/**
 * `inputHandler`: turns a handler that asks the client (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`)
 * into an ordinary request handler for `ContextServer.handle`, in both eras.
 * @module
 */
import type { Capabilities, Era } from "../wire/protocol_versions.ts";
import type { InputContext, InputRounds, SendClientRequest } from "./input_rounds.ts";

/** The part of a server request context that {@linkcode inputHandler} reads. */
export interface InputHostContext {
  readonly era: Era;
  readonly method: string;
  readonly clientCapabilities: Capabilities;
  readonly signal: AbortSignal;
  /** Present when the transport can send requests to the client (legacy sessions). */
  request?(method: string, params?: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
}

/** Options of {@linkcode inputHandler}. */
export interface InputHandlerOptions<C> {
  /** The authenticated principal of a request (e.g. the OAuth `sub`), bound into its state. */
  principal?: (params: unknown, context: C) => string | undefined;
}

/**
 * Wraps `handler` so that its context also has the {@linkcode InputContext} methods. Modern
 * requests answer `{resultType: "input_required", …}` until every answer is in; legacy requests
 * send real requests to the client through `context.request`.
 *
 * @example
 * ```ts
 * const rounds = new InputRounds({ codec: new RequestStateCodec({ key: sharedKey }) });
 * server.handle("tools/call", inputHandler(rounds, async (params, ctx) => {
 *   const ok = await ctx.elicit({ message: "Proceed?", requestedSchema: { type: "object", properties: {} } });
 *   const summary = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "Summarise" } }], maxTokens: 100 });
 *   return { content: [{ type: "text", text: `${ok.action}: ${JSON.stringify(summary.content)}` }] };
 * }));
 * ```
 */
export function inputHandler<P, C extends InputHostContext>(
  rounds: InputRounds,
  handler: (params: P, context: C & InputContext) => unknown,
  options: InputHandlerOptions<C> = {},
): (params: P, context: C) => Promise<unknown> {
  return (params, context) => {
    const request = context.request;
    const sendRequest: SendClientRequest | undefined =
      typeof request === "function" ? (method, body, opts) => request.call(context, method, body, opts) : undefined;
    return rounds.run(
      {
        era: context.era,
        method: context.method,
        params,
        clientCapabilities: context.clientCapabilities,
        principal: options.principal?.(params, context),
        signal: context.signal,
        sendRequest,
      },
      (input) => handler(params, merge(context, input)),
    );
  };
}

const INPUT_KEYS = new Set<PropertyKey>(["elicit", "sample", "listRoots", "canElicit", "canSample", "canListRoots", "round", "state", "once", "roundSignal"]);

/** One object that reads as both: the input methods from `input`, everything else from `context` (getters and `#private` methods work). */
function merge<C extends object>(context: C, input: InputContext): C & InputContext {
  return new Proxy(context, {
    get(target, property) {
      if (INPUT_KEYS.has(property)) {
        const value = Reflect.get(input, property, input);
        return typeof value === "function" ? value.bind(input) : value;
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(target, property, value) {
      if (INPUT_KEYS.has(property)) return Reflect.set(input, property, value, input);
      return Reflect.set(target, property, value, target);
    },
    has(target, property) {
      return INPUT_KEYS.has(property) || Reflect.has(target, property);
    },
  }) as C & InputContext;
}
