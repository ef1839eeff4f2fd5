/**
 * MCP Apps (io.modelcontextprotocol/ui, SEP-1865 2026-01-26): registerAppTool registers the ui://
 * view (text/html;profile=mcp-app, _meta.ui) and the tool pointing at it, in both eras; the client
 * reads a tool's view back; the CLI's inspect lists it.
 */
import { describe, expect, it } from "vitest";
import { ContextClient } from "../../../../src/client/context_client.ts";
import {
  declaresMcpApps,
  readToolUiResource,
  toolUiResourceUri,
} from "../../../../src/client/features/tool_ui_resource.ts";
import { inProcessTransport } from "../../../../src/compose/in_process_transport.ts";
import { ContextServer } from "../../../../src/server/context_server.ts";
import {
  MCP_APP_MIME_TYPE,
  mcpAppsCapabilities,
  registerAppTool,
} from "../../../../src/server/features/mcp_apps.ts";
import { ensureDist } from "../../../fixtures/ours/build_dist.ts";
import { cli, FIXTURES } from "../../../node/cli_helpers.ts";

// deno-lint-ignore no-explicit-any
type Loose = any;

const HTML = "<!DOCTYPE html><html><body>weather</body></html>";

function appServer() {
  const server = new ContextServer({ name: "apps", version: "1", capabilities: mcpAppsCapabilities() });
  const app = registerAppTool(server, "forecast", { description: "Forecast" }, () => "sunny", {
    uri: "ui://weather/forecast",
    html: HTML,
    csp: { connectDomains: ["https://api.example.com"] },
    prefersBorder: true,
    visibility: ["model", "app"],
  });
  server.tool("plain", {}, () => "plain");
  return { server, app };
}

describe.each(["modern", "legacy"] as const)("MCP Apps (%s)", (era) => {
  it("lists the tool with its view, declares the extension, and serves the view", async () => {
    const { server } = appServer();
    const client = await ContextClient.connect(inProcessTransport(server), { era, eraCache: null });
    expect(declaresMcpApps(client.serverCapabilities)).toBe(true);
    const tools = (await client.request("tools/list", {}) as Loose).tools;
    const forecast = tools.find((t: Loose) => t.name === "forecast");
    expect(forecast._meta).toEqual({
      ui: { resourceUri: "ui://weather/forecast", visibility: ["model", "app"] },
      "ui/resourceUri": "ui://weather/forecast",
    });
    expect(toolUiResourceUri(tools.find((t: Loose) => t.name === "plain"))).toBeUndefined();
    const listed = (await client.request("resources/list", {}) as Loose).resources;
    expect(listed).toEqual([
      expect.objectContaining({ uri: "ui://weather/forecast", mimeType: MCP_APP_MIME_TYPE }),
    ]);
    const view = await readToolUiResource(client, "forecast");
    expect(view).toEqual({
      uri: "ui://weather/forecast",
      mimeType: MCP_APP_MIME_TYPE,
      html: HTML,
      ui: { csp: { connectDomains: ["https://api.example.com"] }, prefersBorder: true },
    });
    expect(await readToolUiResource(client, "plain")).toBeUndefined();
    await expect(readToolUiResource(client, "missing")).rejects.toThrow(/no tool "missing"/);
    await client.close();
    await server.close();
  });
});

describe("registerAppTool", () => {
  it("refuses a view outside ui:// and removes tool and view together", () => {
    const { server, app } = appServer();
    expect(() =>
      registerAppTool(server, "bad", {}, () => "x", { uri: "https://example.com/view", html: HTML })
    ).toThrow(/must start with ui:\/\//);
    app.remove();
    expect(server.features.capabilities().tools).toBeDefined();
    expect(() => app.remove()).not.toThrow();
  });

  it("reads the flat deprecated key when the nested one is absent", () => {
    expect(toolUiResourceUri({ _meta: { "ui/resourceUri": "ui://a/b" } })).toBe("ui://a/b");
    expect(toolUiResourceUri({ _meta: { ui: { resourceUri: "ui://n" }, "ui/resourceUri": "ui://f" } })).toBe(
      "ui://n",
    );
    expect(toolUiResourceUri({ _meta: { ui: { resourceUri: "https://x" } } })).toBeUndefined();
  });

  it("is listed by the CLI's inspect", () => {
    ensureDist();
    const run = cli("inspect", "-q", "--", process.execPath, `${FIXTURES}/app_server.mjs`);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /forecast\s+— Forecast with a view\n\s+ui: ui:\/\/apps\/forecast \(MCP App view\)/,
    );
    expect(run.stdout).not.toMatch(/plain[^\n]*\n\s+ui:/);
  });
});
