#!/usr/bin/env node
// @ts-check
// The MCP conformance suite's client: `node examples/everything/conformance-client.mjs <url>`, with the
// scenario in MCP_CONFORMANCE_SCENARIO, the requirement set in MCP_CONFORMANCE_PROTOCOL_VERSION and the
// scenario's data (if any) in MCP_CONFORMANCE_CONTEXT (JSON). Built only on the public API:
// ContextClient.connect(httpTransport(url)). What each scenario needs: testing/conformance/SCENARIOS.md §4.
//
//   npm run build && npm run conformance -- --leg client
import { ContextClient } from "onemodelcontext";
import { withOAuth } from "onemodelcontext/auth";
import { httpTransport, workloadTokenFile } from "onemodelcontext/node";
import { conformanceAuthFetch, runAuthScenario } from "./conformance_auth.mjs";

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? "2026-07-28";
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
if (!url) {
  console.error("usage: conformance-client.mjs <url>  (MCP_CONFORMANCE_SCENARIO names the scenario)");
  process.exit(2);
}

/** @typedef {import("onemodelcontext/protocol").ClientRequestMap} ClientRequestMap */
/** @typedef {import("onemodelcontext/protocol").ServerNotificationMap} ServerNotificationMap */
/** @typedef {import("onemodelcontext/protocol").ServerRequestMap} ServerRequestMap */

/**
 * A value of the JSON Schema `schema`: its default, else the first enum value, else a placeholder of its type.
 * @param {unknown} schema
 * @returns {unknown}
 */
function sample(schema) {
  if (schema === null || typeof schema !== "object") return "test";
  if ("default" in schema) return schema.default;
  if ("enum" in schema && Array.isArray(schema.enum)) return schema.enum[0];
  const declared = "type" in schema ? schema.type : undefined;
  const type = Array.isArray(declared) ? declared.find((t) => t !== "null") : declared;
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  if (type === "object") return {};
  if (type === "array") return [];
  return "test";
}

/**
 * The `properties` of an object schema; none for anything else.
 * @param {unknown} schema
 * @returns {Record<string, unknown>}
 */
function propertiesOf(schema) {
  const properties = schema !== null && typeof schema === "object" && "properties" in schema
    ? schema.properties
    : undefined;
  return properties !== null && typeof properties === "object" ? { ...properties } : {};
}

/**
 * Arguments for a tool: every property of its input schema, sampled.
 * @param {{ inputSchema?: unknown }} tool
 */
function argumentsFor(tool) {
  const properties = propertiesOf(tool.inputSchema);
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, sample(schema)]));
}

/**
 * Accepts an elicitation with every field of its requested schema filled (defaults first).
 * @param {object | undefined} params
 * @returns {ServerRequestMap["elicitation/create"]["result"]}
 */
function acceptElicitation(params) {
  const properties = propertiesOf(
    params && "requestedSchema" in params ? params.requestedSchema : {},
  );
  // Sampled from the requested schema: its defaults, enum values, or placeholders of its field types.
  const content = /** @type {Record<string, string | number | boolean | string[]>} */ (
    Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, sample(schema)]))
  );
  return { action: "accept", content };
}

const legacySet = version.startsWith("2025") || version.startsWith("2024");
// auth/* scenarios: the OAuth flow runs inside the transport's fetch (401 → discovery, registration, PKCE, token).
const auth = scenario.startsWith("auth/");
const transportOptions = auth
  ? { fetch: await conformanceAuthFetch(scenario, context, { withOAuth, workloadTokenFile }) }
  : {};
/** @type {ContextClient<ClientRequestMap, ServerNotificationMap, ServerRequestMap>} */
const client = await ContextClient.connect(httpTransport(url, transportOptions), {
  era: legacySet ? "legacy" : "auto",
  eraCache: null,
  clientInfo: { name: "onemodelcontext-conformance-client", version: "0.1.0" },
  capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } },
  onReport: (error) => console.error(`report: ${error.message}`),
});
client.handle("roots/list", () => ({ roots: [] }));
client.handle(
  "sampling/createMessage",
  () => ({
    role: "assistant",
    content: { type: "text", text: "This is a test response from the client" },
    model: "test-model",
    stopReason: "endTurn",
  }),
);
client.handle("elicitation/create", (params) => acceptElicitation(params));

/** @type {(name: string, args?: Record<string, unknown>) => Promise<unknown>} */
const call = (name, args = {}) => client.request("tools/call", { name, arguments: args });
const listTools = async () => (await client.request("tools/list", {})).tools ?? [];

/** @type {Record<string, () => Promise<void>>} */
const scenarios = {
  async initialize() {
    await listTools();
  },
  async "elicitation-sep1034-client-defaults"() {
    await listTools();
    await call("test_client_elicitation_defaults");
  },
  async "sse-retry"() {
    await listTools();
    await call("test_reconnection");
  },
  async "request-metadata"() {
    const tools = await listTools();
    if (tools[0]) await call(tools[0].name, argumentsFor(tools[0]));
  },
  async "sep-2322-client-request-state"() {
    await listTools();
    // The unrelated call goes out while the first call waits for its input (before its retry).
    let unrelatedDone = false;
    client.handle("elicitation/create", async (params) => {
      if (!unrelatedDone) {
        unrelatedDone = true;
        await client.callTool("test_mrtr_unrelated", {});
      }
      return acceptElicitation(params);
    });
    await client.callTool("test_mrtr_echo_state", {});
    await client.callTool("test_mrtr_no_state", {});
    await client.callTool("test_mrtr_no_result_type", {});
  },
  async "http-standard-headers"() {
    for (const tool of await listTools()) {
      await call(tool.name, argumentsFor(tool)).catch((e) => console.error(`${tool.name}: ${e.message}`));
    }
    const { resources = [] } = await client.request("resources/list", {});
    for (const resource of resources) {
      await client.request("resources/read", { uri: resource.uri }).catch((e) =>
        console.error(`${resource.uri}: ${e.message}`)
      );
    }
    const { prompts = [] } = await client.request("prompts/list", {});
    for (const prompt of prompts) {
      await client.request("prompts/get", { name: prompt.name, arguments: {} }).catch((e) =>
        console.error(`${prompt.name}: ${e.message}`)
      );
    }
  },
  async "http-custom-headers"() {
    await listTools();
    for (const { name, arguments: args } of context.toolCalls ?? []) await call(name, args ?? {});
  },
  async "http-invalid-tool-headers"() {
    // Tools with invalid x-mcp-header annotations are already dropped (with a warning) from the list.
    for (const tool of await listTools()) await call(tool.name, argumentsFor(tool));
  },
  async "json-schema-2020-12-preservation"() {
    const tools = await listTools();
    const target = tools.find((t) => t.name === "json_schema_2020_12_tool");
    await call("json_schema_echo", { schema: target?.inputSchema ?? {} });
  },
};

try {
  const run = auth ? () => runAuthScenario(client) : scenarios[scenario] ?? (async () => {
    for (const tool of await listTools()) {
      await call(tool.name, argumentsFor(tool)).catch((e) => console.error(`${tool.name}: ${e.message}`));
    }
  });
  await run();
  await client.close();
  process.exit(0);
} catch (error) {
  console.error(`conformance-client (${scenario}): ${error instanceof Error ? error.stack ?? error : error}`);
  await client.close().catch(() => {});
  process.exit(1);
}
