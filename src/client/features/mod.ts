/**
 * The client feature API, gathered for the package root: `ContextClient` exposes every method.
 * @module
 */
export { ChangeStream } from "./change_stream.ts";
export {
  type CallToolOptions,
  type ClientFeatureOptions,
  ClientFeatures,
  type CompleteOptions,
} from "./client_features.ts";
export { type IterateOptions, type ListMethod, type ListOptions, ListReader } from "./list_reader.ts";
export {
  type AnyClientFeatureError,
  ClientFeatureError,
  type ClientFeatureErrorCode,
  InputRequiredError,
  StructuredContentError,
} from "./feature_errors.ts";
export type { FeatureHost, HostRequestOptions } from "./feature_host.ts";
export type { FeatureRequestOptions } from "./feature_request.ts";
export type {
  CallToolResult,
  ChangeEvent,
  ChangeFilter,
  CompleteResult,
  CompletionArgument,
  CompletionReference,
  GetPromptResult,
  ListedPrompt,
  ListedResource,
  ListedResourceTemplate,
  ListedTool,
  LogEntry,
  ProgressUpdate,
  ReadResourceResult,
} from "./feature_types.ts";
export type { ListenOptions } from "./open_listen.ts";
export type { ListenReconnectOptions } from "./listen_reconnect.ts";
export { type ClientTask, type FollowTaskOptions } from "./task_follower.ts";
