// @ts-check
// The everything server's tools and prompt that ask the client: elicitation, sampling and roots
// (testing/conformance/SCENARIOS.md, issue 14). Each is written once with ctx.elicit / ctx.sample /
// ctx.listRoots: a legacy session sends real server-to-client requests; a 2026-07-28 request answers
// input_required and the client's retry completes it (the handler runs again from the start, and
// answered asks resolve at once). Keys such as `user_name` are the ones the conformance suite expects.

/** @type {(value: string) => { type: "text", text: string }} */
const text = (value) => ({ type: "text", text: value });
/** @type {{ type: "object", properties: { name: { type: "string", description: string } }, required: string[] }} */
const NAME_SCHEMA = {
  type: "object",
  properties: { name: { type: "string", description: "Your name" } },
  required: ["name"],
};
/**
 * The text of a sampling result (its text blocks, joined).
 * @param {{ content: { type: string, text?: string } | Array<{ type: string, text?: string }> }} result
 */
const sampledText = (result) =>
  (Array.isArray(result.content) ? result.content : [result.content]).map((
    c,
  ) => (c?.type === "text" ? c.text : "")).join("");

/**
 * Registers the input tools and prompt on `server` (a ContextServer with the feature API).
 * @param {import("onemodelcontext").ContextServer} server
 */
export function addInputTools(server) {
  // ----- legacy-era scenarios (they run unchanged as input rounds in 2026) -----
  server.tool(
    "test_sampling",
    {
      description: "Tests server-initiated sampling (LLM completion request)",
      inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
    },
    async ({ prompt }, ctx) => {
      const result = await ctx.sample({
        messages: [{ role: "user", content: text(String(prompt)) }], // a string: the input schema was checked
        maxTokens: 100,
      });
      return `LLM response: ${sampledText(result)}`;
    },
  );
  server.tool(
    "test_elicitation",
    {
      description: "Tests server-initiated elicitation (user input request)",
      inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
    },
    async ({ message }, ctx) => {
      const result = await ctx.elicit({
        message: String(message),
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
      });
      return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    },
  );
  server.tool("test_elicitation_sep1034_defaults", {
    description: "Tests elicitation with default values (SEP-1034)",
  }, async (_args, ctx) => {
    const result = await ctx.elicit({
      message: "Please review and update the form fields with defaults",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", description: "User name", default: "John Doe" },
          age: { type: "integer", description: "User age", default: 30 },
          score: { type: "number", description: "User score", default: 95.5 },
          status: {
            type: "string",
            description: "User status",
            enum: ["active", "inactive", "pending"],
            default: "active",
          },
          verified: { type: "boolean", description: "Verification status", default: true },
        },
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  });
  server.tool("test_elicitation_sep1330_enums", {
    description: "Tests elicitation with enum schema improvements (SEP-1330)",
  }, async (_args, ctx) => {
    const result = await ctx.elicit({
      message: "Please select options from the enum fields",
      requestedSchema: {
        type: "object",
        properties: {
          untitledSingle: {
            type: "string",
            description: "Select one option",
            enum: ["option1", "option2", "option3"],
          },
          titledSingle: {
            type: "string",
            description: "Select one option with titles",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" },
            ],
          },
          legacyEnum: {
            type: "string",
            description: "Select one option (legacy)",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Option One", "Option Two", "Option Three"],
          },
          untitledMulti: {
            type: "array",
            description: "Select multiple options",
            items: { type: "string", enum: ["option1", "option2", "option3"] },
          },
          titledMulti: {
            type: "array",
            description: "Select multiple options with titles",
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" },
              ],
            },
          },
        },
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  });
  // Without the sampling capability, ctx.sample fails with -32021 and data.requiredCapabilities { sampling: {} }.
  server.tool(
    "test_missing_capability",
    { description: "Needs the client's sampling capability" },
    async (_args, ctx) => {
      await ctx.sample({ messages: [{ role: "user", content: text("Say OK") }], maxTokens: 5 }, {
        key: "capability_probe",
      });
      return "Success";
    },
  );

  // ----- 2026-07-28 input-required scenarios (in a legacy session they send real requests) -----
  server.tool("test_input_required_result_elicitation", {
    description: "Asks for the user's name (input key user_name)",
  }, async (_args, ctx) => {
    const result = await ctx.elicit({ message: "What is your name?", requestedSchema: NAME_SCHEMA }, {
      key: "user_name",
    });
    return `Hello, ${result.action === "accept" ? result.content?.name : "stranger"}!`;
  });
  server.tool(
    "test_input_required_result_sampling",
    { description: "Asks the client's LLM a question" },
    async (_args, ctx) => {
      const result = await ctx.sample({
        messages: [{ role: "user", content: text("What is the capital of France?") }],
        maxTokens: 100,
      }, { key: "capital_question" });
      return sampledText(result);
    },
  );
  server.tool(
    "test_input_required_result_list_roots",
    { description: "Asks for the client's roots" },
    async (_args, ctx) => {
      const { roots } = await ctx.listRoots({ key: "client_roots" });
      return `Roots: ${roots.map((root) => root.name ?? root.uri).join(", ")}`;
    },
  );
  server.tool("test_input_required_result_request_state", {
    description: "Carries state through requestState",
  }, async (_args, ctx) => {
    if (ctx.round === 0) ctx.state = { marker: "state-ok" };
    const result = await ctx.elicit(
      {
        message: "Please confirm",
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      },
      { key: "confirm" },
    );
    // In the modern era the marker came back inside the verified requestState.
    const state = /** @type {{ marker?: string } | undefined} */ (ctx.state);
    return `${state?.marker ?? "state-ok"}: confirmed=${result.content?.ok === true}`;
  });
  server.tool(
    "test_input_required_result_multiple_inputs",
    { description: "Asks three things in one round" },
    async (_args, ctx) => {
      const [who, greeting, roots] = await Promise.all([
        ctx.elicit({ message: "What is your name?", requestedSchema: NAME_SCHEMA }, { key: "user_name" }),
        ctx.sample({ messages: [{ role: "user", content: text("Generate a greeting") }], maxTokens: 50 }, {
          key: "greeting",
        }),
        ctx.listRoots({ key: "client_roots" }),
      ]);
      return `name=${who.content?.name}, greeting=${sampledText(greeting)}, roots=${roots.roots.length}`;
    },
  );
  server.tool(
    "test_input_required_result_multi_round",
    { description: "Asks in two rounds" },
    async (_args, ctx) => {
      const step1 = await ctx.elicit(
        { message: "Step 1: What is your name?", requestedSchema: NAME_SCHEMA },
        { key: "step1" },
      );
      const step2 = await ctx.elicit(
        {
          message: "Step 2: What is your favorite color?",
          requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
        },
        { key: "step2" },
      );
      return `${step1.content?.name} likes ${step2.content?.color}`;
    },
  );
  server.tool(
    "test_input_required_result_tampered_state",
    { description: "Rejects a modified requestState" },
    async (_args, ctx) => {
      // The state is HMAC-protected by the server: a modified one is refused (-32602) before this runs again.
      const result = await ctx.elicit({ message: "What is your name?", requestedSchema: NAME_SCHEMA }, {
        key: "user_name",
      });
      return `Hello, ${result.content?.name}!`;
    },
  );
  server.tool("test_input_required_result_capabilities", {
    description: "Asks only for what the client declared",
  }, async (_args, ctx) => {
    if (ctx.canElicit()) {
      const result = await ctx.elicit({ message: "What is your name?", requestedSchema: NAME_SCHEMA }, {
        key: "user_name",
      });
      return `Elicited: ${result.content?.name}`;
    }
    if (ctx.canSample()) {
      const result = await ctx.sample({
        messages: [{ role: "user", content: text("Say hello") }],
        maxTokens: 20,
      }, { key: "greeting" });
      return `Sampled: ${sampledText(result)}`;
    }
    if (ctx.canListRoots()) return `Roots: ${(await ctx.listRoots({ key: "client_roots" })).roots.length}`;
    return "The client declared no input capability";
  });

  server.prompt("test_input_required_result_prompt", {
    description: "A prompt that asks the user for context first",
  }, async (_args, ctx) => {
    const result = await ctx.elicit(
      {
        message: "What context should the prompt use?",
        requestedSchema: {
          type: "object",
          properties: { context: { type: "string" } },
          required: ["context"],
        },
      },
      { key: "user_context" },
    );
    return [{ role: "user", content: text(`Use this context: ${result.content?.context}`) }];
  });
}
