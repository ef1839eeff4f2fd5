/**
 * The protocol shapes the client feature API hands out, typed from the generated MCP types of both
 * revisions (`onemodelcontext/protocol`): a listed tool is a 2025-11-25 or a 2026-07-28 `Tool`, and so on.
 * @module
 */
import type { ClientRequestParams, ClientRequestResult, Modern } from "../../wire/protocol/mod.ts";

type Complete<R> = Exclude<R, Modern.InputRequiredResult>;

/** One tool of `tools/list`, of either era. */
export type ListedTool = ClientRequestResult<"tools/list">["tools"][number];
/** One resource of `resources/list`, of either era. */
export type ListedResource = ClientRequestResult<"resources/list">["resources"][number];
/** One resource template of `resources/templates/list`, of either era. */
export type ListedResourceTemplate = ClientRequestResult<
  "resources/templates/list"
>["resourceTemplates"][number];
/** One prompt of `prompts/list`, of either era. */
export type ListedPrompt = ClientRequestResult<"prompts/list">["prompts"][number];

/** The result of `tools/call` (`content`, `structuredContent?`, `isError?`), of either era. */
export type CallToolResult = Complete<ClientRequestResult<"tools/call">>;
/** The result of `resources/read` (`contents`), of either era. */
export type ReadResourceResult = Complete<ClientRequestResult<"resources/read">>;
/** The result of `prompts/get` (`description?`, `messages`), of either era. */
export type GetPromptResult = Complete<ClientRequestResult<"prompts/get">>;
/** The result of `completion/complete` (`completion.values`, `total?`, `hasMore?`). */
export type CompleteResult = ClientRequestResult<"completion/complete">;

/** What `complete` completes: a prompt (`ref/prompt`) or a resource template (`ref/resource`). */
export type CompletionReference = ClientRequestParams<"completion/complete">["ref"];
/** The argument being completed: its name and the value typed so far. */
export type CompletionArgument = ClientRequestParams<"completion/complete">["argument"];

/**
 * One change a listen stream reports, the same in both eras. A list change carries no data: list
 * again to see it. `resync`: the stream broke off and reopened (over HTTP, e.g. on another replica),
 * so changes may have been missed in the gap: list again and read the subscribed resources again.
 */
export type ChangeEvent =
  | { readonly type: "resync" }
  | { readonly type: "toolsListChanged" }
  | { readonly type: "promptsListChanged" }
  | { readonly type: "resourcesListChanged" }
  | { readonly type: "resourceUpdated"; readonly uri: string };

/** Which changes a listen stream asked for, or which the server agreed to report. */
export interface ChangeFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** One `notifications/progress` of a request: `progress` grows; `total` and `message` when the server sends them. */
export interface ProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** One `notifications/message` (a server log entry). */
export interface LogEntry {
  readonly level: string;
  readonly logger?: string;
  readonly data: unknown;
}
