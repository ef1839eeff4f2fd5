/**
 * The input rounds of a modern request a {@linkcode MountedServer} forwards to a modern upstream:
 * the downstream client's capabilities go up, and each `input_required` of the upstream is asked of
 * the downstream client under the same keys, then the upstream is asked again with the answers.
 * @module
 */
import type { ContextClient } from "../client/context_client.ts";
import type { HandlerContext } from "../server/features/handler_context.ts";
import { JsonRpcError } from "../wire/errors.ts";

type Wire = Record<string, unknown>;

/** The requests that may answer `input_required` (2026-07-28). */
export const ASKING_METHODS: ReadonlySet<string> = new Set(["tools/call", "prompts/get", "resources/read"]);
/** Upstream input rounds within one downstream round, at most. */
const MAX_UPSTREAM_ROUNDS = 10;

/** One request forwarded with its input rounds (the upstream's `input_required` asked downstream). */
export interface ForwardedRequest {
  readonly method: string;
  /** The params sent upstream, `_meta` included. */
  readonly sent: Wire;
  /** The request options of `ContextClient.request` (signal, notifications). */
  readonly options: object;
  /** The downstream request being served. */
  readonly context: HandlerContext;
}

/**
 * Sends `request` to the mount's upstream until it answers with a result, asking each of its input
 * requests of the downstream client (through the composer's own rounds: the downstream retries).
 */
export async function forwardWithInputRounds(
  mount: { readonly name: string; readonly client: ContextClient },
  request: ForwardedRequest,
): Promise<unknown> {
  const { method, sent, options, context } = request;
  let extra: Wire = {};
  for (let round = 0; round <= MAX_UPSTREAM_ROUNDS; round++) {
    const result = await mount.client.request(method as never, { ...sent, ...extra } as never, {
      ...options,
      inputRequired: "manual",
      clientCapabilities: context.clientCapabilities,
    }) as Wire;
    if (result?.resultType !== "input_required") return result;
    const requests = (typeof result.inputRequests === "object" && result.inputRequests !== null
      ? result.inputRequests
      : {}) as Record<string, { method?: string; params?: unknown }>;
    const keys = Object.keys(requests);
    const answers = await Promise.all(keys.map((key) =>
      askDownstream(mount.name, requests[key]!, key, context)
    ));
    extra = {
      ...(keys.length > 0 ? { inputResponses: Object.fromEntries(keys.map((k, i) => [k, answers[i]])) } : {}),
      ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {}),
    };
  }
  throw new JsonRpcError(
    -32603,
    `Mount ${mount.name}: ${method} asked for input more than ${MAX_UPSTREAM_ROUNDS} times`,
  );
}

/** Asks the downstream client what the upstream asked under `key`. Throws on an unknown method. */
function askDownstream(
  mountName: string,
  request: { method?: string; params?: unknown },
  key: string,
  context: HandlerContext,
): Promise<unknown> {
  switch (request?.method) {
    case "elicitation/create":
      return context.elicit(request.params as never, { key });
    case "sampling/createMessage":
      return context.sample(request.params as never, { key });
    case "roots/list":
      return context.listRoots({ key });
    default:
      throw new JsonRpcError(
        -32603,
        `Mount ${mountName}: unknown input request ${JSON.stringify(request?.method)}`,
      );
  }
}
