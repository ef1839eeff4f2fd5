// deno-lint-ignore-file no-explicit-any -- tests reach into loosely typed peer objects
/**
 * The everything server's tools that ask the client (examples/everything/input_tools.mjs), as a real
 * child process: the 2026-07-28 input-required scenarios of the conformance suite replayed by our
 * client in manual mode (exact keys, state, rounds, refusals), auto-fulfilment, and the legacy
 * elicitation/sampling scenarios driven by the SDK 1.32 client.
 */
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { spawnProcess } from "../../adapters/node/mod.ts";
import { ClientInputs } from "../../src/client/client_inputs.ts";
import { ContextClient } from "../../src/client/context_client.ts";
import { EraCache } from "../../src/client/era_cache.ts";
import type { JsonRpcError } from "../../src/wire/errors.ts";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const SERVER = join(ROOT, "examples/everything/server.mjs");
const accept = (content: Record<string, unknown>) => ({ action: "accept", content });
const sampled = (text: string) => ({
  role: "assistant",
  content: { type: "text", text },
  model: "test-model",
  stopReason: "endTurn",
});
const ROOTS = { roots: [{ uri: "file:///test/root", name: "Test Root" }] };
type Json = Record<string, any>;

beforeAll(() => ensureDist());

/** Our client, modern, declaring what `inputs` implies; requests in manual mode unless told. */
async function modernClient(inputs: ClientInputs) {
  const client = await ContextClient.connect(spawnProcess(process.execPath, [SERVER]), {
    era: "modern",
    eraCache: new EraCache(),
    inputs,
  });
  const call = (name: string, extra: Json = {}, auto = false) =>
    client.request("tools/call", { name, arguments: {}, ...extra }, {
      inputRequired: auto ? "auto" : "manual",
    }) as Promise<Json>;
  return { client, call };
}

const allInputs = () =>
  new ClientInputs()
    .onElicit(() => accept({ name: "Alice" }) as never)
    .onSample(() => sampled("Hello there!") as never)
    .setRoots(ROOTS.roots);

describe("everything server: input-required scenarios (2026-07-28)", () => {
  it("basic elicitation under user_name, missing and extra keys, validation, result type", async () => {
    const { client, call } = await modernClient(allInputs());
    const first = await call("test_input_required_result_elicitation");
    expect(first.resultType).toBe("input_required");
    expect(first.inputRequests.user_name.method).toBe("elicitation/create");
    const done = await call("test_input_required_result_elicitation", {
      inputResponses: { user_name: accept({ name: "Alice" }) },
      requestState: first.requestState,
    });
    expect(done).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "Hello, Alice!" }],
    });
    const missing = await call("test_input_required_result_elicitation", {
      inputResponses: { wrong_key: accept({ data: "wrong" }) },
    });
    expect(missing.resultType).toBe("input_required");
    expect(Object.keys(missing.inputRequests)).toEqual(["user_name"]);
    const extra = await call("test_input_required_result_elicitation", {
      inputResponses: { user_name: accept({ name: "Alice" }), unknown_extra_key: 1, another_unexpected: {} },
    });
    expect(extra.resultType).toBe("complete");
    for (const inputResponses of [{ user_name: 12345 }, null]) {
      const error = await call("test_input_required_result_elicitation", { inputResponses }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((error as JsonRpcError).code).toBe(-32602);
    }
    await client.close();
  });

  it("sampling, roots, request state, several inputs in one round, several rounds", async () => {
    const { client, call } = await modernClient(allInputs());
    const answerAll = (requests: Json) =>
      Object.fromEntries(
        Object.entries(requests).map(([key, r]: [string, any]) => [
          key,
          r.method === "elicitation/create"
            ? accept({ name: "Alice", ok: true })
            : r.method === "roots/list"
            ? ROOTS
            : sampled("The capital of France is Paris."),
        ]),
      );
    const complete = async (name: string) => {
      const first = await call(name);
      expect(first.resultType).toBe("input_required");
      return {
        first,
        done: await call(name, {
          inputResponses: answerAll(first.inputRequests),
          requestState: first.requestState,
        }),
      };
    };
    expect((await complete("test_input_required_result_sampling")).done.content[0].text).toBe(
      "The capital of France is Paris.",
    );
    expect((await complete("test_input_required_result_list_roots")).done.content[0].text).toBe(
      "Roots: Test Root",
    );
    const state = await complete("test_input_required_result_request_state");
    expect(typeof state.first.requestState).toBe("string");
    expect(state.done.content[0].text).toContain("state-ok");
    const multiple = await complete("test_input_required_result_multiple_inputs");
    expect(Object.values(multiple.first.inputRequests).map((r: any) => r.method).sort()).toEqual([
      "elicitation/create",
      "roots/list",
      "sampling/createMessage",
    ]);
    expect(multiple.done.resultType).toBe("complete");
    const r1 = await call("test_input_required_result_multi_round");
    const r2 = await call("test_input_required_result_multi_round", {
      inputResponses: { step1: accept({ name: "Alice" }) },
      requestState: r1.requestState,
    });
    expect(r2.resultType).toBe("input_required");
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = await call("test_input_required_result_multi_round", {
      inputResponses: { step2: accept({ color: "blue" }) },
      requestState: r2.requestState,
    });
    expect(r3.content[0].text).toBe("Alice likes blue");
    await client.close();
  });

  it("a tampered state is -32602; tools/list never answers input_required; the prompt asks first", async () => {
    const { client, call } = await modernClient(allInputs());
    const first = await call("test_input_required_result_tampered_state");
    const error = await call("test_input_required_result_tampered_state", {
      inputResponses: { user_name: accept({ name: "x" }) },
      requestState: `${first.requestState}-TAMPERED`,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as JsonRpcError).code).toBe(-32602);
    expect(((await client.request("tools/list", {})) as Json).resultType).toBe("complete");
    const prompt = (await client.request("prompts/get", { name: "test_input_required_result_prompt" }, {
      inputRequired: "manual",
    })) as Json;
    expect(prompt.resultType).toBe("input_required");
    const [key] = Object.keys(prompt.inputRequests);
    const messages = (await client.request("prompts/get", {
      name: "test_input_required_result_prompt",
      inputResponses: { [key]: accept({ context: "test context" }) },
      requestState: prompt.requestState,
    })) as Json;
    expect(messages.messages[0].content.text).toContain("test context");
    await client.close();
  });

  it("asks only for declared capabilities: sampling only → a sampling request; none → -32021 for test_missing_capability", async () => {
    const sampling = await modernClient(new ClientInputs().onSample(() => sampled("hi") as never));
    const first = await sampling.call("test_input_required_result_capabilities");
    expect(Object.values(first.inputRequests).map((r: any) => r.method)).toEqual(["sampling/createMessage"]);
    expect((await sampling.call("test_input_required_result_capabilities", {}, true)).content[0].text).toBe(
      "Sampled: hi",
    );
    await sampling.client.close();
    const none = await modernClient(new ClientInputs());
    const error = await none.call("test_missing_capability").then(() => undefined, (e: unknown) => e);
    expect((error as JsonRpcError).code).toBe(-32021);
    expect((error as JsonRpcError).data).toEqual({ requiredCapabilities: { sampling: {} } });
    await none.client.close();
  });
});

describe("everything server: legacy elicitation and sampling (2025-11-25)", () => {
  it("SDK 1.32 answers test_sampling, test_elicitation and the SEP-1034/1330 elicitations", async () => {
    const client = new LegacyClient({ name: "sdk-1.32", version: "1.32.2" }, {
      capabilities: { elicitation: {}, sampling: {} },
    });
    const schemas: Json[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      schemas.push((request.params as Json).requestedSchema);
      return accept({ username: "u", email: "e@x" }) as never;
    });
    client.setRequestHandler(
      CreateMessageRequestSchema,
      async () => sampled("This is a test response from the client") as never,
    );
    await client.connect(
      new LegacyStdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "pipe" }),
    );
    const text = async (name: string, args: Json = {}) =>
      ((await client.callTool({ name, arguments: args })).content as Json[])[0].text;
    expect(await text("test_sampling", { prompt: "Test prompt for sampling" })).toBe(
      "LLM response: This is a test response from the client",
    );
    expect(await text("test_elicitation", { message: "Who?" })).toBe(
      'User response: action=accept, content={"username":"u","email":"e@x"}',
    );
    expect(await text("test_elicitation_sep1034_defaults")).toMatch(/^Elicitation completed: action=accept/);
    expect(schemas[1].properties).toMatchObject({
      name: { default: "John Doe" },
      age: { type: "integer", default: 30 },
      score: { default: 95.5 },
      status: { default: "active" },
      verified: { default: true },
    });
    await text("test_elicitation_sep1330_enums");
    expect(schemas[2].properties.titledSingle.oneOf).toHaveLength(3);
    expect(schemas[2].properties.legacyEnum.enumNames).toHaveLength(3);
    expect(schemas[2].properties.titledMulti.items.anyOf).toHaveLength(3);
    await client.close();
  });

  it("our legacy client fills SEP-1034 defaults it was not given", async () => {
    const inputs = new ClientInputs().onElicit(() => accept({ name: "Jane Smith" }) as never);
    const client = await ContextClient.connect(spawnProcess(process.execPath, [SERVER]), {
      era: "legacy",
      eraCache: new EraCache(),
      inputs,
    });
    const result = (await client.request("tools/call", {
      name: "test_elicitation_sep1034_defaults",
      arguments: {},
    })) as Json;
    expect(result.content[0].text).toBe(
      'Elicitation completed: action=accept, content={"name":"Jane Smith","age":30,"score":95.5,"status":"active","verified":true}',
    );
    await client.close();
  });
});
