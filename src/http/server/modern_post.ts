/**
 * `ModernPost`: a POST of the modern era (2026-07-28): one message, no session; its `_meta`
 * envelope and `Mcp-*` headers checked, the request dispatched, its reply JSON or SSE on the POST's
 * own response; `subscriptions/listen` a long SSE response.
 * @module
 */
import { ClosedError, ErrorCodes } from "../../wire/errors.ts";
import { isPlainObject, readRequestEnvelope } from "../../wire/meta_envelope.ts";
import { MetaKeys } from "../../wire/protocol_versions.ts";
import {
  headerMismatch,
  invalidParams,
  invalidRequest,
  methodNotFound,
  unsupportedProtocolVersion,
} from "../http_errors.ts";
import { exactId } from "../exact_id_text.ts";
import { type ParamHeader, readMcpHeaderAnnotations } from "../mcp_header_annotations.ts";
import {
  HEADER_MISMATCH,
  type HeaderMismatchData,
  McpHeaders,
  validateRequestHeaders,
} from "../mcp_request_headers.ts";
import { ChannelDispatchContext } from "./channel_dispatch_context.ts";
import { accepted, tooManyStreams } from "./endpoint_responses.ts";
import type { HttpDispatcher } from "./http_dispatcher.ts";
import type { InFlightRequests } from "./in_flight_requests.ts";
import type { LongStreams } from "./long_streams.ts";
import { DISCONNECTED, RequestCancel, stoppedReading } from "./request_cancel.ts";
import {
  type PostedMessage,
  principalOf,
  type RequestParts,
  takesTextReply,
  type TextReply,
} from "./request_parts.ts";
import { ResponseChannel } from "./response_channel.ts";
import type { SseStreamOptions } from "./sse/sse_stream.ts";

/** Methods the modern era removed: a modern request for one gets 404/-32601 from the transport. */
const REMOVED_IN_MODERN = new Set(["initialize", "ping"]);

/** The mirrored parameters (`x-mcp-header` annotations) of a tool, by its name; `undefined` for none. */
export type ParamHeadersOf = (toolName: string) => readonly ParamHeader[] | undefined;

/** What a {@linkcode ModernPost} works with. */
export interface ModernPostParts {
  server: HttpDispatcher;
  sse: SseStreamOptions;
  requests: InFlightRequests;
  streams: LongStreams;
  paramHeaders: ParamHeadersOf | undefined;
}

/**
 * Answers modern POSTs. `_meta` is checked (400/-32602), then `MCP-Protocol-Version` against it
 * (400/-32020), the version (400/-32022), `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` (400/-32020);
 * an unknown method is 404/-32601. The reply is JSON unless a related notification comes first,
 * then SSE; a dropped response cancels the handler.
 *
 * @example
 * ```ts
 * declare const server: HttpDispatcher, requests: InFlightRequests, streams: LongStreams;
 * declare const request: RequestParts, message: unknown;
 * const modern = new ModernPost({ server, sse: {}, requests, streams, paramHeaders: undefined });
 * const response = modern.post(request, message, classifyMessage(message) as PostedMessage);
 * ```
 */
export class ModernPost {
  readonly #parts: ModernPostParts;

  constructor(parts: ModernPostParts) {
    this.#parts = parts;
  }

  /** The answer to modern POST `request` carrying `message` (sorted as `classified`). */
  post(
    request: RequestParts,
    message: unknown,
    classified: PostedMessage,
  ): Response | Promise<Response | TextReply> {
    const { server, requests, streams } = this.#parts;
    if (classified.kind === "result" || classified.kind === "error") {
      return invalidRequest(
        classified.id,
        "Invalid request: a 2026-07-28 client sends no responses (the modern era has no server-to-client requests)",
      );
    }
    if (classified.kind === "notification") {
      requests.notifyInBackground(message, undefined, request.signal);
      return accepted();
    }
    const { id, method, params } = classified.request;
    const replyId = exactId(classified.request); // the id as written, for the refusals below
    if (REMOVED_IN_MODERN.has(method)) return methodNotFound(replyId, `${method} (removed in 2026-07-28)`);
    const reading = readRequestEnvelope(params);
    if (reading.kind !== "envelope") {
      const reason = reading.kind === "malformed"
        ? reading.message
        : `Invalid params: params._meta must carry "${MetaKeys.protocolVersion}" and "${MetaKeys.clientCapabilities}"`;
      return invalidParams(replyId, reason);
    }
    const toolName = method === "tools/call" && isPlainObject(params) && typeof params.name === "string"
      ? params.name
      : undefined;
    const paramHeaders = toolName === undefined ? undefined : this.#parts.paramHeaders?.(toolName);
    const mismatch = validateRequestHeaders(request.headers, message, { paramHeaders });
    if (mismatch && (mismatch.data as HeaderMismatchData).header === McpHeaders.protocolVersion) {
      return headerMismatch(replyId, mismatch);
    }
    const version = reading.envelope.protocolVersion;
    if (!server.versions.supportsModern(version)) {
      return unsupportedProtocolVersion(replyId, version, server.versions.advertised);
    }
    if (mismatch) return headerMismatch(replyId, mismatch);

    const listen = method === "subscriptions/listen";
    if (listen && streams.full) return tooManyStreams(replyId, streams.max);
    const controller = new RequestCancel(request, DISCONNECTED);
    const channel = new ResponseChannel({
      sse: this.#parts.sse,
      statusOf: modernStatus,
      onCancel: stoppedReading(controller),
      textReply: takesTextReply(request),
      idLiteral: classified.request.idLiteral,
    });
    if (listen) streams.count(channel.openStream());
    if (listen && takesTextReply(request)) controller.watchStreamOnly(); // serve() on Node cancels the stream itself
    const context = new ChannelDispatchContext(controller, channel, undefined, principalOf(request));
    requests.run(id, message, context, channel, controller, listen);
    if (listen && streams.draining) controller.abort(new ClosedError("The server is shutting down"));
    return channel.response;
  }
}

/**
 * Mirrored parameters from tool input schemas, read once per schema object. A schema whose
 * annotations are invalid mirrors nothing (clients drop such a tool, so none sends its headers).
 */
export function schemaParamHeaders(schemaOf: (toolName: string) => unknown): ParamHeadersOf {
  const cache = new WeakMap<object, readonly ParamHeader[] | undefined>();
  return (toolName) => {
    const schema = schemaOf(toolName);
    if (typeof schema !== "object" || schema === null) return undefined;
    if (!cache.has(schema)) {
      const reading = readMcpHeaderAnnotations(schema);
      cache.set(schema, reading.ok && reading.params.length > 0 ? reading.params : undefined);
    }
    return cache.get(schema);
  };
}

/** The HTTP status of a modern JSON reply: the transport-level errors get theirs, handler errors stay in-band (200). */
function modernStatus(reply: Record<string, unknown>): number {
  const error = reply.error;
  if (!isPlainObject(error)) return 200;
  switch (error.code) {
    case ErrorCodes.MethodNotFound:
      return 404;
    case ErrorCodes.UnsupportedProtocolVersion:
    case ErrorCodes.MissingRequiredClientCapability:
    case HEADER_MISMATCH:
      return 400;
    default:
      return 200;
  }
}
