/**
 * onemodelcontext: the Model Context Protocol over stdio and any duplex byte stream, on every
 * JavaScript runtime, with bounded memory and bounded shutdown.
 * @module
 */
export * from "./errors.ts";
export * from "./time_provider.ts";
export type { Duplex } from "./duplex.ts";
export { DEFAULT_MAX_MESSAGE_BYTES, type InputLine, type LineSplitterOptions, splitLines } from "./line_splitter.ts";
export {
  type DestroyableDuplex,
  type DrainOptions,
  type DrainOutcome,
  NewlineChannel,
  type NewlineChannelOptions,
} from "./newline_channel.ts";
export { type ClientTransport, isClientTransport, singleConnection, type TransportConnection } from "./transport.ts";
export * from "./protocol_versions.ts";
export {
  type ConnectionCloseInfo,
  type IncomingRequest,
  JsonRpcConnection,
  type JsonRpcConnectionOptions,
  type NotificationHandler,
  type RequestContext,
  type RequestHandler,
  type RequestId,
} from "./json_rpc_connection.ts";
export {
  ContextServer,
  type ContextServerOptions,
  type ServeResult,
  type ServerNotificationHandler,
  type ServerRequestContext,
  type ServerRequestHandler,
} from "./context_server.ts";
export {
  type ClientRequestOptions,
  ContextClient,
  type ContextClientOptions,
  type NegotiationInfo,
  type NegotiationOutcome,
} from "./context_client.ts";
export {
  DEFAULT_LEGACY_LIFETIME,
  defaultEraCache,
  EraCache,
  type EraCacheEntry,
  type EraCacheOptions,
  type EraCacheStore,
} from "./era_cache.ts";
export {
  buildDiscoverResult,
  type CacheScope,
  type DiscoverResult,
  type DiscoverResultInit,
  parseDiscoverResult,
  type ParsedDiscoverResult,
} from "./discover_result.ts";
export {
  buildRequestMeta,
  CACHEABLE_RESULT_METHODS,
  DEFAULT_CACHE_HINT,
  decorateModernResult,
  type EnvelopeReading,
  hasEnvelopeClaim,
  LOGGING_LEVELS,
  type LoggingLevel,
  progressTokenOf,
  readRequestEnvelope,
  type RequestEnvelope,
  serverInfoOf,
  withRequestEnvelope,
} from "./meta_envelope.ts";
export { ServerVersions } from "./server_era.ts";
export {
  type ExitStatus,
  type ProcessConnection,
  type ProcessConnectionOptions,
  type ProcessShutdownOptions,
  type ShutdownStep,
  type StderrMode,
} from "./process_shutdown.ts";
export { StderrTail, type StderrTailOptions } from "./stderr_tail.ts";
