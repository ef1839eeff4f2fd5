/**
 * onemodelcontext: the Model Context Protocol over stdio and any duplex byte stream, on every
 * JavaScript runtime, with bounded memory and bounded shutdown.
 *
 * The root holds what an application uses: the server and the client, the HTTP handler and the
 * web-API HTTP client transport, the era cache, the connection and channel under them, the clock, and
 * the errors. Wire helpers (versions, the `_meta` envelope, discover results, JSON-RPC error codes,
 * the shared default era cache) are in `onemodelcontext/protocol`; runtimes in `onemodelcontext/node`,
 * `/deno`, `/bun`, `/message-port`; test doubles in `onemodelcontext/testing`.
 * @module
 */

// The server and the client.
export {
  ContextServer,
  type ContextServerOptions,
  type DispatchContext,
  type JsonRpcReply,
  type LegacySession,
  type RequestEra,
  type SendProgressOptions,
  type ServerConnectionOptions,
  type ServeResult,
  type ServerNotificationHandler,
  type ServerRequestContext,
  type ServerRequestHandler,
  type ServerSession,
  type ServerToClientRequestOptions,
} from "./server/context_server.ts";
// What tool, resource and prompt handlers see (server.tool(), server.resource(), server.resourceTemplate(), server.prompt()).
export type {
  Completer,
  HandlerContext,
  PromptArguments,
  PromptConfig,
  PromptHandler,
  PromptMessage,
  PromptResult,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredTool,
  ResourceConfig,
  ResourceContents,
  ResourceInfo,
  ResourceRead,
  ResourceReader,
  ResourceTemplateConfig,
  ResourceTemplateReader,
  ServerFeatures,
  ServerFeaturesOptions,
  ToolArguments,
  ToolConfig,
  ToolHandler,
  ToolResult,
  ToolSchemaInput,
  UriVariables,
} from "./server/features/mod.ts";
export {
  type ClientConnectionOptions,
  type ClientNotificationHandler,
  type ClientRequestHandler,
  type ClientRequestOptions,
  ContextClient,
  type ContextClientOptions,
} from "./client/context_client.ts";
export type {
  ClientExchange,
  ExchangeRequestOptions,
  RelatedNotificationHandler,
} from "./client/client_exchange.ts";
export type {
  ExchangeConnectSettings,
  ExchangeSession,
  ExchangeTransport,
} from "./client/exchange_transport.ts";
export type { NegotiationInfo } from "./client/negotiation_record.ts";
export type { NegotiationOutcome } from "./client/probe_classifier.ts";
export type {
  KnownMethod,
  MethodMap,
  MethodSpec,
  NoMethods,
  NotificationMap,
  NotificationParamsOf,
  OtherMethod,
  ParamsOf,
  ResultOf,
  UntypedMethod,
} from "./wire/method_map.ts";
// The shared default era cache (defaultEraCache) is in onemodelcontext/protocol.
export {
  EraCache,
  type EraCacheEntry,
  type EraCacheOptions,
  type EraCacheStore,
} from "./client/era_cache.ts";
// The client feature API: typed lists, calls, change streams (methods of ContextClient).
export {
  type AnyClientFeatureError,
  type CallToolOptions,
  type CallToolResult,
  type ChangeEvent,
  type ChangeFilter,
  type ChangeStream,
  ClientFeatureError,
  type ClientFeatureErrorCode,
  type ClientFeatureOptions,
  type CompleteOptions,
  type CompleteResult,
  type CompletionArgument,
  type CompletionReference,
  type FeatureRequestOptions,
  type GetPromptResult,
  type InputRequiredError,
  type IterateOptions,
  type ListedPrompt,
  type ListedResource,
  type ListedResourceTemplate,
  type ListedTool,
  type ListenOptions,
  type ListenReconnectOptions,
  type ListOptions,
  type LogEntry,
  type ProgressUpdate,
  type ReadResourceResult,
  type StructuredContentError,
} from "./client/features/mod.ts";

// Streamable HTTP: a server's endpoint as a fetch handler (run it with `serve` from a runtime entry).
export {
  createHttpHandler,
  type HttpHandler,
  type HttpHandlerOptions,
} from "./http/server/create_http_handler.ts";
export type { HttpDispatcher } from "./http/server/http_dispatcher.ts";
// The Streamable HTTP client transport on the host's `fetch` (browsers, workers, Deno, Bun):
// ContextClient.connect(httpTransport(url)). onemodelcontext/node has it on undici instead.
export {
  type HttpTransport,
  httpTransport,
  type HttpTransportOptions,
} from "./http/client/http_client_transport.ts";
export type { TelemetryOptions } from "./telemetry/mcp_telemetry.ts";
// Resumable legacy SSE streams: the option and store types (MemoryEventStore is in onemodelcontext/protocol).
export type { EventReadResult, EventStore, StoredEvent } from "./http/server/event_store.ts";
export type { ResumabilityOptions } from "./http/server/resumable_stream.ts";
export type { RelayedReply, ReplyRelay, SessionStore } from "./http/server/session_store.ts";

// Asking the client (elicitation, sampling, roots) in both eras: the handler and option types. The
// values (ClientInputs, InputRounds, RequestStateCodec, RequestStateError, …) are in onemodelcontext/protocol.
export type { InputCallOptions, InputContext, InputRequiredOutcome } from "./server/input/input_rounds.ts";
export type { RequestStateCodecOptions } from "./server/input/request_state.ts";
export type { RequestStateErrorReason } from "./server/input/request_state_error.ts";
export type {
  ClientInputContext,
  ClientInputsOptions,
  ElicitHandler,
  ElicitHandlerOptions,
  InputAnswerer,
  InputRequestOptions,
  ListRootsHandler,
  SampleHandler,
  SampleHandlerOptions,
} from "./client/client_inputs.ts";

// The layers under them: one JSON-RPC connection over one newline-delimited channel over a duplex.
export {
  type ConnectionCloseInfo,
  type IncomingRequest,
  JsonRpcConnection,
  type JsonRpcConnectionOptions,
  type NotificationHandler,
  type RequestContext,
  type RequestHandler,
  type RequestId,
} from "./rpc/json_rpc_connection.ts";
export type { ClientTransport, TransportConnection } from "./rpc/transport.ts";
export {
  type DestroyableDuplex,
  type DrainOptions,
  type DrainOutcome,
  NewlineChannel,
  type NewlineChannelOptions,
} from "./stream/newline_channel.ts";
export type { Duplex } from "./stream/duplex.ts";

// The listen bus: list-changed and resource-updated events across replicas (Redis: onemodelcontext/redis).
export type {
  ListenBus,
  ListenBusEvent,
  ListenEvent,
  ListenEventHandler,
  ListenList,
} from "./server/features/listen/listen_bus.ts";

// The clock every timeout goes through.
export { systemTimeProvider, type TimeProvider, type TimerHandle } from "./stream/time_provider.ts";

// Errors: one base class, one subclass per code, and the JSON-RPC error.
export {
  type AnyTransportError,
  CancelledError,
  ClosedError,
  InvalidOptionError,
  InvalidUtf8Error,
  JsonRpcError,
  MessageTooLargeError,
  NegotiationFailedError,
  OutputFullError,
  ParseError,
  ProcessExitedError,
  ProtocolError,
  ReadFailedError,
  TimeoutError,
  TransportError,
  type TransportErrorCode,
  type TransportErrorOptions,
  WriteFailedError,
} from "./wire/errors.ts";
