/**
 * `ServerDispatch`: the server's message-level seam. One incoming JSON-RPC message plus a
 * {@linkcode DispatchContext} in, its reply out (nothing for a notification). Every transport is a
 * driver of it: the stream connection in `ContextServer.serve()`, and an HTTP handler (one POST per
 * message). It knows no transport; it needs nothing from `JsonRpcConnection`.
 * @module
 */
import { asError, ErrorCodes, JsonRpcError } from "../wire/errors.ts";
import type { DiscoverResult } from "../wire/discover_result.ts";
import {
  classifyMessage,
  errorResponse,
  errorResponseFor,
  type IncomingRequest,
  type RequestId,
} from "../wire/json_rpc_message.ts";
import { decorateModernResult, isPlainObject, readRequestEnvelope } from "../wire/meta_envelope.ts";
import type { Implementation } from "../wire/protocol_versions.ts";
import { invalidParams } from "../wire/server_versions.ts";
import type { HandlerRegistry } from "../rpc/handler_registry.ts";
import { type DispatchContext, type ServerSession, TEXT_RESULTS } from "./dispatch_context.ts";
import { decoratedResultText, serverInfoMembersText } from "../wire/envelope_text.ts";
import { mayHoldLongString } from "../stream/json_parts.ts";
import { JsonText } from "../wire/json_text.ts";
import { type RequestEra, ServerContext, type ServerRequestContext } from "./server_request_context.ts";
import { acceptsInputRequests } from "./input/input_capabilities.ts";
import type { InputRounds } from "./input/input_rounds.ts";
import { runModernRound } from "./input/modern_round.ts";
import { quotePeerText } from "../wire/quote_peer_text.ts";
import type { McpTelemetry } from "../telemetry/mcp_telemetry.ts";
import { activeContext, type OtelGlobals } from "../telemetry/otel_globals.ts";
import type { RequestTrace } from "../telemetry/request_trace.ts";
import { extractTraceContext } from "../telemetry/trace_context.ts";
import { TracedDispatchContext } from "./traced_dispatch_context.ts";
import { type Middleware, MiddlewareCall, runPipeline } from "./middleware.ts";
import { internalError } from "./internal_error.ts";
import { answerInitialize, type LegacyInitializeServer } from "./legacy_initialize.ts";
import { RoundInput } from "./round_input.ts";

/**
 * Answers one request. The value becomes the result; a thrown `JsonRpcError` becomes the error reply;
 * any other throw is reported and answered -32603 "Internal error" (see `exposeInternalErrors`).
 */
export type ServerRequestHandler<P = unknown, R = unknown> = (
  params: P,
  context: ServerRequestContext,
) => R | Promise<R>;
/** Handles one notification from the client. */
export type ServerNotificationHandler<P = unknown> = (params: P) => unknown;
/** The server's one registry: request handlers and notification handlers by method. */
export type ServerHandlers = HandlerRegistry<ServerRequestHandler, ServerNotificationHandler>;

/** A JSON-RPC reply as dispatch produces it: `{ jsonrpc, id, result }` or `{ jsonrpc, id?, error }`. */
export type JsonRpcReply = Record<string, unknown>;

/** What dispatch needs from its server (`initialize` reads the part it extends). */
export interface ServerDispatchInit extends LegacyInitializeServer {
  discover: DiscoverResult;
  unenvelopedRequests: "reject" | "legacy";
  handlers: ServerHandlers;
  /** Runs handlers that ask the client (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`) in either era. */
  inputRounds: InputRounds;
  /** Handler failures that are not `JsonRpcError`s, and failing notification handlers. */
  report(error: Error): void;
  /** Send an unexpected handler exception's own message to the peer instead of "Internal error". */
  exposeInternalErrors: boolean;
  /** Spans and metrics of each request, when an OpenTelemetry SDK is registered. */
  telemetry?: McpTelemetry;
  /** The pipeline of `server.use()`, in order (read per request: `use()` may add to it later). */
  middleware?: readonly Middleware[];
}

/** Methods dispatch answers itself; `ContextServer.handle()` refuses them. */
export const BUILT_IN_METHODS: ReadonlySet<string> = new Set(["initialize", "server/discover", "ping"]);

/**
 * Derives each request's era (the modern `_meta` envelope, else the legacy session), answers the
 * built-in methods, and runs the registered handler with a {@linkcode ServerRequestContext}.
 */
export class ServerDispatch {
  readonly #s: ServerDispatchInit;
  /** The text {@linkcode serverInfoMembersText} of the current server info. */
  #resultMembers: { serverInfo: Implementation; text: string } | undefined;

  constructor(init: ServerDispatchInit) {
    this.#s = init;
  }

  /**
   * Dispatches one parsed JSON-RPC message. A request resolves with its reply (a handler's
   * `JsonRpcError` becomes an error reply, any other throw a generic -32603 one, reported in full); a notification
   * runs its handler and resolves with `undefined`; an invalid message gets an error reply.
   * Responses (to server-to-client requests) belong to the driver that sent those requests: they
   * are reported and answered with nothing.
   */
  dispatch(message: unknown, context: DispatchContext): Promise<JsonRpcReply | undefined> {
    // Not an async function: its frame would hold `message` until the reply, for a listen stream
    // the stream's whole life. The request is handed to the handler here; only its id is kept.
    const classified = classifyMessage(message);
    switch (classified.kind) {
      case "request": {
        const { id } = classified.request;
        let answered: unknown;
        try {
          answered = this.answer(classified.request, context);
        } catch (error) {
          return Promise.resolve(this.#failed(id, error, context));
        }
        return this.#reply(id, answered, context);
      }
      case "notification":
        return this.#notified(classified.method, classified.params, context);
      case "invalid":
        return Promise.resolve(errorResponse(
          classified.id,
          ErrorCodes.InvalidRequest,
          `Invalid request: ${classified.reason}`,
        ));
      case "result":
      case "error":
        this.#s.report(
          new JsonRpcError(
            ErrorCodes.InvalidRequest,
            `A response (id ${
              quotePeerText(classified.id)
            }) reached dispatch: replies to server-to-client requests belong to the transport that sent them`,
          ),
        );
        return Promise.resolve(undefined);
    }
  }

  /** Not an async function: a long request (a listen stream) waits as one promise reaction, no suspended frame. */
  #reply(id: RequestId, answered: unknown, context: DispatchContext): Promise<JsonRpcReply> {
    return Promise.resolve(answered).then(
      (result): JsonRpcReply => ({ jsonrpc: "2.0", id, result: result === undefined ? {} : result }),
      (error: unknown) => this.#failed(id, error, context),
    );
  }

  #failed(id: RequestId, error: unknown, context: DispatchContext): JsonRpcReply {
    if (!(error instanceof JsonRpcError) && !context.signal.aborted) this.#s.report(asError(error));
    return errorResponseFor(id, error);
  }

  async #notified(method: string, params: unknown, context: DispatchContext): Promise<undefined> {
    try {
      await this.notification(method, params, context.session);
    } catch (error) {
      this.#s.report(asError(error));
    }
    return undefined;
  }

  /**
   * The request-level form of {@linkcode ServerDispatch.dispatch}: returns the result (or a promise
   * of it) or throws the error. A driver that builds its own replies (the stream connection) calls this.
   * What it throws is always a `JsonRpcError`: a handler's own passes through; any other exception is
   * reported in full (message, stack) and replaced by a -32603 whose message is "Internal error"
   * (the exception's message with `exposeInternalErrors`), so internals stay inside.
   */
  answer(request: IncomingRequest, context: DispatchContext): unknown {
    const globals = this.#s.telemetry?.globals();
    if (globals !== undefined) return this.#traced(globals, request, context);
    return this.#s.middleware?.length
      ? this.#piped(request, context, undefined)
      : this.#answerChecked(request, context);
  }

  /**
   * {@linkcode ServerDispatch.answer} in a SERVER span, a child of the trace context in
   * `params._meta` (else of the active context), with the handler run in the span's context.
   */
  #traced(globals: OtelGlobals, request: IncomingRequest, context: DispatchContext): unknown {
    const telemetry = this.#s.telemetry!;
    const sessionId = (context.session as { id?: unknown } | undefined)?.id;
    const trace = telemetry.start(globals, {
      method: request.method,
      params: request.params,
      requestId: request.id,
      networkTransport: context.networkTransport,
      sessionId: typeof sessionId === "string" ? sessionId : undefined,
    }, extractTraceContext(globals, activeContext(globals), request.params));
    const traced = new TracedDispatchContext(context, trace);
    let result: unknown;
    try {
      result = telemetry.run(
        globals,
        trace,
        () =>
          this.#s.middleware?.length
            ? this.#piped(request, traced, trace)
            : this.#answerChecked(request, traced, trace),
      );
    } catch (error) {
      trace.fail(error);
      throw error;
    }
    if (!(result instanceof Promise)) {
      trace.succeed(result);
      return result;
    }
    return result.then((value) => {
      trace.succeed(value);
      return value;
    }, (error: unknown) => {
      trace.fail(error);
      throw error;
    });
  }

  /** The request through the middleware pipeline, then dispatch; a middleware's non-`JsonRpcError` is reported and becomes -32603. */
  #piped(
    request: IncomingRequest,
    context: DispatchContext,
    trace: RequestTrace | undefined,
  ): Promise<unknown> {
    const call = new MiddlewareCall(request, context);
    return runPipeline(
      this.#s.middleware!,
      call,
      (c) =>
        this.#answerChecked(
          c.params === request.params ? request : { ...request, params: c.params },
          context,
          trace,
        ),
    ).catch((error: unknown) => Promise.reject(this.#internal(error, context)));
  }

  /** {@linkcode ServerDispatch.answer} without the pipeline: what `#answer` throws or rejects with is a `JsonRpcError`. */
  #answerChecked(request: IncomingRequest, context: DispatchContext, trace?: RequestTrace): unknown {
    try {
      return this.#answer(request, context, trace); // a promise it returns is checked already
    } catch (error) {
      throw this.#internal(error, context);
    }
  }

  /** `result`, a promise of it rejecting with a `JsonRpcError` only. */
  #checked(result: unknown, context: DispatchContext): unknown {
    return result instanceof Promise
      ? result.catch((error: unknown) => Promise.reject(this.#internal(error, context)))
      : result;
  }

  /** A `JsonRpcError` as it is; anything else reported (unless the request was aborted) and replaced by a -32603. */
  #internal(error: unknown, context: DispatchContext): JsonRpcError {
    if (error instanceof JsonRpcError) return error;
    const full = asError(error);
    if (!context.signal.aborted) this.#s.report(full);
    return internalError(full, error, this.#s.exposeInternalErrors);
  }

  #answer(request: IncomingRequest, context: DispatchContext, trace: RequestTrace | undefined): unknown {
    const { method, params } = request;
    if (method === "initialize") {
      if (trace !== undefined && isPlainObject(params) && typeof params.protocolVersion === "string") {
        trace.set("mcp.protocol.version", params.protocolVersion, true);
      }
      return this.#checked(answerInitialize(this.#s, context.session, params), context);
    }
    const reading = readRequestEnvelope(params);
    switch (reading.kind) {
      case "malformed":
        // A readable but unsupported version is the more useful answer: the client can retry with one we speak.
        if (
          reading.protocolVersion !== undefined && !this.#s.versions.supportsModern(reading.protocolVersion)
        ) {
          throw this.#s.versions.unsupported(reading.protocolVersion);
        }
        throw invalidParams(reading.message);
      case "envelope": {
        const { envelope } = reading;
        const { versions, serverInfo } = this.#s;
        if (!versions.supportsModern(envelope.protocolVersion)) {
          throw versions.unsupported(envelope.protocolVersion);
        }
        trace?.set("mcp.protocol.version", envelope.protocolVersion, true);
        if (method === "server/discover") return this.#s.discover;
        if (method === "ping") return decorateModernResult({}, serverInfo);
        const result = this.#invoke(request, context, {
          era: "modern",
          protocolVersion: envelope.protocolVersion,
          clientInfo: envelope.clientInfo,
          clientCapabilities: envelope.clientCapabilities,
          logLevel: envelope.logLevel,
        });
        // One reaction decorates and checks (a long request, a listen stream, waits as one link, not two).
        return result instanceof Promise
          ? result.then((value) => {
            try {
              return this.#decorate(value, method, context);
            } catch (error) {
              throw this.#internal(error, context);
            }
          }, (error: unknown) => Promise.reject(this.#internal(error, context)))
          : this.#decorate(result, method, context);
      }
      case "none": {
        if (method === "ping") return {};
        if (method === "server/discover") {
          throw invalidParams(
            `server/discover is a modern request: params._meta must carry the io.modelcontextprotocol envelope`,
          );
        }
        let legacy = context.session?.legacy;
        if (legacy === undefined) {
          if (this.#s.unenvelopedRequests === "reject" || this.#s.versions.legacy.length === 0) {
            throw invalidParams(
              `Request ${
                quotePeerText(method)
              } arrived before initialize and without the modern _meta envelope: send initialize first (legacy) or params._meta["io.modelcontextprotocol/protocolVersion"] (modern)`,
            );
          }
          legacy = {
            protocolVersion: this.#s.versions.legacy[0],
            clientInfo: undefined,
            clientCapabilities: {},
          };
        }
        trace?.set("mcp.protocol.version", legacy.protocolVersion, true);
        return this.#checked(
          this.#invoke(request, context, {
            era: "legacy",
            protocolVersion: legacy.protocolVersion,
            clientInfo: legacy.clientInfo,
            clientCapabilities: legacy.clientCapabilities,
            logLevel: legacy.logLevel,
          }),
          context,
        );
      }
    }
  }

  /**
   * Runs the handler of notification `method`, if one is registered; returns what it returned.
   * `notifications/initialized` also marks the legacy session initialized.
   */
  notification(method: string, params: unknown, session?: ServerSession): unknown {
    if (method === "notifications/initialized" && session?.legacy) session.legacy.initialized = true;
    return this.#s.handlers.notification(method)?.(params);
  }

  /**
   * `decorateModernResult`, or its JSON text for a driver that sends text as is ({@linkcode TEXT_RESULTS}):
   * the server's part spliced in as text made once, instead of two object copies per result.
   */
  #decorate(result: unknown, method: string, context: DispatchContext): unknown {
    const serverInfo = this.#s.serverInfo;
    // A result holding a long string goes as an object: the channel writes that string piece by piece.
    if ((context as { [TEXT_RESULTS]?: boolean })[TEXT_RESULTS] === true && !mayHoldLongString(result)) {
      let members = this.#resultMembers;
      if (members?.serverInfo !== serverInfo) {
        members = this.#resultMembers = { serverInfo, text: serverInfoMembersText(serverInfo) };
      }
      const text = decoratedResultText(result, members.text, method);
      if (text !== undefined) return new JsonText(text);
    }
    return decorateModernResult(result, serverInfo, method);
  }

  #invoke(request: IncomingRequest, context: DispatchContext, era: RequestEra): unknown {
    const handler = this.#s.handlers.request(request.method);
    if (!handler) {
      throw new JsonRpcError(ErrorCodes.MethodNotFound, `Method not found: ${quotePeerText(request.method)}`);
    }
    const input = new RoundInput(request, context, era);
    const rounds = this.#s.inputRounds;
    if (!acceptsInputRequests(request.method)) {
      return handler(request.params, new ServerContext(context, request, era, rounds.passive(input)));
    }
    // Modern: the round may end with input_required; legacy: asks are real requests to the client.
    return runModernRound(
      rounds,
      input,
      (asker) => handler(request.params, new ServerContext(context, request, era, asker)),
    );
  }
}
