// @ts-check
// The everything server's tools, resources, templates and prompts (see ./server.mjs), kept apart from
// the stdio runner so tests and other transports can serve the same server.
import { ContextServer } from "onemodelcontext";
import { addInputTools } from "./input_tools.mjs";
import { addTaskTools } from "./task_tools.mjs";

const IMAGE_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const AUDIO_WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

// SEP-1613 / SEP-2106: a JSON Schema 2020-12 input schema that must reach tools/list unchanged.
const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

/**
 * Builds the server; exported so tests and other transports can serve it. `stateKey` (64 hex
 * characters) signs the request state of input-required rounds, so replicas given the same key
 * accept each other's state (default: a random per-process key). `listenBus` (e.g. a
 * `RedisListenBus`) carries list changes to the listen streams held by other replicas.
 * @param {{
 *   stateKey?: string,
 *   listenBus?: import("onemodelcontext").ServerFeaturesOptions["listenBus"],
 *   tasks?: import("onemodelcontext").ServerFeaturesOptions["tasks"],
 * }} [options]
 */
export function createEverythingServer(options = {}) {
  const server = new ContextServer({
    name: "onemodelcontext-everything",
    version: "1.0.0",
    requestState: options.stateKey === undefined ? undefined : { key: options.stateKey },
    // SEP-2549: modern list results may be cached for five minutes by anyone.
    features: {
      listCache: { ttlMs: 300_000, cacheScope: "public" },
      listenBus: options.listenBus,
      tasks: options.tasks,
    },
  });
  /** @type {(value: string) => { type: "text", text: string }} */
  const text = (value) => ({ type: "text", text: value });

  // ----- tools -----
  server.tool(
    "test_simple_text",
    { description: "Tests simple text content response" },
    () => "This is a simple text response for testing.",
  );
  server.tool("test_image_content", { description: "Tests image content response" }, () => ({
    content: [{ type: "image", data: IMAGE_PNG, mimeType: "image/png" }],
  }));
  server.tool("test_audio_content", { description: "Tests audio content response" }, () => ({
    content: [{ type: "audio", data: AUDIO_WAV, mimeType: "audio/wav" }],
  }));
  server.tool("test_embedded_resource", { description: "Tests embedded resource content response" }, () => ({
    content: [{
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content.",
      },
    }],
  }));
  server.tool("test_multiple_content_types", {
    description: "Tests response with multiple content types (text, image, resource)",
  }, () => ({
    content: [
      text("Multiple content types test:"),
      { type: "image", data: IMAGE_PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 }),
        },
      },
    ],
  }));
  server.tool("test_tool_with_logging", {
    description: "Tests tool that emits log messages during execution",
  }, async (_args, ctx) => {
    // Legacy: filtered by logging/setLevel; modern: sent only when the request's _meta sets a log level.
    await ctx.log("info", "Tool execution started");
    await ctx.log("info", "Tool processing data");
    await ctx.log("info", "Tool execution completed");
    return "Tool with logging executed successfully";
  });
  server.tool(
    "test_tool_with_progress",
    { description: "Tests tool that reports progress notifications" },
    async (_args, ctx) => {
      for (const step of [0, 50, 100]) {
        await ctx.sendProgress(step, { total: 100, message: `Completed step ${step} of 100` });
      }
      return String(ctx.meta.progressToken ?? 0);
    },
  );
  server.tool("test_error_handling", { description: "Tests error response handling" }, () => {
    throw new Error("This tool intentionally returns an error for testing");
  });
  server.tool(
    "test_reconnection",
    { description: "Tests SSE stream disconnection and client reconnection (SEP-1699)" },
    async (_args, ctx) => {
      // Legacy HTTP with resumability: end the POST connection now; the result follows ~100 ms later.
      if (ctx.closeSseStream()) await new Promise((resolve) => setTimeout(resolve, 100));
      return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.";
    },
  );
  server.tool("json_schema_2020_12_tool", {
    description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
    inputSchema: JSON_SCHEMA_2020_12,
  }, (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`);

  // Diagnostic tools of the 2026-07-28 (SEP-2575) scenarios.
  server.tool(
    "test_logging_tool",
    { description: "Diagnostic logging validator tool" },
    async (_args, ctx) => {
      await ctx.log("info", "Diagnostic trace logging activated");
      return "Logging evaluated";
    },
  );
  server.tool("test_streaming_elicitation", {
    description: "Diagnostic tool validating response progress streams",
  }, async (_args, ctx) => {
    await ctx.sendProgress(50, { total: 100 });
    return "Streaming complete";
  });
  // A real change of the tool or prompt list: every listen stream (and initialized legacy session) that asked is told.
  server.tool("test_trigger_tool_change", {
    description: "Adds and removes a tool, so tools/list_changed is sent",
  }, () => {
    server.tool("test_transient_tool", { description: "Exists only during a trigger" }, () => "transient")
      .remove();
    return "Mutation triggered";
  });
  server.tool("test_trigger_prompt_change", {
    description: "Adds and removes a prompt, so prompts/list_changed is sent",
  }, () => {
    server.prompt("test_transient_prompt", {}, () => "transient").remove();
    return "Mutation triggered";
  });
  // SEP-2243: an argument mirrored into the Mcp-Param-Region header, which the HTTP handler checks against the body.
  server.tool(
    "test_custom_header",
    {
      description: "Tests a tool argument mirrored into an HTTP header (x-mcp-header)",
      inputSchema: {
        type: "object",
        properties: { region: { type: "string", "x-mcp-header": "Region" } },
        required: ["region"],
      },
    },
    (args) => `Region: ${args.region}`,
  );

  // ----- resources -----
  server.resource("test://static-text", {
    name: "static-text",
    title: "Static Text Resource",
    description: "A static text resource for testing",
    mimeType: "text/plain",
    text: "This is the content of the static text resource.",
  });
  server.resource("test://static-binary", {
    name: "static-binary",
    title: "Static Binary Resource",
    description: "A static binary resource (image) for testing",
    mimeType: "image/png",
    blob: IMAGE_PNG,
  });
  server.resource("test://watched-resource", {
    name: "watched-resource",
    title: "Watched Resource",
    description:
      "A resource clients subscribe to (resources/subscribe, or subscriptions/listen in 2026-07-28)",
    mimeType: "text/plain",
    text: "Watched resource content",
  });
  server.resourceTemplate("test://template/{id}/data", {
    name: "template",
    title: "Resource Template",
    description: "A resource template with parameter substitution",
    mimeType: "application/json",
    complete: { id: (value) => ["1", "2", "3", "123"].filter((id) => id.startsWith(value)) },
  }, (_uri, { id }) => ({ text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }));

  // ----- prompts -----
  server.prompt("test_simple_prompt", {
    title: "Simple Test Prompt",
    description: "A simple prompt without arguments",
  }, () => "This is a simple prompt for testing.");
  server.prompt("test_prompt_with_arguments", {
    title: "Prompt With Arguments",
    description: "A prompt with required arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
    complete: { arg1: (value) => ["hello", "help", "world"].filter((word) => word.startsWith(value)) },
  }, ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`);
  server.prompt("test_prompt_with_embedded_resource", {
    title: "Prompt With Embedded Resource",
    description: "A prompt that includes an embedded resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
  }, ({ resourceUri }) => [
    {
      role: "user",
      content: {
        type: "resource",
        resource: {
          uri: resourceUri,
          mimeType: "text/plain",
          text: "Embedded resource content for testing.",
        },
      },
    },
    { role: "user", content: text("Please process the embedded resource above.") },
  ]);
  server.prompt("test_prompt_with_image", {
    title: "Prompt With Image",
    description: "A prompt that includes image content",
  }, () => [
    { role: "user", content: { type: "image", data: IMAGE_PNG, mimeType: "image/png" } },
    { role: "user", content: text("Please analyze the image above.") },
  ]);

  // Tools and a prompt that ask the client (elicitation, sampling, roots), in both eras.
  addInputTools(server);
  addTaskTools(server);
  return server;
}
