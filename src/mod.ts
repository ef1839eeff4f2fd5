/**
 * onemodelcontext: the Model Context Protocol over stdio and any duplex byte stream, on every
 * JavaScript runtime, with bounded memory and bounded shutdown.
 * @module
 */
export * from "./wire/errors.ts";
export * from "./stream/time_provider.ts";
export type { Duplex } from "./stream/duplex.ts";
export { DEFAULT_MAX_MESSAGE_BYTES, type InputLine, type LineSplitterOptions, splitLines } from "./stream/line_splitter.ts";
export {
  type DestroyableDuplex,
  type DrainOptions,
  type DrainOutcome,
  NewlineChannel,
  type NewlineChannelOptions,
} from "./stream/newline_channel.ts";
export { type ClientTransport, isClientTransport, singleConnection, type TransportConnection } from "./rpc/transport.ts";
export * from "./wire/protocol_versions.ts";
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
export {
  ContextServer,
  type ContextServerOptions,
  type ServeResult,
  type ServerNotificationHandler,
  type ServerRequestContext,
  type ServerRequestHandler,
} from "./server/context_server.ts";
export {
  type ClientRequestOptions,
  ContextClient,
  type ContextClientOptions,
  type NegotiationInfo,
  type NegotiationOutcome,
} from "./client/context_client.ts";
export {
  DEFAULT_LEGACY_LIFETIME,
  defaultEraCache,
  EraCache,
  type EraCacheEntry,
  type EraCacheOptions,
  type EraCacheStore,
} from "./client/era_cache.ts";
export {
  buildDiscoverResult,
  type CacheScope,
  type DiscoverResult,
  type DiscoverResultInit,
  parseDiscoverResult,
  type ParsedDiscoverResult,
} from "./wire/discover_result.ts";
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
} from "./wire/meta_envelope.ts";
export { ServerVersions } from "./wire/server_versions.ts";
