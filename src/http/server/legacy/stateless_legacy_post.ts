/**
 * `StatelessLegacyPost`: a legacy POST (2025-03-26 … 2025-11-25) on an endpoint without sessions:
 * every POST stands alone, its reply on its own response, and a disconnect cancels its handler.
 * @module
 */
import { invalidRequest } from "../../http_errors.ts";
import { ChannelDispatchContext } from "../channel_dispatch_context.ts";
import { accepted } from "../endpoint_responses.ts";
import type { ServerSession } from "../http_dispatcher.ts";
import type { InFlightRequests } from "../in_flight_requests.ts";
import { DISCONNECTED, RequestCancel, stoppedReading } from "../request_cancel.ts";
import {
  type PostedMessage,
  principalOf,
  type RequestParts,
  takesTextReply,
  type TextReply,
} from "../request_parts.ts";
import { ResponseChannel } from "../response_channel.ts";
import type { SseStreamOptions } from "../sse/sse_stream.ts";

/** The version a legacy request without `MCP-Protocol-Version` is taken to speak. */
export const DEFAULT_LEGACY_HTTP_VERSION = "2025-03-26";

/**
 * Answers legacy POSTs without sessions: `MCP-Protocol-Version` (absent: 2025-03-26) names each
 * one's version, and a server-to-client request fails at once (nothing could carry its reply back).
 *
 * @example
 * ```ts
 * declare const requests: InFlightRequests, request: RequestParts, message: unknown;
 * const stateless = new StatelessLegacyPost({}, requests);
 * const response = stateless.post(request, message, classifyMessage(message) as PostedMessage, null);
 * ```
 */
export class StatelessLegacyPost {
  readonly #sse: SseStreamOptions;
  readonly #requests: InFlightRequests;

  constructor(sse: SseStreamOptions, requests: InFlightRequests) {
    this.#sse = sse;
    this.#requests = requests;
  }

  /** The answer to `request` carrying `message` (sorted as `classified`), of version `headerVersion`. */
  post(
    request: RequestParts,
    message: unknown,
    classified: PostedMessage,
    headerVersion: string | null,
  ): Response | Promise<Response | TextReply> {
    if (classified.kind === "result" || classified.kind === "error") {
      return invalidRequest(
        classified.id,
        "Invalid request: no server-to-client request is waiting (this endpoint runs without sessions and sends none)",
      );
    }
    const session: ServerSession = {
      legacy: {
        protocolVersion: headerVersion ?? DEFAULT_LEGACY_HTTP_VERSION,
        clientInfo: undefined,
        clientCapabilities: {},
      },
    };
    if (classified.kind === "notification") {
      this.#requests.notifyInBackground(message, session, request.signal);
      return accepted();
    }
    const { id, method } = classified.request;
    // Stateless: nothing can deliver the reply once the response is gone, so a disconnect cancels.
    const controller = new RequestCancel(request, DISCONNECTED);
    const channel = new ResponseChannel({
      sse: this.#sse,
      onCancel: stoppedReading(controller),
      textReply: takesTextReply(request),
      idLiteral: classified.request.idLiteral,
    });
    const context = new ChannelDispatchContext(
      controller,
      channel,
      method === "initialize" ? undefined : session,
      principalOf(request),
    );
    this.#requests.run(id, message, context, channel, controller, false);
    return channel.response;
  }
}
