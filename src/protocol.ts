/**
 * `onemodelcontext/protocol`: the MCP protocol types of both eras, and the wire helpers under the
 * server and the client: protocol versions and eras, the modern `_meta` envelope, `server/discover`
 * results, JSON-RPC error codes, and the newline-delimited framing of the stdio transport.
 *
 * @example
 * ```ts
 * import { buildRequestMeta, LATEST_MODERN_VERSION, MetaKeys } from "onemodelcontext/protocol";
 * const _meta = buildRequestMeta({ protocolVersion: LATEST_MODERN_VERSION, clientInfo: { name: "c", version: "1" }, clientCapabilities: {} });
 * console.log(_meta[MetaKeys.protocolVersion]);
 * ```
 * @module
 */

// Versions and eras.
export {
  type Capabilities,
  type Era,
  eraOf,
  type Implementation,
  LATEST_LEGACY_VERSION,
  LATEST_MODERN_VERSION,
  LEGACY_VERSIONS,
  MetaKeys,
  MODERN_VERSIONS,
} from "./wire/protocol_versions.ts";
export { ServerVersions } from "./wire/server_versions.ts";
// The era cache every ContextClient shares unless given `eraCache` (the EraCache class is in the root).
export { defaultEraCache } from "./client/era_cache.ts";

// The modern per-request `_meta` envelope and modern results.
export {
  buildRequestMeta,
  CACHEABLE_RESULT_METHODS,
  decorateModernResult,
  DEFAULT_CACHE_HINT,
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

// `server/discover` results.
export {
  buildDiscoverResult,
  type CacheScope,
  type DiscoverResult,
  type DiscoverResultInit,
  type ParsedDiscoverResult,
  parseDiscoverResult,
} from "./wire/discover_result.ts";

// Server-to-client input in both eras: the input-round engine behind ctx.elicit/sample/listRoots, the
// signed requestState, and the client side's input_required helpers.
export {
  type InputCallOptions,
  type InputContext,
  type InputRequiredOutcome,
  InputRequiredSignal,
  type InputRoundRequest,
  InputRounds,
  type InputRoundsOptions,
  type SendClientRequest,
} from "./server/input/input_rounds.ts";
export type { ElicitParams, ElicitUrlParams } from "./server/input/elicit_params.ts";
export {
  acceptsInputRequests,
  INPUT_REQUIRED_METHODS,
  type InputMethod,
  missingCapabilities,
} from "./server/input/input_capabilities.ts";
export {
  type RequestStateBinding,
  RequestStateCodec,
  type RequestStateCodecOptions,
} from "./server/input/request_state.ts";
export { RequestStateError, type RequestStateErrorReason } from "./server/input/request_state_error.ts";
export {
  type AttachableClient,
  type ClientInputContext,
  ClientInputs,
  type ClientInputsOptions,
  type ElicitHandler,
  type ElicitHandlerOptions,
  type InputAnswerer,
  type InputRequestOptions,
  isInputRequiredResult,
  type ListRootsHandler,
  retryParams,
  type SampleHandler,
  type SampleHandlerOptions,
  type SendRequest,
} from "./client/client_inputs.ts";
export { applyElicitationDefaults } from "./client/elicitation_defaults.ts";

// JSON-RPC.
export type { IncomingRequest, RequestId } from "./wire/json_rpc_message.ts";
export { ErrorCodes } from "./wire/errors.ts";

// The MCP protocol types of both eras (generated from the published schemas): the `Legacy` and
// `Modern` namespaces, the types both revisions share, and the method maps. Where a name is also a
// wire helper's type above (`Implementation`, `LoggingLevel`, `RequestId`), the helper's is exported.
export type * from "./wire/protocol/mod.ts";

// Newline-delimited framing (the stdio transport): lines capped at `maxMessageBytes`, UTF-8 checked.
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  type InputLine,
  type LineSplitterOptions,
  splitLines,
} from "./stream/line_splitter.ts";

// The memory event store of resumable legacy SSE streams (createHttpHandler's `resumability`).
export {
  DEFAULT_EVENT_STORE_MAX_AGE,
  DEFAULT_EVENT_STORE_MAX_BYTES,
  MemoryEventStore,
  type MemoryEventStoreOptions,
  STORED_EVENT_OVERHEAD_BYTES,
} from "./http/server/event_store.ts";

// Legacy sessions shared between handlers (createHttpHandler's `sessionStore`).
export { MemorySessionStore, type MemorySessionStoreOptions } from "./http/server/session_store.ts";
// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663): the engine behind tools with
// `taskSupport`, the store interface and its in-memory default, the task shapes of the wire.
export {
  TaskEngine,
  type TaskEngineOptions,
  type TaskEvents,
  type TaskOutcome,
  type TaskResumer,
  type TaskRun,
  type TaskWork,
} from "./tasks/task_engine.ts";
export { MemoryTaskStore, type MemoryTaskStoreOptions } from "./tasks/memory_task_store.ts";
export type { TaskStore } from "./tasks/task_store.ts";
export {
  createTaskResultOf,
  type DetailedTask,
  detailedTaskOf,
  isTerminal,
  type TaskError,
  type TaskRecord,
  type TaskRerun,
  TASKS_EXTENSION,
  type TaskStatus,
  type WireTask,
} from "./tasks/task_record.ts";
export { missingTasksCapabilityError, TaskStoreFullError, unknownTaskError } from "./tasks/task_errors.ts";
export type { ClientTask, FollowTaskOptions } from "./client/features/task_follower.ts";
// MCP Apps (io.modelcontextprotocol/ui): a tool with its ui:// HTML view (server), and a tool's view read back (client).
export {
  type AppToolHost,
  MCP_APP_MIME_TYPE,
  MCP_APPS_EXTENSION,
  type McpAppCsp,
  mcpAppsCapabilities,
  type McpAppView,
  registerAppTool,
  type RegisteredAppTool,
} from "./server/features/mcp_apps.ts";
export {
  declaresMcpApps,
  readToolUiResource,
  type ToolUiResource,
  toolUiResourceUri,
  type UiResourceReader,
} from "./client/features/tool_ui_resource.ts";
