/**
 * Answering one request from the peer: run its handler, send the reply.
 * @module
 */
import { asError, ErrorCodes, isTransportError, JsonRpcError } from "../wire/errors.ts";
import { errorResponse, errorResponseFor, type IncomingRequest, replyFor } from "../wire/json_rpc_message.ts";
import { JsonText } from "../wire/json_text.ts";
import { quotePeerText } from "../wire/quote_peer_text.ts";
import type { InflightRequest } from "./inflight_request.ts";
import type { RequestContext, RequestHandler } from "./request_context.ts";
import type { SlotHost } from "./slot_host.ts";

/** Where a batch element's reply goes instead of the output: its JSON text. */
export type Collect = (text: string) => void;

/** Options of {@linkcode answerRequest}. */
export interface AnswerOptions {
  /** The request's place among those in flight: its signal, and whether the peer cancelled it. */
  entry: InflightRequest;
  context: RequestContext;
  host: SlotHost;
  /** The handler registered for the method, if any. */
  handler?: RequestHandler;
  /** Used when no handler is registered; without it the reply is -32601. */
  fallback?: (request: IncomingRequest, context: RequestContext) => unknown;
  collect?: Collect;
}

/**
 * Runs the handler of `request` and sends its reply (or passes its JSON text to `collect`, inside a
 * batch); nothing is sent once the peer cancelled it. A result that cannot be serialized still gets
 * an answer (-32603). A handler that returns a value (not a promise) is answered without waiting a
 * microtask for it.
 */
export function answerRequest(request: IncomingRequest, options: AnswerOptions): Promise<void> {
  const { context, handler, fallback } = options;
  let result: unknown;
  try {
    if (handler) result = handler(request.params, context);
    else if (fallback) result = fallback(request, context);
    else {throw new JsonRpcError(
        ErrorCodes.MethodNotFound,
        `Method not found: ${quotePeerText(request.method)}`,
      );}
  } catch (error) {
    return sendReply(request, options, failure(request, options, error));
  }
  if (typeof (result as { then?: unknown } | null | undefined)?.then === "function") {
    return Promise.resolve(result).then(
      (value) => sendReply(request, options, success(request, value)),
      (error: unknown) => sendReply(request, options, failure(request, options, error)),
    );
  }
  return sendReply(request, options, success(request, result));
}

/** The reply to a result: a result already serialized (the server's modern results) is spliced in as text. */
function success(request: IncomingRequest, result: unknown): Record<string, unknown> | JsonText {
  if (result instanceof JsonText) {
    return new JsonText(
      `{"jsonrpc":"2.0","id":${request.idLiteral ?? JSON.stringify(request.id)},"result":${result.text}}`,
    );
  }
  return { jsonrpc: "2.0", id: request.id, result: result === undefined ? {} : result };
}

function failure(request: IncomingRequest, options: AnswerOptions, error: unknown): Record<string, unknown> {
  if (!(error instanceof JsonRpcError) && !options.entry.aborted) options.host.report(asError(error));
  return errorResponseFor(request.id, error);
}

/** Sends `reply` (or collects its text), unless the peer cancelled the request. */
async function sendReply(
  request: IncomingRequest,
  options: AnswerOptions,
  reply: Record<string, unknown> | JsonText,
): Promise<void> {
  const { entry, host, collect } = options;
  entry.answered();
  if (entry.cancelledByPeer) return;
  if (collect) {
    if (reply instanceof JsonText) return void collect(reply.text);
    let text: string;
    try {
      text = JSON.stringify(reply);
    } catch (error) {
      host.report(asError(error));
      text = JSON.stringify(unserializable(request, error));
    }
    return void collect(text);
  }
  if (host.outputClosed) return;
  try {
    await host.send(reply instanceof JsonText ? reply : replyFor(request, reply));
  } catch (error) {
    if (host.outputClosed || isTransportError(error)) return host.sendFailed();
    // The result could not be serialized (a BigInt, a cycle): the caller still gets an answer.
    host.report(asError(error));
    await host.sendOwnError(replyFor(request, unserializable(request, error)));
  }
}

function unserializable(request: IncomingRequest, error: unknown): Record<string, unknown> {
  return errorResponse(
    request.id,
    ErrorCodes.InternalError,
    `Internal error: the result could not be serialized (${asError(error).message})`,
  );
}
