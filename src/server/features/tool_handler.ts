/**
 * `ToolHandler`: what runs one tool call, and what it returns (`ToolResult`).
 * @module
 */
import type { ContentBlock } from "../../wire/protocol/v2026_07_28.ts";
import type { HandlerContext } from "./handler_context.ts";

/** What a tool handler returns: a `CallToolResult` (with `content` optional), or a string (one text block). */
export interface ToolResult {
  content?: ContentBlock[];
  /** Checked against the tool's output schema when it has one. */
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Runs one tool call. A thrown error becomes an `isError` result; a thrown `JsonRpcError` stays a protocol error. */
export type ToolHandler<A> = (
  args: A,
  context: HandlerContext,
) => ToolResult | string | Promise<ToolResult | string>;
