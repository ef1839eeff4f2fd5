/**
 * Our everything server (examples/everything/server.mjs, a real child process) driven by the official
 * SDK clients: SDK 1.32 (legacy) and SDK 2.4 (legacy mode and pinned to 2026-07-28). Each lists and
 * calls tools, reads resources and templates, gets prompts, completes, and uses logging and subscriptions.
 */
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const SERVER = join(ROOT, "examples/everything/server.mjs");
const PARAMS = { command: process.execPath, args: [SERVER], stderr: "pipe" as const };
const IMAGE_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

const TOOLS = [
  "test_simple_text",
  "test_image_content",
  "test_audio_content",
  "test_embedded_resource",
  "test_multiple_content_types",
  "test_tool_with_logging",
  "test_tool_with_progress",
  "test_error_handling",
  "test_reconnection",
  "json_schema_2020_12_tool",
  "test_logging_tool",
  "test_streaming_elicitation",
  "test_trigger_tool_change",
  "test_trigger_prompt_change",
  "test_custom_header",
  // examples/everything/input_tools.mjs: they ask the client.
  "test_sampling",
  "test_elicitation",
  "test_elicitation_sep1034_defaults",
  "test_elicitation_sep1330_enums",
  "test_missing_capability",
  "test_input_required_result_elicitation",
  "test_input_required_result_sampling",
  "test_input_required_result_list_roots",
  "test_input_required_result_request_state",
  "test_input_required_result_multiple_inputs",
  "test_input_required_result_multi_round",
  "test_input_required_result_tampered_state",
  "test_input_required_result_capabilities",
  // examples/everything/task_tools.mjs: the tasks extension's fixtures (synchronous in the legacy era).
  "greet",
  "slow_compute",
  "long_task",
  "failing_job",
  "protocol_error_job",
  "confirm_delete",
  "multi_input",
  "test_tool_with_task",
  // examples/everything/resumable_tools.mjs.
  "progress_stream",
];

// deno-lint-ignore no-explicit-any
type AnyClient = any;

/** Waits (bounded) until `check` holds: notifications arrive on the child's schedule. */
async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("Condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(() => {
  ensureDist();
});

/** What every client checks, in either era. */
async function exerciseCommon(client: AnyClient, era: "legacy" | "modern" = "legacy"): Promise<void> {
  expect(client.getServerCapabilities()).toEqual({
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    completions: {},
    logging: {},
    // The tasks extension is a 2026-07-28 one: a legacy initialize never declares it.
    ...(era === "modern" ? { extensions: { "io.modelcontextprotocol/tasks": {} } } : {}),
  });
  const { tools } = await client.listTools();
  expect(tools.map((t: AnyClient) => t.name)).toEqual(TOOLS);
  const jsonSchemaTool = tools.find((t: AnyClient) => t.name === "json_schema_2020_12_tool");
  expect(jsonSchemaTool.inputSchema).toMatchObject({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $defs: { address: { $anchor: "addressDef" } },
    additionalProperties: false,
  });

  expect((await client.callTool({ name: "test_simple_text", arguments: {} })).content).toEqual([{
    type: "text",
    text: "This is a simple text response for testing.",
  }]);
  expect((await client.callTool({ name: "test_image_content", arguments: {} })).content).toEqual([{
    type: "image",
    data: IMAGE_PNG,
    mimeType: "image/png",
  }]);
  expect(
    (await client.callTool({ name: "test_multiple_content_types", arguments: {} })).content.map((
      c: AnyClient,
    ) => c.type),
  ).toEqual(["text", "image", "resource"]);
  const failed = await client.callTool({ name: "test_error_handling", arguments: {} });
  expect(failed).toMatchObject({
    isError: true,
    content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
  });
  const invalid = await client.callTool({
    name: "json_schema_2020_12_tool",
    arguments: { name: "x", unexpected: 1 },
  });
  expect(invalid.isError).toBe(true);
  expect(
    (await client.callTool({ name: "json_schema_2020_12_tool", arguments: { email: "a@b.c" } })).content[0]
      .text,
  ).toBe('JSON Schema 2020-12 tool called with: {"email":"a@b.c"}');

  const { resources } = await client.listResources();
  expect(resources.map((r: AnyClient) => r.uri)).toEqual([
    "test://static-text",
    "test://static-binary",
    "test://watched-resource",
  ]);
  expect((await client.readResource({ uri: "test://static-text" })).contents).toEqual([
    {
      uri: "test://static-text",
      mimeType: "text/plain",
      text: "This is the content of the static text resource.",
    },
  ]);
  expect((await client.readResource({ uri: "test://static-binary" })).contents).toEqual([{
    uri: "test://static-binary",
    mimeType: "image/png",
    blob: IMAGE_PNG,
  }]);
  const { resourceTemplates } = await client.listResourceTemplates();
  expect(resourceTemplates).toEqual([
    expect.objectContaining({
      uriTemplate: "test://template/{id}/data",
      name: "template",
      mimeType: "application/json",
    }),
  ]);
  const templated = await client.readResource({ uri: "test://template/123/data" });
  expect(JSON.parse(templated.contents[0].text)).toEqual({
    id: "123",
    templateTest: true,
    data: "Data for ID: 123",
  });

  const { prompts } = await client.listPrompts();
  expect(prompts.map((p: AnyClient) => p.name)).toEqual([
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
    "test_input_required_result_prompt",
  ]);
  const withArgs = await client.getPrompt({
    name: "test_prompt_with_arguments",
    arguments: { arg1: "hello", arg2: "world" },
  });
  expect(withArgs.messages).toEqual([{
    role: "user",
    content: { type: "text", text: "Prompt with arguments: arg1='hello', arg2='world'" },
  }]);
  const embedded = await client.getPrompt({
    name: "test_prompt_with_embedded_resource",
    arguments: { resourceUri: "test://example-resource" },
  });
  expect(embedded.messages[0].content).toEqual({
    type: "resource",
    resource: {
      uri: "test://example-resource",
      mimeType: "text/plain",
      text: "Embedded resource content for testing.",
    },
  });
  expect((await client.getPrompt({ name: "test_prompt_with_image" })).messages[0].content).toEqual({
    type: "image",
    data: IMAGE_PNG,
    mimeType: "image/png",
  });

  const completed = await client.complete({
    ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
    argument: { name: "arg1", value: "hel" },
  });
  expect(completed.completion).toEqual({ values: ["hello", "help"], total: 2, hasMore: false });
  const ids = await client.complete({
    ref: { type: "ref/resource", uri: "test://template/{id}/data" },
    argument: { name: "id", value: "12" },
  });
  expect(ids.completion.values).toEqual(["123"]);
}

describe("SDK 1.32 Client against the everything server", () => {
  it("legacy: tools, resources, templates, prompts, completions, setLevel, progress, subscribe and list_changed", async () => {
    const transport = new LegacyStdioClientTransport(PARAMS);
    const client = new LegacyClient({ name: "sdk-1.32", version: "1.32.2" });
    const logs: unknown[] = [];
    const updates: unknown[] = [];
    let toolChanges = 0;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolChanges++);
    await client.connect(transport);
    await exerciseCommon(client);

    await client.setLoggingLevel("debug");
    expect((await client.callTool({ name: "test_tool_with_logging", arguments: {} })).content).toEqual([{
      type: "text",
      text: "Tool with logging executed successfully",
    }]);
    await eventually(() => logs.length === 3);
    expect(logs).toEqual([
      { level: "info", data: "Tool execution started" },
      { level: "info", data: "Tool processing data" },
      { level: "info", data: "Tool execution completed" },
    ]);
    await client.setLoggingLevel("error");
    await client.callTool({ name: "test_tool_with_logging", arguments: {} });

    // Progress is checked on the wire: SDK 1.32 may skip onprogress when a notification and the response share one read.
    const received: { method?: string; params?: AnyClient }[] = [];
    const onmessage = transport.onmessage!;
    transport.onmessage = (message) => {
      received.push(message as { method?: string });
      onmessage(message);
    };
    const result = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
      onprogress: () => {},
    });
    const progress = received.filter((m) => m.method === "notifications/progress").map((m) => m.params);
    expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([
      [0, 100, "Completed step 0 of 100"],
      [50, 100, "Completed step 50 of 100"],
      [100, 100, "Completed step 100 of 100"],
    ]);
    expect(result.content).toEqual([{ type: "text", text: String(progress[0].progressToken) }]);

    await client.subscribeResource({ uri: "test://watched-resource" });
    await client.callTool({ name: "test_trigger_tool_change", arguments: {} });
    await eventually(() => toolChanges === 1);
    await client.unsubscribeResource({ uri: "test://watched-resource" });
    await expect(client.readResource({ uri: "test://nonexistent-resource-for-conformance-testing" })).rejects
      .toMatchObject({ code: -32002 });
    expect(logs).toHaveLength(3);
    await client.close();
  });
});

describe("SDK 2.4 Client against the everything server", () => {
  async function connect(mode: "legacy" | { pin: string }) {
    const transport = new StdioClientTransport(PARAMS);
    const client = new Client({ name: "sdk-2.4", version: "2.4.0" }, {
      versionNegotiation: { mode, probe: { timeoutMs: 10_000 } },
    });
    const seen: { method: string; params: AnyClient }[] = [];
    for (
      const method of [
        "notifications/message",
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/updated",
      ] as const
    ) {
      client.setNotificationHandler(method, (n: AnyClient) => void seen.push({ method, params: n.params }));
    }
    await client.connect(transport);
    return { client, seen };
  }

  it("mode legacy: every feature, setLevel filtering, list_changed and -32002 for an unknown resource", async () => {
    const { client, seen } = await connect("legacy");
    expect(client.getProtocolEra()).toBe("legacy");
    await exerciseCommon(client);
    await client.setLoggingLevel("info");
    await client.callTool({ name: "test_tool_with_logging", arguments: {} });
    await eventually(() => seen.filter((s) => s.method === "notifications/message").length === 3);
    await client.subscribeResource({ uri: "test://watched-resource" });
    await client.callTool({ name: "test_trigger_prompt_change", arguments: {} });
    await eventually(() => seen.some((s) => s.method === "notifications/prompts/list_changed"));
    // On the wire this is -32002 (the 1.32 test above sees it raw); SDK 2.4 maps both codes onto its ResourceNotFoundError.
    const notFound = await client.readResource({ uri: "test://nonexistent" }).catch((error: unknown) =>
      error
    );
    expect((notFound as Error).constructor.name).toBe("ResourceNotFoundError");
    expect(notFound).toMatchObject({ data: { uri: "test://nonexistent" } });
    await client.close();
  });

  it("pinned 2026-07-28: every feature, logs only with a _meta log level, listen streams, -32602 for an unknown resource", async () => {
    const { client, seen } = await connect({ pin: "2026-07-28" });
    expect(client.getProtocolEra()).toBe("modern");
    await exerciseCommon(client, "modern");

    await client.callTool({ name: "test_logging_tool", arguments: {} });
    await client.callTool({ name: "test_tool_with_logging", arguments: {}, _meta: { [LOG_LEVEL]: "info" } });
    await eventually(() => seen.filter((s) => s.method === "notifications/message").length === 3);
    expect(seen.filter((s) => s.method === "notifications/message").map((s) => s.params.data)).toEqual([
      "Tool execution started",
      "Tool processing data",
      "Tool execution completed",
    ]);

    const subscription = await client.listen({
      toolsListChanged: true,
      resourceSubscriptions: ["test://watched-resource"],
    });
    await client.callTool({ name: "test_trigger_tool_change", arguments: {} });
    await client.callTool({ name: "test_trigger_prompt_change", arguments: {} });
    await eventually(() => seen.some((s) => s.method === "notifications/tools/list_changed"));
    expect(seen.some((s) => s.method === "notifications/prompts/list_changed")).toBe(false);
    await subscription.close();

    await expect(client.readResource({ uri: "test://nonexistent" })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });
});
