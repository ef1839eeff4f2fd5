/**
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26), the server side: a tool
 * whose results a host renders with an HTML view, the view a `ui://` resource of MIME type
 * `text/html;profile=mcp-app` with its CSP, permissions and rendering hints in `_meta.ui`, and the
 * tool pointing at it through `_meta.ui.resourceUri` (and the deprecated flat `ui/resourceUri`).
 * Both eras: only `_meta` and the `extensions` capability are involved.
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import type { Capabilities } from "../../wire/protocol_versions.ts";
import type { HandlerContext } from "./handler_context.ts";
import type { RegisteredResource, ResourceConfig, ResourceReader } from "./resource_registry.ts";
import type {
  RegisteredTool,
  ToolArguments,
  ToolConfig,
  ToolHandler,
  ToolSchemaInput,
} from "./tool_registry.ts";

/** The extension's identifier, the key under `capabilities.extensions`. */
export const MCP_APPS_EXTENSION = "io.modelcontextprotocol/ui";
/** The MIME type of an MCP App's HTML view. */
export const MCP_APP_MIME_TYPE = "text/html;profile=mcp-app";

/** Origins the view may reach (each maps to CSP directives; omitted: none). */
export interface McpAppCsp {
  /** `connect-src`: fetch, XHR, WebSocket. */
  connectDomains?: string[];
  /** `img-src`, `script-src`, `style-src`, `font-src`, `media-src`. */
  resourceDomains?: string[];
  /** `frame-src`: nested iframes. */
  frameDomains?: string[];
  /** `base-uri`. */
  baseUriDomains?: string[];
}

/** The view of an app tool. */
export interface McpAppView {
  /** The view's URI; must start with `ui://`. */
  uri: string;
  /** The HTML5 document (or a function building it per read). */
  html: string | ((context: HandlerContext) => string | Promise<string>);
  /**
   * The resource's name in `resources/list`. Default: the tool's name.
   * @default the tool's name
   */
  name?: string;
  description?: string;
  /** Origins the view may reach; omitted: the host's restrictive default. */
  csp?: McpAppCsp;
  /** Browser permissions asked for (`camera`, `microphone`, `geolocation`, `clipboardWrite`). */
  permissions?: { camera?: object; microphone?: object; geolocation?: object; clipboardWrite?: object };
  /** A dedicated sandbox origin (host-specific format). */
  domain?: string;
  /** Whether the host draws a border and background. */
  prefersBorder?: boolean;
  /**
   * Who may call the tool: `"model"`, `"app"`. Default (omitted) both.
   * @default (omitted) both
   */
  visibility?: Array<"model" | "app">;
}

/** What can register tools and resources: a `ContextServer` (or its `features`). */
export interface AppToolHost {
  tool<S extends ToolSchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig<S>,
    handler: ToolHandler<ToolArguments<S>>,
  ): RegisteredTool;
  resource(uri: string, config: ResourceConfig, read?: ResourceReader): RegisteredResource;
}

/** The capabilities that declare the extension: give them to `ContextServer`'s `capabilities` option. */
export function mcpAppsCapabilities(base: Capabilities = {}): Capabilities {
  const extensions = (base as { extensions?: Record<string, unknown> }).extensions ?? {};
  return { ...base, extensions: { ...extensions, [MCP_APPS_EXTENSION]: {} } } as Capabilities;
}

/** A registered app tool: its tool and view; `remove()` takes both off. */
export interface RegisteredAppTool {
  readonly tool: RegisteredTool;
  readonly view: RegisteredResource;
  remove(): void;
}

/**
 * Registers a tool with its MCP App view: the `ui://` resource (HTML, `_meta.ui` with CSP,
 * permissions, domain, border) and the tool (its `_meta.ui.resourceUri` and `visibility`, and the
 * deprecated flat `ui/resourceUri` for older hosts).
 *
 * @example
 * ```ts
 * const server = new ContextServer({ name: "weather", version: "1.0.0", capabilities: mcpAppsCapabilities() });
 * registerAppTool(server, "forecast", { description: "Forecast" }, () => ({ structuredContent: { t: 21 } }), {
 *   uri: "ui://weather/forecast",
 *   html: "<!DOCTYPE html><html><body>…</body></html>",
 *   csp: { connectDomains: ["https://api.example.com"] },
 * });
 * ```
 */
export function registerAppTool<S extends ToolSchemaInput | undefined = undefined>(
  host: AppToolHost,
  name: string,
  config: ToolConfig<S>,
  handler: ToolHandler<ToolArguments<S>>,
  view: McpAppView,
): RegisteredAppTool {
  if (typeof view?.uri !== "string" || !view.uri.startsWith("ui://")) {
    throw new InvalidOptionError(
      `An MCP App view's uri must start with ui://, got ${JSON.stringify(view?.uri)}`,
    );
  }
  if (typeof view.html !== "string" && typeof view.html !== "function") {
    throw new InvalidOptionError("An MCP App view's html must be a string or a function returning one");
  }
  const ui: Record<string, unknown> = {};
  if (view.csp !== undefined) ui.csp = view.csp;
  if (view.permissions !== undefined) ui.permissions = view.permissions;
  if (view.domain !== undefined) ui.domain = view.domain;
  if (view.prefersBorder !== undefined) ui.prefersBorder = view.prefersBorder;
  const meta = Object.keys(ui).length > 0 ? { _meta: { ui } } : {};
  const html = view.html;
  const resource = host.resource(view.uri, {
    name: view.name ?? name,
    ...(view.description !== undefined ? { description: view.description } : {}),
    mimeType: MCP_APP_MIME_TYPE,
    ...meta,
  }, async (uri, context) => ({
    contents: [{
      uri,
      mimeType: MCP_APP_MIME_TYPE,
      text: typeof html === "string" ? html : await html(context),
      ...meta,
    }],
  }));
  const toolUi: Record<string, unknown> = { resourceUri: view.uri };
  if (view.visibility !== undefined) toolUi.visibility = view.visibility;
  let tool: RegisteredTool;
  try {
    tool = host.tool(name, {
      ...config,
      _meta: { ...config._meta, ui: toolUi, "ui/resourceUri": view.uri },
    }, handler);
  } catch (error) {
    resource.remove();
    throw error;
  }
  return {
    tool,
    view: resource,
    remove() {
      tool.remove();
      resource.remove();
    },
  };
}
