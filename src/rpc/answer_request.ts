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
 * an answer (-32603).
 */
export async function answerRequest(request: IncomingRequest, options: AnswerOptions): Promise<void> {
  const { entry, context, host, handler, fallback, collect } = options;
  let reply: Record<string, unknown> | JsonText;
  try {
    let result: unknown;
    if (handler) result = await handler(request.params, context);
    else if (fallback) result = await fallback(request, context);
    else throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${quotePeerText(request.method)}`);
    // A result already serialized (the server's modern results) is spliced in as text.
    reply = result instanceof JsonText
      ? new JsonText(`{"jsonrpc":"2.0","id":${request.idLiteral ?? JSON.stringify(request.id)},"result":${result.text}}`)
      : { jsonrpc: "2.0", id: request.id, result: result === undefined ? {} : result };
  } catch (error) {
    if (!(error instanceof JsonRpcError) && !entry.aborted) host.report(asError(error));
    reply = errorResponseFor(request.id, error);
  }
  entry.done = true;
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
  return errorResponse(request.id, ErrorCodes.InternalError, `Internal error: the result could not be serialized (${asError(error).message})`);
}
