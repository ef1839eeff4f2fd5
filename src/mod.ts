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
