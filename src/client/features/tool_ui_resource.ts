/**
 * MCP Apps (`io.modelcontextprotocol/ui`), the client side: where a tool's view is
 * (`_meta.ui.resourceUri`, or the deprecated flat `ui/resourceUri`), and the view itself, read with
 * `resources/read`: its HTML and its `_meta.ui` (CSP, permissions, domain, border).
 * @module
 */
import { ProtocolError } from "../../wire/errors.ts";

/** What the extension's capability is declared under, and the view's MIME type. */
const EXTENSION = "io.modelcontextprotocol/ui";
const MIME_TYPE = "text/html;profile=mcp-app";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `ui://` URI of a listed tool's MCP App view, or `undefined` when it has none (nested form first). */
export function toolUiResourceUri(tool: { _meta?: unknown }): string | undefined {
  const meta = isObject(tool?._meta) ? tool._meta : undefined;
  const nested = isObject(meta?.ui) ? meta.ui.resourceUri : undefined;
  const uri = typeof nested === "string" ? nested : meta?.["ui/resourceUri"];
  return typeof uri === "string" && uri.startsWith("ui://") ? uri : undefined;
}

/** A tool's MCP App view, as read. */
export interface ToolUiResource {
  uri: string;
  mimeType: string;
  /** The HTML document (decoded when the server sent a `blob`). */
  html: string;
  /** The view's `_meta.ui`: `csp`, `permissions`, `domain`, `prefersBorder`. `{}` when none. */
  ui: Record<string, unknown>;
}

/** What {@linkcode readToolUiResource} needs from a client: a `ContextClient` fits. */
export interface UiResourceReader {
  listTools(): Promise<Array<{ name: string; _meta?: unknown }>>;
  request(method: "resources/read", params: { uri: string }): Promise<unknown>;
}

/** True when `capabilities` (a server's or a client's) declare the MCP Apps extension. */
export function declaresMcpApps(capabilities: unknown): boolean {
  return isObject(capabilities) && isObject(capabilities.extensions) &&
    capabilities.extensions[EXTENSION] !== undefined;
}

/**
 * Reads the MCP App view of tool `name`: `undefined` when the tool has none; throws
 * `ProtocolError` when there is no such tool or the view is not `text/html;profile=mcp-app`.
 */
export async function readToolUiResource(
  client: UiResourceReader,
  name: string,
): Promise<ToolUiResource | undefined> {
  const tool = (await client.listTools()).find((t) => t.name === name);
  if (!tool) throw new ProtocolError(`The server lists no tool ${JSON.stringify(name)}`);
  const uri = toolUiResourceUri(tool);
  if (uri === undefined) return undefined;
  const result = await client.request("resources/read", { uri });
  const contents = isObject(result) && Array.isArray(result.contents) ? result.contents : [];
  const item = contents.find((c): c is Record<string, unknown> => isObject(c) && c.uri === uri) ??
    contents.find(isObject);
  if (!item || typeof item.mimeType !== "string" || !item.mimeType.startsWith(MIME_TYPE)) {
    throw new ProtocolError(
      `The view ${uri} of tool ${JSON.stringify(name)} is not ${MIME_TYPE} (got ${
        JSON.stringify(item?.mimeType ?? null)
      })`,
    );
  }
  const html = typeof item.text === "string"
    ? item.text
    : typeof item.blob === "string"
    ? new TextDecoder().decode(Uint8Array.from(atob(item.blob), (c) => c.charCodeAt(0)))
    : "";
  const meta = isObject(item._meta) && isObject(item._meta.ui) ? item._meta.ui : {};
  return { uri, mimeType: item.mimeType, html, ui: meta };
}
