/**
 * The server feature layer: tools, resources and templates, prompts, completions, logging,
 * pagination, change notifications and subscriptions, for both protocol eras.
 * @module
 */
export { ServerFeatures, type ServerFeaturesOptions } from "./server_features.ts";
export type {
  FeatureHost,
  FeatureRequestContext,
  FeatureRequestHandler,
  FeatureSession,
} from "./feature_host.ts";
export type { HandlerContext } from "./handler_context.ts";
export { isLoggingLevel, passesLevel } from "./log_levels.ts";
export { DEFAULT_PAGE_SIZE } from "./pagination.ts";
export { MAX_COMPLETION_VALUES } from "./completions.ts";
export type { ListenFilter } from "./listen/listen_streams.ts";
export type {
  RegisteredTool,
  ToolArguments,
  ToolConfig,
  ToolHandler,
  ToolResult,
  ToolSchemaInput,
} from "./tool_registry.ts";
export {
  type Completer,
  type RegisteredResource,
  RESOURCE_NOT_FOUND,
  type ResourceConfig,
  type ResourceContents,
  type ResourceInfo,
  type ResourceRead,
  type ResourceReader,
  type ResourceTemplateConfig,
  type ResourceTemplateReader,
} from "./resource_registry.ts";
export type {
  PromptArguments,
  PromptConfig,
  PromptHandler,
  PromptMessage,
  PromptResult,
  RegisteredPrompt,
} from "./prompt_registry.ts";
export { UriTemplate, type UriVariables } from "./uri_template.ts";
