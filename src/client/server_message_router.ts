/**
 * `ServerMessageRouter`: where what a server sends a {@linkcode ContextClient} unasked goes: its
 * requests (legacy elicitation, sampling, roots, `ping`, and anything `handle()` registered), the
 * modern input requests inside `input_required` results, and its notifications.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../wire/errors.ts";
import type { IncomingRequest } from "../wire/json_rpc_message.ts";
import type { RequestContext } from "../rpc/json_rpc_connection.ts";
import { HandlerRegistry } from "../rpc/handler_registry.ts";
import type { Era } from "../wire/protocol_versions.ts";
import { quotePeerText } from "../wire/quote_peer_text.ts";
import type { ClientInputs } from "./client_inputs.ts";
import type { InputAnswerer } from "./input_rounds.ts";
import type { ClientNotificationHandler, ClientRequestHandler } from "./context_client_options.ts";

/** The server-to-client requests `ClientInputs` answers. */
const INPUT_REQUEST_METHODS: ReadonlySet<string> = new Set([
  "elicitation/create",
  "sampling/createMessage",
  "roots/list",
]);

/** What the router needs from its client. */
export interface ServerMessageRouterOptions {
  /** The handlers of elicitation, sampling and roots requests. */
  inputs: ClientInputs;
  /** The negotiated era; undefined while negotiating. */
  era(): Era | undefined;
  /** Hands a notification to the feature API (list caches, listen streams, progress, logs). */
  features(method: string, params: unknown): void;
}

/** The client's one handler registry, and the order in which a server message reaches a handler. */
export class ServerMessageRouter {
  /** The handlers `handle()` and `onNotification()` registered. */
  readonly handlers = new HandlerRegistry<ClientRequestHandler, ClientNotificationHandler>();
  readonly #options: ServerMessageRouterOptions;

  constructor(options: ServerMessageRouterOptions) {
    this.#options = options;
  }

  /**
   * Answers one modern input request (`elicitation/create`, `sampling/createMessage`, `roots/list`),
   * for `request()` and the feature API alike: a `handle()` handler for `method` first, then
   * `inputs`; `undefined` when neither answers it or `method` is not an input request method.
   */
  readonly answerInput: InputAnswerer = (method, params, context) => {
    if (!INPUT_REQUEST_METHODS.has(method)) return undefined;
    const handler = this.handlers.request(method);
    if (handler) {
      return Promise.resolve(
        handler(params, { id: context.key, method, signal: context.signal, notify: () => Promise.resolve() }),
      );
    }
    const inputs = this.#options.inputs;
    return inputs.canAnswer(method)
      ? inputs.answer(method, params, { era: "modern", ...context })
      : undefined;
  };

  /** Answers a server-to-client request: its handler, else `inputs`, else legacy `ping`, else -32601. */
  dispatchRequest(request: IncomingRequest, context: RequestContext): unknown {
    const handler = this.handlers.request(request.method);
    if (handler) return handler(request.params, context);
    // Legacy elicitation, sampling and roots requests: the `inputs` handlers (-32601 / -32602 as the spec says when absent).
    if (INPUT_REQUEST_METHODS.has(request.method)) {
      return this.#options.inputs.answer(request.method, request.params, {
        era: "legacy",
        key: String(context.id),
        signal: context.signal,
      });
    }
    if (request.method === "ping" && this.#options.era() !== "modern") return {};
    throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${quotePeerText(request.method)}`);
  }

  /**
   * A server notification, from any transport (a stream or HTTP): the feature API,
   * `notifications/elicitation/complete` to `inputs`, then its handler.
   */
  dispatchNotification(method: string, params: unknown): unknown {
    this.#options.features(method, params);
    if (method === "notifications/elicitation/complete") this.#options.inputs.elicitationComplete(params);
    return this.handlers.notification(method)?.(params);
  }
}
